/**
 * `keydeck keys rotate ID|NAME` (issue 26): replaces a credit key without downtime, by the steps of
 * src/delivery/rotation.ts. The successor (`--name`, default `NAME-r2`…) is created and delivered
 * with the same destinations as `keys create` (`--to-file`, `--to-command`; without one it is
 * shown once on the terminal, or in `--json`); then ./rotateHandover.ts waits `--grace`, shows the
 * old key's last use, waits for it to go idle (`--wait-idle`), and deactivates, deletes or keeps it
 * (`--old`, else asked). `--finish` / `--undo` take up a rotation that was interrupted (the record
 * in the data dir, src/delivery/rotationRecord.ts). Subscription keys are refused with what works
 * instead. Exit codes: ./api-command.ts; `still_in_use` and `delivery_failed` are 1.
 */
import { dataDir } from '../config/paths.js';
import { originOf } from '../credentials/index.js';
import { describeDestination } from '../delivery/destinations.js';
import { DEFAULT_IDLE_FOR_MS, DEFAULT_WAIT_IDLE_MS } from '../delivery/lastUse.js';
import {
  beginRotation,
  createSuccessor,
  deliverSuccessor,
  findKey,
  markDelivered,
  restartRotation,
  RotationError,
  successorName,
  undoRotation,
  type RotationContext,
} from '../delivery/rotation.js';
import { DeliveryRecord } from '../delivery/deliveryRecord.js';
import { RotationRecord, RotationRecordError, type Rotation } from '../delivery/rotationRecord.js';
import { visible } from '../terminal/sanitize.js';
import { printData, type CommandDeps } from './api-command.js';
import { confirmDestructive, ensureCanConfirm } from './confirm.js';
import { parseKeyName } from './input.js';
import { checkPlan, deliveryJson, deliveryPlanOf, printOutcomes, say, undelivered, type DeliveryFlags, type DeliveryPlan } from './keyDelivery.js';
import { askLine, canPrompt, ExitCode, fail, openSession, printLine, type ExitCodeValue, type GlobalOptions, type Session } from './output.js';
import { durationFlag, handover, oldActionFlag, type HandoverFlags } from './rotateHandover.js';

/** The flags of `keys rotate`. */
export interface RotateFlags extends DeliveryFlags, HandoverFlags {
  /** `--name`: the successor's name. */
  readonly name?: string;
  readonly finish?: boolean;
  readonly undo?: boolean;
}

/** A rotation error as the command's end: exit 1 with its code. */
function asFailure(err: unknown): never {
  if (err instanceof RotationError) fail(ExitCode.refused, `${err.code}: ${err.message}`);
  if (err instanceof RotationRecordError) fail(ExitCode.refused, `rotation_record: ${err.message}`);
  throw err;
}

/**
 * `keydeck keys rotate ID|NAME [--name NEW] [--to-file …]… [--to-command …]… [--old …] [--grace D]
 * [--wait-idle [BOUND]] [--idle-for D] [--yes] [--json]`, or `--finish [ID|NAME]` / `--undo [ID|NAME]`.
 */
