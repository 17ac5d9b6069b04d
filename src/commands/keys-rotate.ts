/**
 * `keydeck keys rotate ID|NAME`: replaces a credit key without downtime, by the machine of
 * src/operations/rotateKey.ts. The successor (`--name`, default the old key's name, the old key
 * then renamed `NAME (rotated DATE)`) is created and delivered with the same destinations as
 * `keys create` (`--to-file`, `--to-command`; without one it is shown once on the terminal, or in
 * `--json`); then ./rotateHandover.ts waits `--grace`, shows the old key's last use, waits for it
 * to go idle (`--wait-idle`), and the old key is deactivated, deleted or kept (`--old`, else
 * asked). `--finish` / `--undo` take up a rotation that was interrupted (its record in the data
 * dir). Subscription keys are refused with what works instead. Exit codes: ./api-command.ts;
 * `still_in_use` and `delivery_failed` are 1. The machine runs every step (`drive`); this face
 * picks the rotation, renders its events (src/operations/wording.ts) and asks the user.
 */
import { dataDir } from '../config/paths.js';
import { originOf } from '../credentials/index.js';
import { DeliveryError, describeDestination } from '../delivery/destinations.js';
import { DEFAULT_IDLE_FOR_MS, DEFAULT_WAIT_IDLE_MS } from '../delivery/lastUse.js';
import { findKey, RotationError } from '../delivery/rotation.js';
import { DeliveryRecord } from '../delivery/deliveryRecord.js';
import {
  destinationsWords,
  drive,
  drivenNow,
  holdersOf,
  OperationDrivers,
  OperationError,
  pendingRotationOf,
  rotateKeyMachine,
  rotationContext,
  failpointsFrom,
  unfinishedRotations,
  type NewKey,
  type OperationEvent,
  type Rotation,
  type RotateOutcome,
  type RotationContext,
} from '../operations/index.js';
import { visible } from '../terminal/sanitize.js';
import { checkKeyRef } from './keyRef.js';
import { printData, type CommandDeps } from './api-command.js';
import { confirmDestructive, ensureCanConfirm } from './confirm.js';
import { parseKeyName } from './input.js';
import { deliveryJson, deliveryPlanOf, operationFailure, renderEvent, say, type DeliveryFlags } from './keyDelivery.js';
import { askLine, canPrompt, ExitCode, fail, openSession, printLine, warn, type ExitCodeValue, type GlobalOptions } from './output.js';
import { durationFlag, handover, oldActionFlag, type HandoverFlags, type HandoverOptions } from './rotateHandover.js';
import { ensureCanChange } from './changeGuard.js';
import { keyWords } from './wordingKeys.js';

/** The flags of `keys rotate`. */
export interface RotateFlags extends DeliveryFlags, HandoverFlags {
  /** `--name`: the successor's name (default: the old key's, which then becomes `NAME (rotated DATE)`). */
  readonly name?: string;
  readonly finish?: boolean;
  readonly undo?: boolean;
}

/** A rotation's failure as the command's end: exit 1 (2 for usage) with its code. */
function asFailure(err: unknown): never {
  if (err instanceof RotationError) fail(ExitCode.refused, `${err.code}: ${err.message}${err.code === 'not_found' ? ' (keydeck keys list)' : ''}`);
  if (err instanceof DeliveryError) fail(ExitCode.refused, `${err.code}: ${err.message.replace(/[.;]? nothing was created$/, '')}; no key was created`);
  return operationFailure(err);
}

/** What one run of the command keeps while the machine runs: the successor shown or delivered, for `--json`. */
interface Run {
  readonly ctx: RotationContext;
  readonly json: boolean;
  readonly options: HandoverOptions;
  readonly yes: boolean;
  /** The successor, once made or read back in this run (its value only for `--json` when shown). */
  key?: NewKey;
  shownKey: boolean;
  /** The successor reached its destinations in this run (the handover says it is in place). */
  deliveredHere: boolean;
  deliveries: ReturnType<typeof deliveryJson>[];
}

/**
 * `keydeck keys rotate ID|NAME [--name NEW] [--to-file …]… [--to-command …]… [--old …] [--grace D]
 * [--wait-idle [BOUND]] [--idle-for D] [--yes] [--json]`, or `--finish [ID|NAME]` / `--undo [ID|NAME]`.
 * Run again while a rotation of the same key is unfinished (a cron job after a kill), it finishes
 * that one.
 */
