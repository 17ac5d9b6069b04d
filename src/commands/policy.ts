/**
 * What `keydeck plan` and `keydeck apply` share (docs/guardrails.md): the policy file read
 * (src/config/policyFile.ts), the world it is compared with (the service's keys, the profile's
 * settings, the unfinished creations, the guardrail record, the usage figures read through the one
 * budget of 12 per 12 hours: a read when the shared schedule allows one, else the last figures any
 * keydeck kept), the plan (src/operations/policyPlan.ts) and its words.
 */
import type { ConsumptionKey } from '../api/schemas.js';
import { budgetWords, deadlineWords } from '../billing/guardrailWords.js';
import { UsageTracker } from '../billing/usageTracker.js';
import { formatUsd } from '../api/money.js';
import { dataDir } from '../config/paths.js';
import { DEFAULT_POLICY_FILE, PolicyFileError, readPolicyFile, type PolicyFile } from '../config/policyFile.js';
import type { AutoTopUpPolicy } from '../config/autoTopUp.js';
import { originOf } from '../credentials/index.js';
import { DeliveryRecord } from '../delivery/deliveryRecord.js';
import { describeDestination, type Destination } from '../delivery/destinations.js';
import {
  destinationsOf as declaredDestinations,
  guardrailEntries,
  guardrailWords,
  planPolicy,
  unfinishedCreations,
  unfinishedRotations,
  type GuardrailFigures,
  type PolicyChange,
  type PolicyNote,
  type PolicyPlan,
} from '../operations/index.js';
import { visible } from '../terminal/sanitize.js';
import type { CommandDeps } from './api-command.js';
import { ExitCode, fail, openSession, type GlobalOptions, type Session } from './output.js';
import { openUsageRig, type UsageRig } from './usage.js';

/** The flags both commands take. */
export interface PolicyFlags {
  /** `--file PATH` (default ./keydeck.policy.yaml). */
  readonly file?: string;
  readonly json?: boolean;
}

/** How far back a key's reads are read for its period's start and its rate, ms (a month and a day). */
const SAMPLES_MS = 32 * 86_400_000;

/** One run of `plan` or `apply`: the file, the session and what was read. */
export interface PolicyRun {
  readonly file: PolicyFile;
  readonly session: Session;
  readonly dataDir: string;
  readonly scope: { readonly profile: string; readonly origin: string };
  readonly rig: UsageRig;
  readonly tracker: UsageTracker;
  readonly deliveries: DeliveryRecord;
  readonly plan: PolicyPlan;
  /** The guardrails' figures as they are now (the keys listed again), under the file's rules. */
  figures(): Promise<GuardrailFigures>;
  /** Where keydeck delivered a key (a successor goes there). */
  destinationsOf(key: ConsumptionKey): Promise<readonly Destination[]>;
  close(): void;
}

/**
 * Reads the file, opens the session and the usage record, reads the world and plans.
 * @throws CommandFailure exit 1 for a policy file that cannot be used (plan's 2 means changes), and
 *   the session's failures
 */