export async function keysRotate(globals: GlobalOptions, idOrName: string | undefined, flags: RotateFlags, deps: CommandDeps = {}): Promise<ExitCodeValue> {
  if (flags.finish && flags.undo) fail(ExitCode.usage, 'invalid_request: --finish and --undo cannot be given together');
  const oldAction = oldActionFlag(flags.old);
  const idleForMs = flags.idleFor !== undefined ? durationFlag('--idle-for', flags.idleFor) : DEFAULT_IDLE_FOR_MS;
  const waitIdleMs = flags.waitIdle === undefined ? undefined : flags.waitIdle === true ? DEFAULT_WAIT_IDLE_MS : durationFlag('--wait-idle', String(flags.waitIdle));
  const graceMs = flags.grace !== undefined ? durationFlag('--grace', flags.grace) : undefined;
  const plan = deliveryPlanOf(flags);
  if (flags.undo) ensureCanConfirm({ yes: flags.yes, command: `keydeck keys rotate --undo ${idOrName ?? ''}`.trim() });
  if (!flags.finish && !flags.undo) {
    if (idOrName === undefined) fail(ExitCode.usage, 'invalid_request: name the key to rotate: keydeck keys rotate ID|NAME (or --finish / --undo an interrupted rotation)');
    if (oldAction === undefined && !canPrompt()) {
      fail(ExitCode.usage, 'confirmation_required: no terminal to ask what becomes of the old key: pass --old deactivate|delete|keep; nothing was changed');
    }

  }
  // A new rotation still names the other unfinished ones; --finish / --undo handle them itself.
  const session = await openSession(globals, { ...deps.session, pendingRotations: !flags.finish && !flags.undo });
  const handoverFlags = {
    ...flags,
    idleForMs,
    ...(waitIdleMs !== undefined && { waitIdleMs }),
    usage: async (keyId: string, deliveredAt: number) => (await import('./rotateUsage.js')).oldKeyUsage(session, keyId, deliveredAt),
  };
  const deliveries = new DeliveryRecord(dataDir(plan.env));
  const ctx: RotationContext = {
    client: session.client,
    record: new RotationRecord(dataDir(plan.env)),
    delivery: { lockDir: plan.lockDir, env: plan.env, commandTimeoutMs: plan.commandTimeoutMs },
    deliveries,
  };
  try {
    if (flags.finish || flags.undo) return await resume(ctx, session, idOrName, flags, { ...handoverFlags, oldAction, plan });
    const keys = await session.client.keys.list();
    const old = findKey(keys, idOrName!);
    const name = flags.name !== undefined ? parseKeyName(flags.name) : successorName(old.name, keys.map((k) => k.name));
    const origin = originOf(session.profile.baseUrl);
    // Without destination flags: where the old key was delivered, when keydeck did it.
    const remembered = plan.destinations.length === 0 ? await deliveries.recall({ profile: session.profile.name, origin, keyId: old.id }) : undefined;
    const destinations = remembered ?? plan.destinations;
    if (destinations.length === 0 && !flags.json && !process.stdout.isTTY) {
      fail(
        ExitCode.usage,
        `invalid_request: keydeck does not know where "${visible(old.name)}" is used and stdout is not a terminal, so the new key would be lost: pass --to-file or --to-command (or --json); nothing was changed`,
      );
    }
    if (old.keyType !== 'subscription') await checkPlan({ ...plan, destinations });
    if (remembered) say(`The old key was delivered by keydeck to ${remembered.map(describeDestination).join(', ')}: the successor goes there too.`, flags.json === true);
    const rotation = await beginRotation(ctx, {
      profile: session.profile.name,
      origin,
      old,
      successorName: name,
      destinations,
      ...(oldAction && { oldAction }),
      ...(graceMs !== undefined && { graceMs }),
    });
    say(`Rotating the key "${visible(old.name)}" (id ${visible(old.id)}); its successor: "${visible(name)}".`, flags.json === true);
    return await createAndHandOver(ctx, rotation, handoverFlags);
  } catch (err) {
    return asFailure(err);
  }
}

/** Steps 2–5 (see src/delivery/rotation.ts) for a rotation at `creating`. */
async function createAndHandOver(ctx: RotationContext, rotation: Rotation, flags: Parameters<typeof handover>[2]): Promise<ExitCodeValue> {
  const json = flags.json === true;
  const made = await createSuccessor(ctx, rotation);
  const created = made.created;
  let current = made.rotation;
  say(`Created the successor "${visible(created.name)}" (id ${visible(created.id)}).`, json);
  let shownKey = false;
  let deliveries: ReturnType<typeof deliveryJson>[] = [];
  if (current.destinations.length > 0) {
    const delivered = await deliverSuccessor(ctx, current, created.apiKey);
    printOutcomes(delivered.outcomes, json);
    deliveries = delivered.outcomes.map(deliveryJson);
    if (delivered.outcomes.some((o) => !o.ok)) {
      await undeliveredSuccessor(ctx, delivered.rotation, created, delivered.outcomes);
    }
    current = delivered.rotation;
  } else {
    if (!json) {
      printLine('');
      printLine(`  ${visible(created.apiKey)}`);
      printLine('');
      printLine('This is the only time the new key is shown: put it where the old one is used.');
      if (canPrompt()) await askLine('Press enter once the new key is in place (the old key is left as it is until then). ');
      else printLine('The old key is handled now, as --old says.');
    }
    shownKey = json;
    current = await markDelivered(ctx, current);
  }
  const result = await handover(ctx, current, flags);
  if (json) {
    const { apiKey, ...successor } = created;
    printData({
      old: { id: current.old.id, name: current.old.name, action: result.action, lastUsedAt: result.lastUse.known ? (result.lastUse.at === null ? null : new Date(result.lastUse.at).toISOString()) : undefined },
      successor: { ...successor, ...(shownKey && { apiKey }) },
      deliveries,
    });
  }
  return ExitCode.ok;
}