export async function keysRotate(globals: GlobalOptions, idOrName: string | undefined, flags: RotateFlags, deps: CommandDeps = {}): Promise<ExitCodeValue> {
  if (flags.finish && flags.undo) fail(ExitCode.usage, keyWords.invalidRequestFinishUndoCannot);
  await ensureCanChange(globals, 'rotate a key', deps.session?.env);
  if (idOrName !== undefined) idOrName = checkKeyRef(idOrName);
  const oldAction = oldActionFlag(flags.old);
  const idleForMs = flags.idleFor !== undefined ? durationFlag('--idle-for', flags.idleFor) : DEFAULT_IDLE_FOR_MS;
  const waitIdleMs = flags.waitIdle === undefined ? undefined : flags.waitIdle === true ? DEFAULT_WAIT_IDLE_MS : durationFlag('--wait-idle', String(flags.waitIdle));
  const graceMs = flags.grace !== undefined ? durationFlag('--grace', flags.grace) : undefined;
  const plan = deliveryPlanOf(flags);
  if (flags.undo) ensureCanConfirm({ yes: flags.yes, command: `keydeck keys rotate --undo ${idOrName ?? ''}`.trim() });
  if (!flags.finish && !flags.undo) {
    if (idOrName === undefined) fail(ExitCode.usage, keyWords.invalidRequestNameKeyRotate);
    if (oldAction === undefined && !canPrompt()) {
      fail(ExitCode.usage, keyWords.oldKeyUnaskedNothingChanged);
    }
  }
  const successorFlag = flags.name !== undefined ? parseKeyName(flags.name) : undefined;
  // A new rotation still names the other unfinished ones; --finish / --undo handle them itself.
  const session = await openSession(globals, { ...deps.session, pendingRotations: !flags.finish && !flags.undo });
  const json = flags.json === true;
  const dir = dataDir(plan.env);
  const deliveries = new DeliveryRecord(dir);
  const origin = originOf(session.profile.baseUrl);
  let remembered: ReturnType<typeof describeDestination>[] | undefined;
  const run: Run = {
    ctx: rotationContext({
      dataDir: dir,
      client: session.client,
      delivery: { lockDir: plan.lockDir, env: plan.env, commandTimeoutMs: plan.commandTimeoutMs, secrets: [session.credential.token] },
      deliveries,
      drivers: new OperationDrivers(dir),
      profile: session.profile.name,
      origin,
      failpoints: failpointsFrom(plan.env),
      emit: (event) => {
        if (event.type === 'rotation_started' && remembered) say(`The old key was delivered by keydeck to ${remembered.join(', ')}: the successor goes there too.`, json);
        if (event.type === 'delivery') {
          run.deliveredHere = true;
          run.deliveries.push(deliveryJson(event.outcome));
        }
        renderEvent(event, json);
      },
    }),
    json,
    yes: flags.yes === true,
    options: {
      ...flags,
      idleForMs,
      ...(waitIdleMs !== undefined && { waitIdleMs }),
      usage: async (keyId: string, deliveredAt: number) => (await import('./rotateUsage.js')).oldKeyUsage(session, keyId, deliveredAt),
    },
    shownKey: false,
    deliveredHere: false,
    deliveries: [],
  };
  const { ctx } = run;
  try {
    if (flags.finish || flags.undo) return await resume(run, idOrName, flags, oldAction, graceMs);
    const keys = await session.client.keys.list();
    const pending = await unfinishedRotations(dir, { profile: ctx.profile, origin }, { all: true });
    const unfinished = pendingRotationOf(pending, keys, idOrName!);
    if (unfinished) {
      say(`The rotation of "${visible(unfinished.old.name)}" started ${unfinished.startedAt.slice(0, 16).replace('T', ' ')} UTC is unfinished: this run finishes it.`, json);
      return await resume(run, unfinished.old.id, { ...flags, finish: true }, oldAction, graceMs);
    }
    const old = findKey(keys, idOrName!);
    // Without destination flags: where the old key was delivered, when keydeck did it.
    const recalled = plan.destinations.length === 0 ? await deliveries.recall({ profile: ctx.profile, origin, keyId: old.id }) : undefined;
    remembered = recalled?.map(describeDestination);
    const destinations = recalled ?? plan.destinations;
    if (destinations.length === 0 && !json && !process.stdout.isTTY) {
      fail(ExitCode.usage, keyWords.invalidRequestDoesNotKnow, { name: old.name });
    }
    let outcome: RotateOutcome;
    try {
      outcome = await drive(rotateKeyMachine, ctx, { plan: { old, successorName: successorFlag, taken: keys.map((k) => k.name), destinations, oldAction, graceMs } }, 'run', {});
    } catch (err) {
      await mayExist(ctx, old.id, err);
      throw err;
    }
    return await settle(run, outcome);
  } catch (err) {
    return asFailure(err);
  } finally {
    // What is not over is interrupted from now on (another keydeck may take it up).
    ctx.drivers?.releaseAll();
  }
}

