/**
 * `keydeck keys create`: the command line's face of src/operations/createKey.ts (a credit key, or
 * with `--subscription` a pledge's key). The key is shown once, or delivered to `--to-file` /
 * `--to-command` (checked first: nothing is created when one cannot take it). An interrupted
 * creation is named at every command's start and taken up by `--finish [NAME]`, by running the
 * same command again, or given up by `--undo [NAME]` (files put back, the key deleted unless a
 * command took it). A destination that fails leaves the operation recorded, the key printed only
 * to a terminal, and the two ways out named. The machine runs every step (`drive`); this face
 * picks which operation to drive, renders its events through src/operations/wording.ts and asks
 * the user what only the user can say.
 */
import { ensureNameFree } from './nameTaken.js';
import { dataDir } from '../config/paths.js';
import { originOf } from '../credentials/index.js';
import { DeliveryError, samePlaces } from '../delivery/destinations.js';
import { DeliveryRecord } from '../delivery/deliveryRecord.js';
import {
  createCommand,
  createKeyMachine,
  destinationsWords,
  drive,
  drivenNow,
  eventPhrases,
  keyOperationContext,
  OperationDrivers,
  OperationError,
  failpointsFrom,
  unfinishedCreations,
  type CreateOutcome,
  type KeyOperation,
  type KeyOperationContext,
  type OperationEvent,
} from '../operations/index.js';
import { visible } from '../terminal/sanitize.js';
import { printData } from './api-command.js';
import { confirmDestructive, ensureCanConfirm } from './confirm.js';
import { deliveryJson, operationFailure, renderEvent, say, type DeliveryPlan } from './keyDelivery.js';
import { askLine, canPrompt, ExitCode, fail, printLine, warn, type ExitCodeValue, type Session } from './output.js';
import { keyWords } from './wordingKeys.js';

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

/** The operation context of `session`; its events are said on stdout (stderr under `--json`). */
export function operationContext(session: Session, plan: DeliveryPlan, json: boolean): KeyOperationContext {
  return keyOperationContext({
    dataDir: dataDir(plan.env),
    client: session.client,
    delivery: { lockDir: plan.lockDir, env: plan.env, commandTimeoutMs: plan.commandTimeoutMs, secrets: [session.credential.token] },
    deliveries: new DeliveryRecord(dataDir(plan.env)),
    profile: session.profile.name,
    origin: originOf(session.profile.baseUrl),
    drivers: new OperationDrivers(dataDir(plan.env)),
    failpoints: failpointsFrom(plan.env),
    emit: (event) => renderEvent(event, json),
  });
}

/** The `keys create` words for an operation: `the credit key "web" (id 12)`. */
const label = (kind: KeyOperation['kind'], name: string, id: string | undefined) =>
  `${kind === 'pledge' ? 'the subscription key' : 'the credit key'} "${visible(name)}" (id ${visible(id ?? 'unknown')})`;

