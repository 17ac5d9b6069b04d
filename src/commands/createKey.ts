/**
 * `keydeck keys create` (issue 26, issue 42): the command line's face of src/operations/createKey.ts
 * (a credit key, or with `--subscription` a pledge's key, ./../operations/pledgeKey.ts). The key
 * is shown once, or delivered to `--to-file` / `--to-command` (checked first: nothing is created
 * when one cannot take it). An interrupted creation is named at every command's start and taken up
 * by `--finish [NAME]`, by running the same command again, or given up by `--undo [NAME]` (files
 * put back, the key deleted unless a command took it). A destination that fails leaves the
 * operation recorded, the key printed only to a terminal, and the two ways out named.
 */
import { ensureNameFree } from './nameTaken.js';
import { dataDir } from '../config/paths.js';
import { originOf } from '../credentials/index.js';
import { DeliveryError, describeDestination, samePlaces, type Destination } from '../delivery/destinations.js';
import { DeliveryRecord } from '../delivery/deliveryRecord.js';
import { alreadyDone, beginCreate, createStep, deliverStep, endCreate, resumeCreate, undoCreate, type KeyOperationContext, type NewKey } from '../operations/createKey.js';
import { OperationDrivers } from '../operations/drivers.js';
import { OperationRecord, OperationRecordError, type KeyOperation } from '../operations/record.js';
import { visible } from '../terminal/sanitize.js';
import { printData } from './api-command.js';
import { confirmDestructive, ensureCanConfirm } from './confirm.js';
import { deliveryJson, printOutcomes, say, type DeliveryPlan } from './keyDelivery.js';
import { askLine, canPrompt, ExitCode, fail, printLine, warn, type ExitCodeValue, type Session, recordExit } from './output.js';

/** What `keys create` was asked. */
export interface CreateRequest {
  readonly name?: string;
  readonly subscriptionId?: string;
  readonly plan: DeliveryPlan;
  readonly finish?: boolean;
  readonly undo?: boolean;
  readonly yes?: boolean;
  readonly json?: boolean;
  /** `--allow-duplicate-name`: no question when another key has the name (./nameTaken.ts). */
  readonly allowDuplicateName?: boolean;
}

/** The operation context of `session`. */
export function operationContext(session: Session, plan: DeliveryPlan): KeyOperationContext {
  return {
    client: session.client,
    record: new OperationRecord(dataDir(plan.env)),
    delivery: { lockDir: plan.lockDir, env: plan.env, commandTimeoutMs: plan.commandTimeoutMs, secrets: [session.credential.token] },
    deliveries: new DeliveryRecord(dataDir(plan.env)),
    profile: session.profile.name,
    origin: originOf(session.profile.baseUrl),
    drivers: new OperationDrivers(dataDir(plan.env)),
  };
}

/** The `keys create` words for an operation: `the credit key "web"`. */
const what = (op: Pick<KeyOperation, 'kind'>) => (op.kind === 'pledge' ? 'the subscription key' : 'the credit key');
/** The `--finish`/`--undo` command of `op`. */
const command = (op: Pick<KeyOperation, 'name'>, flag: 'finish' | 'undo') => `keydeck keys create --${flag} ${/^[\w.@-]+$/.test(op.name) ? op.name : JSON.stringify(op.name)}`;

/**
 * Runs `keys create` in `session` (see the module comment). `checkMint` refuses a pledge's mint
 * before anything is recorded (it is given the operation's own lost keys to leave out).
 */