/**
 * After a failed create (`err`): when the rotation is still recorded, the successor may exist; the
 * two ways out are named. Not for one another keydeck drives now: that keydeck says how it ends.
 */
async function mayExist(ctx: RotationContext, oldId: string, err: unknown): Promise<void> {
  if (err instanceof OperationError && err.code === 'in_progress') return;
  // An unreadable record says nothing more here: the failure itself is said next.
  if ((await ctx.record.list().catch(() => [])).some((r) => r.old.id === oldId && r.state === 'creating')) {
    warn(
      `the successor may have been created: \`keydeck keys rotate --finish ${oldId}\` finds it and goes on with a new one, \`keydeck keys rotate --undo ${oldId}\` deletes it; the old key is untouched`,
    );
  }
}

/** What the command does once the machine stopped: show the successor, say a failure, or hand over. */
async function settle(run: Run, outcome: RotateOutcome): Promise<ExitCodeValue> {
  const { ctx, json } = run;
  switch (outcome.kind) {
    case 'reveal':
      run.key = outcome.key;
      if (!json) {
        printLine('');
        printLine(`  ${visible(outcome.key.apiKey)}`);
        printLine('');
        printLine('This is the only time the new key is shown: put it where the old one is used.');
        if (canPrompt()) await askLine('Press enter once the new key is in place (the old key is left as it is until then). ');
        else printLine('The old key is handled now, as --old says.');
      }
      run.shownKey = json;
      run.deliveredHere = true;
      return settle(run, await drive(rotateKeyMachine, ctx, { op: outcome.op }, 'run', { shown: true }));
    case 'undelivered':
      run.key = outcome.key;
      return undelivered(run, outcome);
    case 'handover': {
      const op = outcome.op;
      run.key = outcome.key ?? run.key;
      if (run.deliveredHere && op.old.rotatedName !== undefined) say(`The successor "${visible(op.successor.name)}" is in place; the old key is named "${visible(op.old.rotatedName)}" now.`, json);
      const result = await handover(ctx.client, op, run.options);
      await drive(rotateKeyMachine, ctx, { op }, 'finish', { handOver: result.action });
      if (json && run.deliveredHere) {
        printData({
          old: {
            id: op.old.id,
            name: op.old.rotatedName ?? op.old.name,
            action: result.action,
            lastUsedAt: result.lastUse.known ? (result.lastUse.at === null ? null : new Date(result.lastUse.at).toISOString()) : undefined,
          },
          successor: { ...(run.key?.answer ?? { name: op.successor.name, ...(op.successor.id !== undefined && { id: op.successor.id }) }), ...(run.shownKey && run.key && { apiKey: run.key.apiKey }) },
          deliveries: run.deliveries,
        });
      }
      return ExitCode.ok;
    }
    case 'done':
    case 'undone':
    case 'complete':
      return ExitCode.ok;
  }
}

/**
 * A destination failed: the old key is untouched and the rotation stays recorded. The successor is
 * printed to a terminal (so it is not lost), undoing is offered there, and the ways out are named.
 * @throws CommandFailure exit 1 `delivery_failed`
 */