/** Runs `keys create` in `session` (see the module comment). */
export async function runKeysCreate(session: Session, request: CreateRequest): Promise<ExitCodeValue> {
  const json = request.json === true;
  const ctx = operationContext(session, request.plan, json);
  const dir = dataDir(request.plan.env);
  const scope = { profile: ctx.profile, origin: ctx.origin };
  const kind = request.subscriptionId === undefined ? 'create' : 'pledge';
  try {
    // Those another keydeck drives now are in progress, not interrupted: left to it.
    const recorded = await unfinishedCreations(dir, scope, { all: true });
    const pending: KeyOperation[] = [];
    for (const o of recorded) if (!(await drivenNow(dir, o.id, ctx.drivers))) pending.push(o);
    const busy = recorded.find((o) => !pending.includes(o) && (o.name === request.name || o.key.id === request.name));
    if (busy) fail(ExitCode.refused, keyWords.operationInProgress, { name: busy.name });
    if (request.finish || request.undo) {
      const matching = request.name === undefined ? pending : pending.filter((o) => o.name === request.name || o.key.id === request.name);
      if (matching.length === 0) {
        say(request.name === undefined ? 'No unfinished key creation for this profile and service.' : `No unfinished creation of the key "${visible(request.name)}".`, json);
        return ExitCode.ok;
      }
      if (matching.length > 1) fail(ExitCode.usage, keyWords.invalidRequestKeyCreationsAre, { names: matching.map((o) => o.name), undo: request.undo });
      const op = matching[0]!;
      if (request.undo) {
        ensureCanConfirm({ yes: request.yes, command: createCommand(op.name, 'undo') });
        await confirmDestructive({ yes: request.yes, question: `Undo the creation of "${op.name}": put back what its destinations held and delete the key?`, command: createCommand(op.name, 'undo') });
        await drive(createKeyMachine, ctx, { op }, 'undo', {});
        return ExitCode.ok;
      }
      return await settle(ctx, await takeUp(ctx, op, json), request);
    }
    const same = pending.find((o) => o.name === request.name && o.subscriptionId === request.subscriptionId);
    if (same) {
      if (!samePlaces(same.destinations, request.plan.destinations)) {
        fail(ExitCode.refused, keyWords.operationPending, { name: same.name });
      }
      say(`The creation of "${visible(same.name)}" was interrupted earlier: taking it up.`, json);
      return await settle(ctx, await takeUp(ctx, same, json), request);
    }
    const name = request.name!;
    let outcome: CreateOutcome;
    try {
      outcome = await drive(createKeyMachine, ctx, { plan: { kind, name, subscriptionId: request.subscriptionId, destinations: request.plan.destinations } }, 'run', {
        // A new creation (not one taken up): a name another key has is said and asked about before anything is created.
        confirmName: () => ensureNameFree(() => session.client.keys.list(), name, { action: 'create', ...(request.allowDuplicateName && { allowDuplicate: true }) }),
      });
    } catch (err) {
      if (err instanceof DeliveryError) fail(ExitCode.refused, `${err.code}: ${err.message.replace(/[.;]? nothing was created$/, '')}; no key was created`);
      await mayExist(ctx, name, request.subscriptionId, err);
      throw err;
    }
    return await settle(ctx, outcome, request);
  } catch (err) {
    return operationFailure(err);
  } finally {
    // What is not over is interrupted from now on (another keydeck may take it up).
    ctx.drivers?.releaseAll();
  }
}

/** Takes up `op` (`--finish`, or a rerun). */
async function takeUp(ctx: KeyOperationContext, op: KeyOperation, json: boolean): Promise<CreateOutcome> {
  try {
    return await drive(createKeyMachine, ctx, { op }, 'finish', { canShow: json || process.stdout.isTTY === true });
  } catch (err) {
    await mayExist(ctx, op.name, op.subscriptionId, err);
    throw err;
  }
}

/**
 * After a failed create (`err`): when the creation is still recorded, the key may exist; the two
 * ways out are named. Not for one another keydeck drives now: that keydeck says how it ends.
 */
async function mayExist(ctx: KeyOperationContext, name: string, subscriptionId: string | undefined, err: unknown): Promise<void> {
  if (err instanceof OperationError && err.code === 'in_progress') return;
  // An unreadable record says nothing more here: the failure itself is said next.
  if ((await ctx.record.list().catch(() => [])).some((o) => o.name === name && o.subscriptionId === subscriptionId && o.state === 'creating')) {
    warn(
      `the key "${visible(name)}" may have been created: \`${visible(createCommand(name, 'finish'))}\` finds it and puts a new one in its place (its value is not known), \`${visible(createCommand(name, 'undo'))}\` deletes it`,
    );
  }
}

