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
import { DeliveryError, describeDestination } from '../delivery/destinations.js';
import { DEFAULT_IDLE_FOR_MS, DEFAULT_WAIT_IDLE_MS } from '../delivery/lastUse.js';
import { findKey, RotationError } from '../delivery/rotation.js';
import { checkKeyRef } from './keyRef.js';
import { DeliveryRecord } from '../delivery/deliveryRecord.js';
import { RotationRecord, RotationRecordError, type Rotation } from '../delivery/rotationRecord.js';
import { beginRotation, createSuccessor, deliverSuccessor, markDelivered, type RotationContext, type Successor } from '../operations/rotateKey.js';
import { OperationDrivers } from '../operations/drivers.js';
import { pendingRotationOf, resumeRotation, undoRotation } from '../operations/rotateRecovery.js';
import { visible } from '../terminal/sanitize.js';
import { printData, type CommandDeps } from './api-command.js';
import { confirmDestructive, ensureCanConfirm } from './confirm.js';
import { parseKeyName } from './input.js';
import { deliveryJson, deliveryPlanOf, printOutcomes, say, type DeliveryFlags, type DeliveryPlan } from './keyDelivery.js';
import { askLine, canPrompt, ExitCode, fail, openSession, printLine, warn, type ExitCodeValue, type GlobalOptions, type Session, recordExit } from './output.js';
import { ensureCanChange } from './changeGuard.js';
import { durationFlag, handover, oldActionFlag, type HandoverFlags } from './rotateHandover.js';

/** The flags of `keys rotate`. */
export interface RotateFlags extends DeliveryFlags, HandoverFlags {
  /** `--name`: the successor's name (default: the old key's, which then becomes `NAME (rotated DATE)`). */
  readonly name?: string;
  readonly finish?: boolean;
  readonly undo?: boolean;
}

/** A rotation error as the command's end: exit 1 with its code. */
function asFailure(err: unknown): never {
  if (err instanceof RotationError) fail(ExitCode.refused, `${err.code}: ${err.message}`);
  if (err instanceof RotationRecordError) fail(recordExit(err), `rotation_record: ${err.message}`);
  if (err instanceof DeliveryError) fail(ExitCode.refused, `${err.code}: ${err.message.replace(/[.;]? nothing was created$/, '')}; no key was created`);
  throw err;
}

/** The options the handover and a resumed rotation need. */
type ResumeOptions = Parameters<typeof handover>[2] & { oldAction?: Rotation['oldAction']; graceMs?: number; plan: DeliveryPlan };

/**
 * `keydeck keys rotate ID|NAME [--name NEW] [--to-file …]… [--to-command …]… [--old …] [--grace D]
 * [--wait-idle [BOUND]] [--idle-for D] [--yes] [--json]`, or `--finish [ID|NAME]` / `--undo [ID|NAME]`.
 * Run again while a rotation of the same key is unfinished (a cron job after a kill), it finishes
 * that one.
 */
export async function keysRotate(globals: GlobalOptions, idOrName: string | undefined, flags: RotateFlags, deps: CommandDeps = {}): Promise<ExitCodeValue> {
  if (flags.finish && flags.undo) fail(ExitCode.usage, 'invalid_request: --finish and --undo cannot be given together');
  await ensureCanChange(globals, 'rotate a key', deps.session?.env);
  if (idOrName !== undefined) idOrName = checkKeyRef(idOrName);
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
  const successorFlag = flags.name !== undefined ? parseKeyName(flags.name) : undefined;
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
    delivery: { lockDir: plan.lockDir, env: plan.env, commandTimeoutMs: plan.commandTimeoutMs, secrets: [session.credential.token] },
    deliveries,
    drivers: new OperationDrivers(dataDir(plan.env)),
  };
  const origin = originOf(session.profile.baseUrl);
  const options: ResumeOptions = { ...handoverFlags, ...(oldAction && { oldAction }), ...(graceMs !== undefined && { graceMs }), plan };
  try {
    if (flags.finish || flags.undo) return await resume(ctx, session, idOrName, flags, options);
    const keys = await session.client.keys.list();
    const pending = (await ctx.record.list({ profile: session.profile.name, origin })).filter((r) => r.kind === 'consumption');
    const unfinished = pendingRotationOf(pending, keys, idOrName!);
    if (unfinished) {
      say(`The rotation of "${visible(unfinished.old.name)}" started ${unfinished.startedAt.slice(0, 16).replace('T', ' ')} UTC is unfinished: this run finishes it.`, flags.json === true);
      return await resume(ctx, session, unfinished.old.id, { ...flags, finish: true }, options);
    }
    const old = findKey(keys, idOrName!);
    // Without destination flags: where the old key was delivered, when keydeck did it.
    const remembered = plan.destinations.length === 0 ? await deliveries.recall({ profile: session.profile.name, origin, keyId: old.id }) : undefined;
    const destinations = remembered ?? plan.destinations;
    if (destinations.length === 0 && !flags.json && !process.stdout.isTTY) {
      fail(
        ExitCode.usage,
        `invalid_request: keydeck does not know where "${visible(old.name)}" is used and stdout is not a terminal, so the new key would be lost: pass --to-file or --to-command (or --json); nothing was changed`,
      );
    }
    const rotation = await beginRotation(ctx, {
      profile: session.profile.name,
      origin,
      old,
      ...(successorFlag !== undefined && { successorName: successorFlag }),
      taken: keys.map((k) => k.name),
      destinations,
      ...(oldAction && { oldAction }),
      ...(graceMs !== undefined && { graceMs }),
    });
    if (remembered) say(`The old key was delivered by keydeck to ${remembered.map(describeDestination).join(', ')}: the successor goes there too.`, flags.json === true);
    const renames = rotation.old.rotatedName !== undefined ? `; it takes the name "${visible(rotation.successor.name)}", and the old key becomes "${visible(rotation.old.rotatedName)}" once it is delivered` : ` "${visible(rotation.successor.name)}"`;
    say(`Rotating the key "${visible(old.name)}" (id ${visible(old.id)}) to a successor${renames}.`, flags.json === true);
    return await createAndHandOver(ctx, rotation, options);
  } catch (err) {
    return asFailure(err);
  } finally {
    // What is not over is interrupted from now on (another keydeck may take it up).
    ctx.drivers?.releaseAll();
  }
}