async function undelivered(run: Run, outcome: Extract<RotateOutcome, { kind: 'undelivered' }>): Promise<never> {
  const { op: rotation, key } = outcome;
  const label = `the successor "${visible(key.name)}" (id ${visible(key.id ?? 'unknown')})`;
  const failed = destinationsWords(rotation.destinations.filter((_, i) => rotation.targets[i]?.state === 'failed'));
  const holders = destinationsWords(rotation.destinations.filter((_, i) => rotation.targets[i]?.state === 'written' || rotation.targets[i]?.state === 'took'));
  const holderCount = rotation.destinations.filter((_, i) => rotation.targets[i]?.state === 'written' || rotation.targets[i]?.state === 'took').length;
  const fileHolds = rotation.destinations.some((d, i) => d.kind === 'file' && rotation.targets[i]?.state === 'written');
  if (process.stdout.isTTY && !run.json) {
    printLine('');
    printLine('The successor could not be delivered everywhere; so that it is not lost, here it is (the only time it is shown):');
    printLine('');
    printLine(`  ${visible(key.apiKey)}`);
    printLine('');
  }
  if (holderCount > 0) warn(`${holders} already ${holderCount === 1 ? 'holds' : 'hold'} the successor`);
  const target = rotation.old.id;
  if (canPrompt() && !run.yes) {
    const back = holderCount > 0 ? ` ${holders} get back what they held before (the old key).` : '';
    if (/^y(es)?$/i.test(await askLine(`Undo the rotation: delete ${label} and keep the old key?${back} [y/N] `))) {
      const said: OperationEvent[] = [];
      await drive(rotateKeyMachine, { ...run.ctx, emit: (e) => said.push(e) }, { op: rotation }, 'undo', {});
      fail(ExitCode.refused, keyWords.rotateDeliveryUndone, { failed, label, said });
    }
  }
  const finish = fileHolds ? 'delivers it again where it failed (its value is read back from the file that holds it)' : 'makes a new successor and delivers it';
  fail(ExitCode.refused, keyWords.rotateDeliveryKept, { label, failed, name: rotation.old.name, target, finish, holderCount, holders });
}

/** `--finish` / `--undo` (or a rerun): the rotation of `idOrName` (or the only one of this profile) taken up. */
async function resume(run: Run, idOrName: string | undefined, flags: RotateFlags, oldAction: Rotation['oldAction'], graceMs: number | undefined): Promise<ExitCodeValue> {
  const { ctx, json } = run;
  const dir = ctx.delivery.lockDir;
  const recorded = await unfinishedRotations(dir, { profile: ctx.profile, origin: ctx.origin }, { all: true });
  // Those another keydeck drives now are in progress, not interrupted: only a named one is said so.
  const pending: Rotation[] = [];
  for (const r of recorded) if (idOrName !== undefined || !(await drivenNow(dir, r.id, ctx.drivers))) pending.push(r);
  const matching = idOrName === undefined ? pending : [pendingRotationOf(pending, await ctx.client.keys.list(), idOrName)].filter((r) => r !== undefined);
  if (matching.length === 0) {
    say(idOrName === undefined ? 'No unfinished rotation for this profile and service.' : `No unfinished rotation of "${visible(idOrName)}".`, json);
    return ExitCode.ok;
  }
  if (matching.length > 1) {
    fail(ExitCode.usage, keyWords.invalidRequestRotationsAreUnfinished, { rotations: matching.map((r) => r.old), undo: flags.undo });
  }
  const rotation = matching[0]!;
  if (flags.undo) {
    const held = destinationsWords(holdersOf(rotation));
    await confirmDestructive({
      yes: flags.yes,
      question: `Undo the rotation of "${rotation.old.name}": put back what its destinations held, delete its successor and keep the old key?${held !== '' ? ` (${held} may hold the successor.)` : ''}`,
      command: `keydeck keys rotate --undo ${rotation.old.id}`,
    });
    await drive(rotateKeyMachine, ctx, { op: rotation }, 'undo', {});
    return ExitCode.ok;
  }
  let outcome: RotateOutcome;
  try {
    outcome = await drive(rotateKeyMachine, ctx, { op: rotation }, 'finish', { plannedOld: oldAction, plannedGrace: graceMs, canShow: json || process.stdout.isTTY === true });
  } catch (err) {
    await mayExist(ctx, rotation.old.id, err);
    throw err;
  }
  return settle(run, outcome);
}