export async function openPolicyRun(globals: GlobalOptions, flags: PolicyFlags, deps: CommandDeps = {}): Promise<PolicyRun> {
  const env = deps.session?.env ?? process.env;
  let file: PolicyFile;
  try {
    file = await readPolicyFile(flags.file ?? DEFAULT_POLICY_FILE);
  } catch (err) {
    if (err instanceof PolicyFileError) fail(ExitCode.refused, `${err.code}: ${err.message}`);
    throw err;
  }
  const session = await openSession(globals, { ...deps.session, ...(flags.json && { spinner: false }) });
  const dir = dataDir(env);
  const scope = { profile: session.profile.name, origin: originOf(session.profile.baseUrl) };
  const rig = openUsageRig(session, { ...(deps.session && { session: deps.session }) });
  try {
    const tracker = new UsageTracker({ client: session.client, budget: rig.budget, credential: rig.credential, origin: rig.origin, keyHistory: rig.keyHistory, settings: rig.settings });
    tracker.load();
    const deliveries = new DeliveryRecord(dir);
    const read = async (): Promise<Omit<GuardrailFigures, 'rules' | 'thresholds'>> => {
      const keys = await session.client.keys.list();
      const { snapshot } = await tracker.refresh('auto');
      const now = rig.budget.now(rig.origin, session.client.serviceClockOffsetMs);
      const samples = rig.keyHistory.allSince(now - SAMPLES_MS);
      return { keys, report: snapshot.report, at: snapshot.at, samplesOf: (id) => samples.get(id) ?? [], now, nextReadAt: snapshot.budget?.nextAutoAt };
    };
    const figures = await read();
    const recalled = new Map<string, readonly Destination[]>();
    for (const k of figures.keys) {
      const at = await deliveries.recall({ profile: scope.profile, origin: scope.origin, keyId: k.id });
      if (at && at.length > 0) recalled.set(k.id, at);
    }
    const plan = planPolicy(file, {
      profile: session.profile,
      scope,
      figures,
      creations: await unfinishedCreations(dir, scope),
      rotations: await unfinishedRotations(dir, scope, { all: true }),
      entries: await guardrailEntries(dir, scope),
      recalled,
    });
    return {
      file,
      session,
      dataDir: dir,
      scope,
      rig,
      tracker,
      deliveries,
      plan,
      figures: async () => ({ ...(await read()), rules: plan.rules.rules, thresholds: file.account.thresholds }),
      destinationsOf: async (key) => {
        const declared = declaredDestinations(file, key.name, env);
        return declared.length > 0 ? declared : ((await deliveries.recall({ profile: scope.profile, origin: scope.origin, keyId: key.id })) ?? []);
      },
      close: () => rig.store.close(),
    };
  } catch (err) {
    rig.store.close();
    throw err;
  }
}

const usd = (n: number | undefined) => (n === undefined ? 'none' : formatUsd(n));

/** An auto top-up policy in a few words. */
function autoTopUpWords(p: AutoTopUpPolicy | undefined): string {
  if (!p) return 'off';
  return `below ${usd(p.belowUsd)}, ${p.amountUsd !== undefined ? `${usd(p.amountUsd)} a time` : `up to ${usd(p.toUsd)}`}, at most ${usd(p.maxPerDayUsd)} a day and ${usd(p.maxPerMonthUsd)} a month`;
}

/** One change in words, with its sign: `+ create "b" → .env (B_KEY)`. */
export function changeLine(c: PolicyChange): string {
  const name = (n: string) => `"${visible(n)}"`;
  switch (c.kind) {
    case 'create':
      return `+ create ${name(c.name)}${c.destinations.length > 0 ? ` → ${c.destinations.map(describeDestination).join(', ')}` : ' (shown once: the file gives it no destination)'}`;
    case 'finish':
      return `~ finish the creation of ${name(c.name)} (interrupted ${c.op.startedAt.slice(0, 16).replace('T', ' ')} UTC)`;
    case 'rules':
      return `~ guardrail rules: ${c.to.rules.length} (${c.from ? `were ${c.from.rules.length}` : 'none before'})`;
    case 'alert_below':
      return `~ low-balance threshold: ${usd(c.to)} (was ${usd(c.from)})`;
    case 'auto_top_up':
      return `~ auto top-up: ${autoTopUpWords(c.to)} (was ${autoTopUpWords(c.from)})`;
    case 'guardrail': {
      const d = c.decision;
      const why = d.budget
        ? `${usd(d.budget.spentUsd)} of its ${usd(d.budget.rule.limitUsd)} budget`
        : d.deadline
          ? d.deadline.kind === 'age'
            ? 'older than its maxAge'
            : 'past its expiresIn'
          : 'its period ended';
      if (d.change === 'enable') return `+ enable ${name(d.key.name)}: its guardrail's period ended`;
      if (d.change === 'rotate' && d.entry?.state === 'rotating') return `~ finish the rotation of ${name(d.key.name)} (${why}; interrupted)`;
      if (d.change === 'rotate') return `~ rotate ${name(d.key.name)}: ${why}; its successor → ${(d.input.destinations ?? []).map(describeDestination).join(', ')}, the old key deactivated`;
      return `- disable ${name(d.key.name)}: ${why}${d.budget ? `; back at ${d.plan.periodEnd?.slice(0, 16).replace('T', ' ')} UTC` : ''}`;
    }
  }
}