/** Steps from `creating`: create, deliver (or show), hand over. */
async function createAndHandOver(ctx: RotationContext, rotation: Rotation, flags: ResumeOptions): Promise<ExitCodeValue> {
  let made;
  try {
    made = await createSuccessor(ctx, rotation);
  } catch (err) {
    // The successor may exist (the answer was lost or could not be read): the rotation stays recorded.
    if ((await ctx.record.list().catch(() => [])).some((r) => r.id === rotation.id)) {
      warn(`the successor may have been created: \`keydeck keys rotate --finish ${rotation.old.id}\` finds it and goes on with a new one, \`keydeck keys rotate --undo ${rotation.old.id}\` deletes it; the old key is untouched`);
    }
    throw err;
  }
  for (const w of made.warnings) warn(w);
  say(`Created the successor "${visible(made.created.name)}" (id ${visible(made.created.id ?? 'unknown')}).`, flags.json === true);
  return deliverAndHandOver(ctx, made.rotation, made.created, flags);
}

/** Steps from `created` with the successor's value: deliver (or show), then hand over. */
async function deliverAndHandOver(ctx: RotationContext, rotation: Rotation, created: Successor, flags: ResumeOptions): Promise<ExitCodeValue> {
  const json = flags.json === true;
  let current = rotation;
  let shownKey = false;
  let deliveries: ReturnType<typeof deliveryJson>[] = [];
  if (current.destinations.length > 0) {
    const delivered = await deliverSuccessor(ctx, current, created.apiKey);
    printOutcomes(delivered.outcomes, json);
    deliveries = delivered.outcomes.map(deliveryJson);
    if (delivered.rotation.stage !== 'delivered') await undeliveredSuccessor(ctx, delivered.rotation, created, flags);
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
  if (current.old.rotatedName !== undefined) say(`The successor "${visible(current.successor.name)}" is in place; the old key is named "${visible(current.old.rotatedName)}" now.`, json);
  const result = await handover(ctx, current, flags);
  if (json) {
    printData({
      old: { id: current.old.id, name: current.old.rotatedName ?? current.old.name, action: result.action, lastUsedAt: result.lastUse.known ? (result.lastUse.at === null ? null : new Date(result.lastUse.at).toISOString()) : undefined },
      successor: { ...created.answer, ...(shownKey && { apiKey: created.apiKey }) },
      deliveries,
    });
  }
  return ExitCode.ok;
}

/**
 * A destination failed: the old key is untouched and the rotation stays recorded. The successor is
 * printed to a terminal (so it is not lost), undoing is offered there, and the ways out are named.
 * @throws CommandFailure exit 1 `delivery_failed`
 */
async function undeliveredSuccessor(ctx: RotationContext, rotation: Rotation, created: Successor, flags: ResumeOptions): Promise<never> {
  const label = `the successor "${visible(created.name)}" (id ${visible(created.id ?? 'unknown')})`;
  const failed = rotation.destinations.filter((_, i) => rotation.targets[i]?.state === 'failed').map(describeDestination);
  const holders = rotation.destinations.filter((_, i) => rotation.targets[i]?.state === 'written' || rotation.targets[i]?.state === 'took').map(describeDestination);
  const fileHolds = rotation.destinations.some((d, i) => d.kind === 'file' && rotation.targets[i]?.state === 'written');
  if (process.stdout.isTTY && flags.json !== true) {
    printLine('');
    printLine('The successor could not be delivered everywhere; so that it is not lost, here it is (the only time it is shown):');
    printLine('');
    printLine(`  ${visible(created.apiKey)}`);
    printLine('');
  }
  if (holders.length > 0) warn(`${holders.join(', ')} already ${holders.length === 1 ? 'holds' : 'hold'} the successor`);
  const target = rotation.old.id;
  if (canPrompt() && !flags.yes) {
    const back = holders.length > 0 ? ` ${holders.join(', ')} get back what they held before (the old key).` : '';
    if (/^y(es)?$/i.test(await askLine(`Undo the rotation: delete ${label} and keep the old key?${back} [y/N] `))) {
      const said = await undoRotation(ctx, rotation);
      fail(ExitCode.refused, `delivery_failed: ${failed.join(', ')} did not take ${label}; the rotation was undone (${said.join('; ')})`);
    }
  }
  const finish = fileHolds ? 'delivers it again where it failed (its value is read back from the file that holds it)' : 'makes a new successor and delivers it';
  fail(
    ExitCode.refused,
    `delivery_failed: ${label} was created, but ${failed.join(', ')} did not take it; the old key "${visible(rotation.old.name)}" is untouched and still works, and the rotation stays recorded: ` +
      `\`keydeck keys rotate --finish ${target}\` ${finish}, \`keydeck keys rotate --undo ${target}\` ${holders.length > 0 ? `puts back what ${holders.join(', ')} held and ` : ''}deletes the successor`,
  );
}

/** `--finish` / `--undo` (or a rerun): the rotation of `idOrName` (or the only one of this profile) taken up. */
async function resume(ctx: RotationContext, session: Session, idOrName: string | undefined, flags: RotateFlags, options: ResumeOptions): Promise<ExitCodeValue> {
  const json = flags.json === true;
  const recorded = (await ctx.record.list({ profile: session.profile.name, origin: originOf(session.profile.baseUrl) })).filter((r) => r.kind === 'consumption');
  // Those another keydeck drives now are in progress, not interrupted: only a named one is said so.
  const pending: Rotation[] = [];
  for (const r of recorded) if (idOrName !== undefined || !(await ctx.drivers!.elsewhere(r.id))) pending.push(r);
  const matching = idOrName === undefined ? pending : [pendingRotationOf(pending, await session.client.keys.list(), idOrName)].filter((r) => r !== undefined);
  if (matching.length === 0) {
    say(idOrName === undefined ? 'No unfinished rotation for this profile and service.' : `No unfinished rotation of "${visible(idOrName)}".`, json);
    return ExitCode.ok;
  }
  if (matching.length > 1) {
    fail(ExitCode.usage, `invalid_request: ${matching.length} rotations are unfinished (${matching.map((r) => `"${r.old.name}" ${r.old.id}`).join(', ')}): name one (keydeck keys rotate --${flags.undo ? 'undo' : 'finish'} ID)`);
  }
  let rotation = matching[0]!;
  if (flags.undo) {
    const held = rotation.destinations.filter((_, i) => ['written', 'took', 'running', 'writing'].includes(rotation.targets[i]?.state ?? '')).map(describeDestination);
    await confirmDestructive({
      yes: flags.yes,
      question: `Undo the rotation of "${rotation.old.name}": put back what its destinations held, delete its successor and keep the old key?${held.length > 0 ? ` (${held.join(', ')} may hold the successor.)` : ''}`,
      command: `keydeck keys rotate --undo ${rotation.old.id}`,
    });
    for (const s of await undoRotation(ctx, rotation)) say(visible(`${s[0]!.toUpperCase()}${s.slice(1)}.`), json);
    return ExitCode.ok;
  }
  if (options.oldAction !== undefined && rotation.oldAction !== options.oldAction) rotation = await ctx.record.update(rotation.id, { oldAction: options.oldAction });
  // A --grace given to the resuming run is the one that counts (from the delivery, when it was made).
  if (options.graceMs !== undefined && rotation.graceMs !== options.graceMs) {
    const deliveredAt = rotation.deliveredAt !== undefined ? Date.parse(rotation.deliveredAt) : Number.NaN;
    rotation = await ctx.record.update(rotation.id, { graceMs: options.graceMs, ...(Number.isFinite(deliveredAt) && { graceUntil: new Date(deliveredAt + options.graceMs).toISOString() }) });
  }
  const resumed = await resumeRotation(ctx, rotation);
  for (const s of resumed.said) say(visible(`${s[0]!.toUpperCase()}${s.slice(1)}.`), json);
  rotation = resumed.rotation;
  if (rotation.stage === 'delivered') {
    say(`Finishing the rotation of "${visible(rotation.old.name)}": its successor "${visible(rotation.successor.name)}" was delivered.`, json);
    await handover(ctx, rotation, options);
    return ExitCode.ok;
  }
  if (resumed.key) {
    say(`Finishing the rotation of "${visible(rotation.old.name)}".`, json);
    return deliverAndHandOver(ctx, rotation, resumed.key, options);
  }
  say(`Finishing the rotation of "${visible(rotation.old.name)}" with a new successor.`, json);
  if (rotation.destinations.length === 0 && !json && !process.stdout.isTTY) fail(ExitCode.usage, 'invalid_request: this rotation has no destination and stdout is not a terminal: run it on a terminal');
  return createAndHandOver(ctx, rotation, options);
}
