/**
 * `keydeck apply [--file PATH] [--yes] [--once] [--json] [--on-guardrail CMD]`: makes the account
 * as the policy file says (docs/guardrails.md): prints the plan (./policy.ts), asks (unless
 * `--yes`), then makes each change through its machine (src/operations/applyPolicy.ts: crash-safe,
 * each step recorded; a rerun takes up what a crash left) and runs the guardrails once, with the
 * usage figures of the shared schedule. `--once` is the run for cron: no question, and only what
 * it did is said (nothing when nothing changed). Each guardrail notice runs `--on-guardrail CMD`
 * with its figures in the environment (src/terminal/notify.ts `onGuardrailEnvironment`; never a
 * key value). Exit 0 when every change was made, 1 when one failed or the plan has a problem.
 */
import { ensureCanChange } from './changeGuard.js';
import { DeliveryRecord } from '../delivery/deliveryRecord.js';
import {
  applyPolicy,
  guardrailContext,
  keyOperationContext,
  OperationDrivers,
  OperationError,
  rotationContext,
  failpointsFrom,
  type AppliedChange,
  type GuardrailNotice,
  type NewKey,
  type OperationEvent,
} from '../operations/index.js';
import { onGuardrailEnvironment, runUserHook } from '../terminal/notify.js';
import { visible } from '../terminal/sanitize.js';
import { printData, type CommandDeps } from './api-command.js';
import { deliveryJson, operationFailure, renderEvent } from './keyDelivery.js';
import { askLine, canPrompt, ExitCode, fail, printLine, printProblem, warn, type ExitCodeValue, type GlobalOptions } from './output.js';
import { changeLine, guardrailWords, openPolicyRun, planJson, planText, type PolicyFlags, type PolicyRun } from './policy.js';
import { ensureCanConfirm } from './confirm.js';
import { keyWords } from './wordingKeys.js';

/** The flags of `apply`. */
export interface ApplyFlags extends PolicyFlags {
  readonly yes?: boolean;
  /** For cron: no question, only what was done is said. */
  readonly once?: boolean;
  /** `--on-guardrail CMD`. */
  readonly onGuardrail?: string;
}

/** See the module comment. */
export async function policyApply(globals: GlobalOptions, flags: ApplyFlags, deps: CommandDeps = {}): Promise<ExitCodeValue> {
  const json = flags.json === true;
  const unattended = flags.once === true;
  // A read-only profile is refused before anything is read or asked (src/config/profileMarks.ts).
  await ensureCanChange(globals, 'apply the policy file', deps.session?.env);
  const run = await openPolicyRun(globals, flags, deps);
  const drivers = new OperationDrivers(run.dataDir);
  try {
    const canShow = json || process.stdout.isTTY === true;
    const unshown = run.plan.changes.filter((c) => c.kind === 'create' && c.destinations.length === 0);
    const problems = [
      ...run.plan.problems.map((p) => p.sentence),
      ...(canShow
        ? []
        : unshown.map(
            (c) =>
              `"${'name' in c ? c.name : ''}" would be created without a destination (no \`to\` in the file), and stdout is not a terminal to show it once: give it a destination, or run apply on a terminal (or with --json)`,
          )),
    ];
    if (!unattended && !json) for (const line of planText(run)) printLine(line);
    if (problems.length > 0) {
      if (json) printData({ ...planJson(run), problems });
      else for (const p of problems.slice(run.plan.problems.length)) printProblem(`Problem: ${visible(p)}`);
      fail(ExitCode.refused, keyWords.policyProblem, { problemsCount: problems.length });
    }
    if (run.plan.changes.length > 0 && !flags.yes && !unattended) {
      ensureCanConfirm({ yes: flags.yes, command: `keydeck apply${flags.file !== undefined ? ` --file ${flags.file}` : ''}` });
      const answer = await askLine(`\nApply ${run.plan.changes.length === 1 ? 'this change' : `these ${run.plan.changes.length} changes`}? [y/N] `);
      if (!/^y(es)?$/i.test(answer)) fail(ExitCode.refused, keyWords.cancelledChanged);
    }
    return await make(run, flags, drivers, canShow);
  } catch (err) {
    // Stopped by the kit's failpoint (crash walks): said as every operation says it.
    return err instanceof OperationError ? operationFailure(err) : Promise.reject(err);
  } finally {
    drivers.releaseAll();
    run.close();
  }
}