/** What the command says and prints once the machine stopped. */
async function settle(ctx: KeyOperationContext, outcome: CreateOutcome, request: CreateRequest): Promise<ExitCodeValue> {
  const json = request.json === true;
  switch (outcome.kind) {
    case 'already_done':
      // The same command ran to its end before (keydeck killed after, say): nothing to do again.
      say(
        `The key "${visible(request.name!)}" (id ${visible(outcome.id)}) was created and delivered to these destinations already (${outcome.at.slice(0, 16).replace('T', ' ')} UTC): nothing was created. ` +
          `To replace it: keydeck keys rotate ${visible(outcome.id)}`,
        json,
      );
      if (json) printData({ id: outcome.id, name: request.name, deliveries: [] });
      return ExitCode.ok;
    case 'reveal': {
      const { op, key } = outcome;
      if (json) printData({ ...key.answer, apiKey: key.apiKey });
      else {
        printLine(`Created ${label(op.kind, key.name, key.id)}${op.subscriptionId === undefined ? '' : ` for subscription ${visible(op.subscriptionId)}`}.`);
        printLine('');
        printLine(`  ${visible(key.apiKey)}`);
        printLine('');
        printLine('Copy it now: this is the only time the full key is shown; keydeck and the service will not show it again.');
      }
      await drive(createKeyMachine, ctx, { op }, 'run', { shown: true });
      return ExitCode.ok;
    }
    case 'done':
      if (outcome.key !== undefined && outcome.outcomes.length > 0) {
        if (json) printData({ ...outcome.key.answer, deliveries: outcome.outcomes.map(deliveryJson) });
        else printLine('The full key was not shown: it went only where you sent it.');
      }
      return ExitCode.ok;
    case 'undone':
      return ExitCode.ok;
    case 'undelivered':
      return undelivered(ctx, outcome, request);
  }
}

/**
 * A destination failed: the operation stays recorded. The key is printed to a terminal (so it is
 * not lost), undoing is offered there, and the ways out are named.
 * @throws CommandFailure exit 1 `delivery_failed`
 */
async function undelivered(ctx: KeyOperationContext, outcome: Extract<CreateOutcome, { kind: 'undelivered' }>, request: CreateRequest): Promise<never> {
  const { op, key } = outcome;
  const json = request.json === true;
  const what = label(op.kind, key.name, key.id);
  const failed = destinationsWords(outcome.outcomes.filter((o) => !o.ok).map((o) => o.destination));
  const holders = op.destinations.filter((_, i) => op.targets[i]?.state === 'written' || op.targets[i]?.state === 'took');
  const fileHolds = op.destinations.some((d, i) => d.kind === 'file' && op.targets[i]?.state === 'written');
  if (json) printData({ ...key.answer, ...(process.stdout.isTTY && { apiKey: key.apiKey }), deliveries: outcome.outcomes.map(deliveryJson) });
  if (process.stdout.isTTY) {
    printLine('');
    printLine('The key could not be delivered everywhere; so that it is not lost, here it is (the only time it is shown):');
    printLine('');
    printLine(`  ${visible(key.apiKey)}`);
    printLine('');
  } else {
    warn(`the key is not printed: stdout is not a terminal${fileHolds ? '' : ', and it cannot be shown again'}`);
  }
  if (holders.length > 0) warn(`${destinationsWords(holders)} already ${holders.length === 1 ? 'holds' : 'hold'} the new key`);
  if (canPrompt() && !request.yes) {
    const back = holders.length > 0 ? ` ${destinationsWords(holders)} get back what they held before.` : '';
    if (/^y(es)?$/i.test(await askLine(`Delete ${what} now?${back} [y/N] `))) {
      const undoEvents: OperationEvent[] = [];
      await drive(createKeyMachine, { ...ctx, emit: (e) => undoEvents.push(e) }, { op }, 'undo', {});
      const deleted = undoEvents.some((e) => e.type === 'deleted' && e.ok);
      const said = undoEvents.flatMap((e) => (e.type === 'nothing_to_undo' ? [] : eventPhrases(e, 'cli').map((p) => visible(p))));
      fail(ExitCode.refused, keyWords.createDeliveryUndone, { what, failed, deleted, saidCount: said.length, said });
    }
  }
  const finish = fileHolds
    ? 'delivers it again where it failed (its value is read back from the file that holds it)'
    : 'makes a new key and delivers it (this one is deleted once that is done: its value is not kept)';
  fail(ExitCode.refused, keyWords.createDeliveryKept, { what, failed, name: op.name, finish, holdersCount: holders.length });
}