export async function runKeysCreate(session: Session, request: CreateRequest, checkMint?: (subscriptionId: string, own: readonly string[]) => Promise<void>): Promise<ExitCodeValue> {
  const ctx = operationContext(session, request.plan);
  const json = request.json === true;
  try {
    // Those another keydeck drives now are in progress, not interrupted: left to it.
    const recorded = await ctx.record.list({ profile: ctx.profile, origin: ctx.origin });
    const pending: KeyOperation[] = [];
    for (const o of recorded) if (!(await ctx.drivers!.elsewhere(o.id))) pending.push(o);
    const busy = recorded.find((o) => !pending.includes(o) && (o.name === request.name || o.key.id === request.name));
    if (busy) fail(ExitCode.refused, `operation_in_progress: the creation of "${visible(busy.name)}" is in progress in another keydeck (another shell, the TUI): let it end first`);
    if (request.finish || request.undo) {
      const matching = request.name === undefined ? pending : pending.filter((o) => o.name === request.name || o.key.id === request.name);
      if (matching.length === 0) {
        say(request.name === undefined ? 'No unfinished key creation for this profile and service.' : `No unfinished creation of the key "${visible(request.name)}".`, json);
        return ExitCode.ok;
      }
      if (matching.length > 1) fail(ExitCode.usage, `invalid_request: ${matching.length} key creations are unfinished (${matching.map((o) => `"${o.name}"`).join(', ')}): name one (keydeck keys create --${request.undo ? 'undo' : 'finish'} NAME)`);
      const op = matching[0]!;
      if (request.undo) return await undo(ctx, op, request);
      return await resume(ctx, op, request, checkMint);
    }
    const same = pending.find((o) => o.name === request.name && o.subscriptionId === request.subscriptionId);
    if (same) {
      if (!samePlaces(same.destinations, request.plan.destinations)) {
        fail(ExitCode.refused, `operation_pending: the creation of "${visible(same.name)}" was interrupted earlier with other destinations: \`${command(same, 'finish')}\` or \`${command(same, 'undo')}\` first`);
      }
      say(`The creation of "${visible(same.name)}" was interrupted earlier: taking it up.`, json);
      return await resume(ctx, same, request, checkMint);
    }
    const kind = request.subscriptionId === undefined ? 'create' : 'pledge';
    const done = await alreadyDone(ctx, { kind, name: request.name!, destinations: request.plan.destinations });
    if (done) {
      // The same command ran to its end before (keydeck killed after, say): nothing to do again.
      say(
        `The key "${visible(request.name!)}" (id ${visible(done.id)}) was created and delivered to these destinations already (${done.at.slice(0, 16).replace('T', ' ')} UTC): nothing was created. ` +
          `To replace it: keydeck keys rotate ${visible(done.id)}`,
        json,
      );
      if (json) printData({ id: done.id, name: request.name, deliveries: [] });
      return ExitCode.ok;
    }
    if (request.subscriptionId !== undefined) await checkMint?.(request.subscriptionId, []);
    // A new creation (not one taken up): a name another key has is said and asked about before
    // anything is created (issue 44).
    await ensureNameFree(() => session.client.keys.list(), request.name!, { action: 'create', ...(request.allowDuplicateName && { allowDuplicate: true }) });
    let op: KeyOperation;
    try {
      op = await beginCreate(ctx, { kind, name: request.name!, ...(request.subscriptionId !== undefined && { subscriptionId: request.subscriptionId }), destinations: request.plan.destinations });
    } catch (err) {
      if (err instanceof DeliveryError) fail(ExitCode.refused, `${err.code}: ${err.message.replace(/[.;]? nothing was created$/, '')}; no key was created`);
      throw err;
    }
    return await createAndDeliver(ctx, op, request);
  } catch (err) {
    if (err instanceof OperationRecordError) fail(recordExit(err), `operation_record: ${err.message}`);
    throw err;
  } finally {
    // What is not over is interrupted from now on (another keydeck may take it up).
    ctx.drivers?.releaseAll();
  }
}

/** Creates the key of `op` (at `creating`), then delivers or shows it. */
async function createAndDeliver(ctx: KeyOperationContext, op: KeyOperation, request: CreateRequest): Promise<ExitCodeValue> {
  let made;
  try {
    made = await createStep(ctx, op);
  } catch (err) {
    // The key may exist (the answer was lost or could not be read): the creation stays recorded.
    if ((await ctx.record.list().catch(() => [])).some((o) => o.id === op.id)) {
      warn(`the key "${op.name}" may have been created: \`${command(op, 'finish')}\` finds it and puts a new one in its place (its value is not known), \`${command(op, 'undo')}\` deletes it`);
    }
    throw err;
  }
  for (const w of made.warnings) warn(w);
  return deliverOrShow(ctx, made.op, made.key, request);
}

/** Delivers `key` (an operation at `created`) or shows it (`showing`), and ends the operation. */
async function deliverOrShow(ctx: KeyOperationContext, op: KeyOperation, key: NewKey, request: CreateRequest): Promise<ExitCodeValue> {
  const json = request.json === true;
  const label = `${what(op)} "${visible(key.name)}" (id ${visible(key.id ?? 'unknown')})`;
  if (op.destinations.length > 0) {
    say(`Created ${label}; delivering it:`, json);
    const delivered = await deliverStep(ctx, op, key);
    printOutcomes(delivered.outcomes, json);
    const failed = delivered.op !== undefined;
    if (json) printData({ ...key.answer, ...(failed && process.stdout.isTTY && { apiKey: key.apiKey }), deliveries: delivered.outcomes.map(deliveryJson) });
    if (delivered.op) return undelivered(ctx, delivered.op, key, delivered.outcomes.filter((o) => !o.ok).map((o) => o.destination), request);
    if (!json) printLine('The full key was not shown: it went only where you sent it.');
    return ExitCode.ok;
  }
  if (json) printData({ ...key.answer, apiKey: key.apiKey });
  else {
    printLine(`Created ${label}${op.subscriptionId === undefined ? '' : ` for subscription ${visible(op.subscriptionId)}`}.`);
    printLine('');
    printLine(`  ${visible(key.apiKey)}`);
    printLine('');
    printLine('Copy it now: this is the only time the full key is shown; keydeck and the service will not show it again.');
  }
  await endCreate(ctx, op);
  return ExitCode.ok;
}