/** Makes the plan's changes and says what was done. */
async function make(run: PolicyRun, flags: ApplyFlags, drivers: OperationDrivers, canShow: boolean): Promise<ExitCodeValue> {
  const json = flags.json === true;
  const env = process.env;
  const { session, dataDir, scope } = run;
  const delivery = { lockDir: dataDir, env, secrets: [session.credential.token] };
  const failpoints = failpointsFrom(env);
  const deliveries = new DeliveryRecord(dataDir);
  const notices: GuardrailNotice[] = [];
  const shown: NewKey[] = [];
  const emit = (event: OperationEvent) => {
    if (event.type === 'guardrail') {
      notices.push(event.notice);
      if (!json) printLine(guardrailWords(event.notice, 'cli'));
      return;
    }
    renderEvent(event, json);
  };
  const creation = keyOperationContext({ dataDir, client: session.client, delivery, deliveries, profile: scope.profile, origin: scope.origin, drivers, failpoints, emit });
  const rotation = rotationContext({ dataDir, client: session.client, delivery, deliveries, profile: scope.profile, origin: scope.origin, drivers, failpoints, emit });
  const hook = flags.onGuardrail;
  const guardrail = guardrailContext({
    dataDir,
    client: session.client,
    profile: scope.profile,
    origin: scope.origin,
    drivers,
    failpoints,
    emit,
    rotation,
    ...(hook !== undefined && {
      tell: async (notice: GuardrailNotice) => {
        const problem = await runUserHook('--on-guardrail', hook, onGuardrailEnvironment(notice, scope.profile, scope.origin, env), { env });
        if (problem !== undefined) warn(problem);
      },
    }),
  });
  const result = await applyPolicy(
    {
      creation,
      guardrail,
      configPath: session.profile.configPath,
      profile: scope.profile,
      canShow,
      reveal: async (key) => {
        shown.push(key);
        if (json) return;
        printLine(`Created the credit key "${visible(key.name)}" (id ${visible(key.id ?? 'unknown')}); the file gives it no destination, so here it is, the only time it is shown:`);
        printLine('');
        printLine(`  ${visible(key.apiKey)}`);
        printLine('');
        if (canPrompt()) await askLine('Press enter once it is kept. ');
      },
    },
    run.plan,
    run.figures,
    run.destinationsOf,
  );
  const failed = [...result.applied.filter((a) => !a.ok), ...(result.pass?.failed ?? [])];
  if (json) {
    printData({
      changes: result.applied.map((a) => appliedJson(a, shown)),
      guardrails: notices.map((n) => ({ ...n, text: guardrailWords(n, 'cli') })),
      skipped: result.pass?.skipped ?? [],
      failed: (result.pass?.failed ?? []).map((f) => ({ name: f.name, error: errorWords(f.error) })),
    });
  } else {
    for (const a of result.applied) if (!flags.once || a.ok) printLine(`${a.ok ? 'done' : 'FAILED'}: ${changeLine(a.change).slice(2)}${a.ok ? '' : ` (${errorWords(a.ok ? undefined : a.error)})`}`);
    for (const f of result.pass?.failed ?? []) printProblem(`FAILED: the guardrail of "${visible(f.name)}": ${errorWords(f.error)}`);
    for (const name of result.pass?.skipped ?? []) warn(`the guardrail of "${name}" is acting in another keydeck now: left to it`);
    if (!flags.once && result.applied.length === 0 && notices.length === 0) printLine('Nothing was changed.');
  }
  return failed.length > 0 ? ExitCode.refused : ExitCode.ok;
}

/** An error in a few words (a failed change). */
function errorWords(error: unknown): string {
  if (error === undefined) return 'a destination did not take the key: the creation stays recorded, and the next apply takes it up';
  return visible(error instanceof Error ? error.message : String(error));
}

/** One change made, as `--json` prints it (a key shown once carries its value). */
function appliedJson(a: AppliedChange, shown: readonly NewKey[]): Record<string, unknown> {
  const outcome = a.outcome;
  const key = outcome && (outcome.kind === 'done' || outcome.kind === 'undelivered') ? outcome.key : undefined;
  const revealed = key && shown.find((k) => k.id === key.id);
  return {
    kind: a.change.kind,
    ...('name' in a.change && { name: a.change.name }),
    ok: a.ok,
    text: changeLine(a.change),
    ...(key && { key: { ...key.answer, ...(revealed && { apiKey: revealed.apiKey }) } }),
    ...(outcome && (outcome.kind === 'done' || outcome.kind === 'undelivered') && { deliveries: outcome.outcomes.map(deliveryJson) }),
    ...(!a.ok && { error: errorWords(a.error) }),
  };
}