/** One note in words. */
export function noteLine(n: PolicyNote): string {
  switch (n.kind) {
    case 'says':
      return `${visible(n.decision.key.name)}: will say ${n.decision.says.map((s) => (/^0\./.test(s) ? `${Math.round(Number(s) * 100)} % of its budget reached` : s === 'warning' ? 'its deadline is near' : `its limit is reached (${s})`)).join(', ')}`;
    case 'unmanaged':
      return `"${visible(n.key.name)}" (id ${visible(n.key.id)}) is not in the file: left alone`;
    case 'cannot_create':
      return `"${visible(n.name)}" is a subscription key the service does not list: keydeck cannot make one (a subscription payment does)`;
    case 'inactive':
      return `"${visible(n.key.name)}" (id ${visible(n.key.id)}) exists but is inactive: nothing is created`;
  }
}

/** The plan as `plan` and `apply` print it. */
export function planText(run: PolicyRun): string[] {
  const { plan } = run;
  const now = run.rig.budget.now(run.rig.origin, run.session.client.serviceClockOffsetMs);
  const lines = [`Plan for profile "${visible(run.scope.profile)}" at ${visible(run.scope.origin)}, from ${visible(run.file.path)}:`, ''];
  for (const c of plan.changes) lines.push(`  ${changeLine(c)}`);
  if (plan.changes.length === 0) lines.push('  No changes: the account is as the file says.');
  const views = plan.views.filter((v) => v.budget || v.deadlines.some((d) => d.state !== 'ok'));
  if (views.length > 0) {
    lines.push('', 'Guardrails (soft caps: keydeck sees spend only at its usage reads, 12 per 12 hours):');
    for (const v of views) {
      if (v.budget) lines.push(`  ${visible(v.key.name)}: ${budgetWords(v.budget, now)}`);
      for (const d of v.deadlines) if (d.state !== 'ok') lines.push(`  ${visible(v.key.name)}: ${deadlineWords(d, now)}`);
    }
  }
  if (plan.notes.length > 0) {
    lines.push('', 'Notes:');
    for (const n of plan.notes) lines.push(`  ${noteLine(n)}`);
  }
  for (const p of plan.problems) lines.push('', `Problem: ${visible(p.sentence)}`);
  return lines;
}

/** The plan as `--json` prints it. */
export function planJson(run: PolicyRun): Record<string, unknown> {
  const { plan } = run;
  return {
    file: run.file.path,
    profile: run.scope.profile,
    origin: run.scope.origin,
    changes: plan.changes.map((c) => ({
      kind: c.kind === 'guardrail' ? c.decision.change : c.kind,
      ...('name' in c && { name: c.name }),
      ...(c.kind === 'guardrail' && { name: c.decision.key.name, id: c.decision.key.id, rule: c.decision.plan.rule }),
      text: changeLine(c),
    })),
    guardrails: plan.views.map((v) => ({
      id: v.key.id,
      name: v.key.name,
      ...(v.budget && {
        budget: {
          limitUsd: v.budget.rule.limitUsd,
          period: v.budget.rule.period,
          action: v.budget.rule.action,
          spentUsd: v.budget.spentUsd ?? null,
          ratio: v.budget.ratio ?? null,
          resetsAt: new Date(v.budget.end).toISOString(),
          overshootUsd: v.budget.overshootUsd ?? null,
          nextReadAt: v.budget.nextReadAt === undefined ? null : new Date(v.budget.nextReadAt).toISOString(),
        },
      }),
      deadlines: v.deadlines.map((d) => ({ kind: d.kind, dueAt: new Date(d.dueAt).toISOString(), state: d.state, action: d.action })),
    })),
    notes: plan.notes.map((n) => ({ kind: n.kind, text: noteLine(n) })),
    problems: plan.problems.map((p) => p.sentence),
  };
}

/** The words of a guardrail's notice for the command line (re-exported for `apply`). */
export { guardrailWords };