/**
 * A destination failed: the operation stays recorded. The key is printed to a terminal (so it is
 * not lost), undoing is offered there, and the ways out are named.
 * @throws CommandFailure exit 1 `delivery_failed`
 */
async function undelivered(ctx: KeyOperationContext, op: KeyOperation, key: NewKey, failed: readonly Destination[], request: CreateRequest): Promise<never> {
  const label = `${what(op)} "${visible(key.name)}" (id ${visible(key.id ?? 'unknown')})`;
  const holders = op.destinations.filter((_, i) => op.targets[i]?.state === 'written' || op.targets[i]?.state === 'took').map(describeDestination);
  const fileHolds = op.destinations.some((d, i) => d.kind === 'file' && op.targets[i]?.state === 'written');
  if (process.stdout.isTTY) {
    printLine('');
    printLine('The key could not be delivered everywhere; so that it is not lost, here it is (the only time it is shown):');
    printLine('');
    printLine(`  ${visible(key.apiKey)}`);
    printLine('');
  } else {
    warn(`the key is not printed: stdout is not a terminal${fileHolds ? '' : ', and it cannot be shown again'}`);
  }
  if (holders.length > 0) warn(`${holders.join(', ')} already ${holders.length === 1 ? 'holds' : 'hold'} the new key`);
  if (canPrompt() && !request.yes) {
    const back = holders.length > 0 ? ` ${holders.join(', ')} get back what they held before.` : '';
    if (/^y(es)?$/i.test(await askLine(`Delete ${label} now?${back} [y/N] `))) {
      const said = await undoCreate(ctx, op);
      const deleted = said.some((s) => s.startsWith('deleted the key'));
      fail(ExitCode.refused, `delivery_failed: ${label} was created, but ${failed.map(describeDestination).join(', ')} did not take it; ${deleted ? 'the key was deleted again' : 'undone'}${said.length > 0 ? ` (${said.join('; ')})` : ''}`);
    }
  }
  const finish = fileHolds ? 'delivers it again where it failed (its value is read back from the file that holds it)' : 'makes a new key and delivers it (this one is deleted once that is done: its value is not kept)';
  fail(
    ExitCode.refused,
    `delivery_failed: ${label} was created, but ${failed.map(describeDestination).join(', ')} did not take it; it is kept and the creation stays recorded: ` +
      `\`${command(op, 'finish')}\` ${finish}, \`${command(op, 'undo')}\` ${holders.length > 0 ? 'puts back what the destinations held and ' : ''}deletes it`,
  );
}

/** `--finish` or a rerun: the operation taken up where the world says it is. */
async function resume(ctx: KeyOperationContext, op: KeyOperation, request: CreateRequest, checkMint?: (subscriptionId: string, own: readonly string[]) => Promise<void>): Promise<ExitCodeValue> {
  const json = request.json === true;
  const resumed = await resumeCreate(ctx, op);
  for (const s of resumed.said) say(visible(`${s[0]!.toUpperCase()}${s.slice(1)}.`), json);
  if (resumed.ended) return ExitCode.ok;
  if (resumed.key) return deliverOrShow(ctx, resumed.op, resumed.key, request);
  if (resumed.op.destinations.length === 0 && !json && !process.stdout.isTTY) {
    fail(ExitCode.usage, `invalid_request: the new key would be shown, and stdout is not a terminal: run \`${command(op, 'finish')}\` on a terminal (or with --json), or \`${command(op, 'undo')}\``);
  }
  if (resumed.op.subscriptionId !== undefined) await checkMint?.(resumed.op.subscriptionId, resumed.op.lost);
  return createAndDeliver(ctx, resumed.op, request);
}

/** `--undo`: asked first (or `--yes`). */
async function undo(ctx: KeyOperationContext, op: KeyOperation, request: CreateRequest): Promise<ExitCodeValue> {
  const json = request.json === true;
  ensureCanConfirm({ yes: request.yes, command: command(op, 'undo') });
  await confirmDestructive({ yes: request.yes, question: `Undo the creation of "${op.name}": put back what its destinations held and delete the key?`, command: command(op, 'undo') });
  const said = await undoCreate(ctx, op);
  if (said.length === 0) say(`Undone: nothing of "${visible(op.name)}" was left to undo.`, json);
  for (const s of said) say(visible(`${s[0]!.toUpperCase()}${s.slice(1)}.`), json);
  return ExitCode.ok;
}