/**
 * A destination failed: the old key is untouched. The successor is offered for deletion (then the
 * rotation is dropped); kept, the rotation stays recorded (`--finish` makes a new successor).
 */
async function undeliveredSuccessor(ctx: RotationContext, rotation: Rotation, created: { id: string; name: string; apiKey: string }, outcomes: Parameters<typeof undelivered>[1]): Promise<never> {
  const keepOld = `the old key "${visible(rotation.old.name)}" is untouched and still works; \`keydeck keys rotate --finish ${rotation.old.id}\` tries again with a new successor, \`--undo\` gives up`;
  // Deleted on the user's word: nothing is left to finish.
  return undelivered(created, outcomes, ctx.client, { what: 'the successor', keepOld, onDeleted: () => ctx.record.remove(rotation.id) });
}

/** `--finish` / `--undo`: the rotation of `idOrName` (or the only one of this profile) taken up. */
async function resume(
  ctx: RotationContext,
  session: Session,
  idOrName: string | undefined,
  flags: RotateFlags,
  options: Parameters<typeof handover>[2] & { oldAction?: Rotation['oldAction']; plan: DeliveryPlan },
): Promise<ExitCodeValue> {
  const json = flags.json === true;
  const pending = (await ctx.record.list({ profile: session.profile.name, origin: originOf(session.profile.baseUrl) })).filter((r) => r.kind === 'consumption');
  const matching = idOrName === undefined ? pending : pending.filter((r) => r.old.id === idOrName || r.old.name === idOrName);
  if (matching.length === 0) {
    say(idOrName === undefined ? 'No unfinished rotation for this profile and service.' : `No unfinished rotation of "${visible(idOrName)}".`, json);
    return ExitCode.ok;
  }
  if (matching.length > 1) {
    fail(ExitCode.usage, `invalid_request: ${matching.length} rotations are unfinished (${matching.map((r) => `"${r.old.name}" ${r.old.id}`).join(', ')}): name one (keydeck keys rotate --${flags.undo ? 'undo' : 'finish'} ID)`);
  }
  let rotation = matching[0]!;
  if (flags.undo) {
    const held = rotation.delivered.map((i) => rotation.destinations[i]).filter((d) => d !== undefined).map(describeDestination);
    await confirmDestructive({
      yes: flags.yes,
      question: `Undo the rotation of "${rotation.old.name}": delete its successor and keep the old key?${held.length > 0 ? ` ${held.join(', ')} hold the successor and stop working.` : ''}`,
      command: `keydeck keys rotate --undo ${rotation.old.id}`,
    });
    for (const s of await undoRotation(ctx, rotation)) say(`${s[0]!.toUpperCase()}${s.slice(1)}.`, json);
    return ExitCode.ok;
  }
  if (options.oldAction !== undefined) rotation = await ctx.record.update(rotation.id, { oldAction: options.oldAction });
  if (rotation.stage === 'delivered') {
    say(`Finishing the rotation of "${visible(rotation.old.name)}": its successor "${visible(rotation.successor.name)}" was delivered.`, json);
    await handover(ctx, rotation, options);
    return ExitCode.ok;
  }
  say(
    `Finishing the rotation of "${visible(rotation.old.name)}": its successor never reached every destination, and its value is gone (keydeck never stores a key), ` +
      'so a new successor is made and delivered; the unfinished one is deleted once that is done.',
    json,
  );
  if (rotation.destinations.length === 0 && !json && !process.stdout.isTTY) fail(ExitCode.usage, 'invalid_request: this rotation has no destination and stdout is not a terminal: run it on a terminal');
  rotation = await restartRotation(ctx, rotation);
  return createAndHandOver(ctx, rotation, options);
}
