/**
 * Create and deliver a key: `keys create [--to-file …] [--to-command …]`, the TUI's `n`, and a
 * pledge's key (`keys create --subscription`, ./pledgeKey.ts: the same machine with what differs
 * there), a machine of the kit (./kit.ts) on the record ./keyOperationRecord.ts
 * (`operations.json`), made of the mint-and-deliver sub-machine (./mint.ts). Every destination is
 * checked before anything is created (I5). The command line (`--finish`, `--undo`, a plain rerun
 * of the same command) and the TUI's next start drive it the same way.
 *
 * | state       | what is true                                                                 | finish, rerun, the TUI's next start | undo |
 * |-------------|------------------------------------------------------------------------------|-------------------------------------|------|
 * | (none)      | the destinations were checked; nothing exists yet                            | —                                    | —    |
 * | `creating`  | the create request may have been sent: a key may exist, its value unknown     | keys of that name made since are lost (their value never reached the record): a new key is made, the lost ones deleted once it is delivered | keys of that name made since are deleted |
 * | `created`   | the key exists (id, fingerprint); each destination `pending`, `writing` (its previous content kept beside it), `written`, `running`, `took` or `failed` | the value is read back from a file that holds it (by fingerprint) and delivered to the rest; when none holds it the key is lost: a new one, as above | every file that holds the key gets back what it held before; the key is deleted, unless a command took it (it is kept, and the command named) |
 * | `showing`   | no destination: the key is on the screen (or in `--json`)                     | whether it was seen cannot be known: the key is named with the command that deletes it | the key is deleted |
 * | `delivered` | every destination holds the key, or the user has it                           | where it went remembered (`deliveries.json`), the lost keys deleted, then `ending` | as `created` |
 * | `ending`    | done: the copies of previous content are being removed                         | the copies removed, the entry removed | the same: nothing can be undone once a copy is gone |
 *
 * Crash points: the kit's (`create.<step>`, walked in process) and the process's (src/failpoints:
 * the record's writes `file.renamed:operations.json`, the create request and its answer
 * `request:`/`answered:createCreditKey`, each copy and file write, each command, the delivery
 * record). docs/crash-safety.md has the tables the walks write.
 */
import { checkDestinations, type DeliveryOutcome } from '../delivery/deliver.js';
import { samePlaces, type Destination } from '../delivery/destinations.js';
import { FOUND_BY_NAME_WINDOW_MS, emit, step, type DriveMode, type Machine, type Next } from './kit.js';
import { keyOperationRecord, type KeyOperation, type KeyOperationRecord, type KeyOperationState } from './keyOperationRecord.js';
import { endStep, mintNext, mintUndoNext, listedKeys, MintMemo, type MintConfig, type MintContext, type MintInput, type MintStop, type NewKey } from './mint.js';
import { pledgeBeforeMint, pledgeMine, pledgeMintCheck } from './pledgeKey.js';
import { pendingTargets, valueFromFiles } from './targets.js';

/** What a key creation works with. */
export interface KeyOperationContext extends MintContext {
  readonly client: MintContext['client'] & { readonly billing?: { status(): Promise<unknown> } };
  readonly record: KeyOperationRecord;
  readonly profile: string;
  /** The service origin. */
  readonly origin: string;
}

/** What to create. */
export interface CreatePlan {
  readonly kind: KeyOperation['kind'];
  readonly name: string;
  readonly subscriptionId?: string | undefined;
  readonly destinations: readonly Destination[];
}

/** The face's word to a key creation (./mint.ts MintInput), and its question before a new one is recorded. */
export interface CreateInput extends MintInput {
  /** Asked once the plan is checked, before it is recorded (a name another key has); throws to stop. */
  readonly confirmName?: () => Promise<void>;
}

/** How a drive of a key creation ended. */
export type CreateOutcome =
  | MintStop<KeyOperation>
  /** Over: the key delivered everywhere (or shown and kept), or named when taken up; nothing recorded. */
  | { readonly kind: 'done'; readonly key?: NewKey | undefined; readonly outcomes: readonly DeliveryOutcome[] }
  /** The same command ran to its end before: nothing was created. */
  | { readonly kind: 'already_done'; readonly id: string; readonly at: string }
  /** Undone. */
  | { readonly kind: 'undone' };

/** The sub-machine configured for a credit key or a pledge's key. */
const CONFIG: MintConfig<KeyOperation, KeyOperationContext> = {
  kind: 'create',
  record: (ctx) => ctx.record,
  newKey: (op) => ({ name: op.name, id: op.key.id, fingerprint: op.key.fingerprint }),
  withNewKey: (_op, key) => ({ key: { ...(key.id !== undefined && { id: key.id }), ...(key.fingerprint !== undefined && { fingerprint: key.fingerprint }) } }),
  mint: (ctx, op) =>
    op.kind === 'pledge' && op.subscriptionId !== undefined
      ? ctx.client.keys.createSubscription({ name: op.name, subscriptionId: op.subscriptionId })
      : ctx.client.keys.createCredit({ name: op.name }),
  mine: (op, k) => (op.kind === 'pledge' ? pledgeMine(op, k) : k.name === op.name),
  mintedState: (op): KeyOperationState => (op.destinations.length > 0 ? 'created' : 'showing'),
  beforeMint: (ctx, op, memo) => (op.kind === 'pledge' ? pledgeBeforeMint(ctx, op, memo) : Promise.resolve(undefined)),
};

/**
 * The key a finished run of the same command made (a rerun after keydeck was killed once the
 * operation had ended: its record is gone, the world is not): an active key of that name that
 * keydeck delivered to exactly these destinations, which a file destination holds (by
 * fingerprint) or, without a file, that was delivered less than the found-by-name window ago.
 * Undefined when there is none (then a key is made). Never throws.
 */
async function alreadyDone(ctx: KeyOperationContext, plan: CreatePlan): Promise<{ id: string; at: string } | undefined> {
  if (!ctx.deliveries || plan.destinations.length === 0) return undefined;
  try {
    for (const k of (await ctx.client.keys.list()).filter((k) => k.name === plan.name && k.isActive)) {
      const entry = await ctx.deliveries.entry({ profile: ctx.profile, origin: ctx.origin, keyId: k.id });
      if (!entry || !samePlaces(entry.destinations, plan.destinations)) continue;
      const file = plan.destinations.find((d) => d.kind === 'file');
      const held =
        file !== undefined
          ? entry.fingerprint !== undefined && (await valueFromFiles([file], [{ state: 'written' }], entry.fingerprint)) !== undefined
          : Date.now() - Date.parse(entry.at) < FOUND_BY_NAME_WINDOW_MS;
      if (held) return { id: k.id, at: entry.at };
    }
  } catch {
    // Unknown: the command goes on and makes a key.
  }
  return undefined;
}

/** The machine (see the module comment). */
export const createKeyMachine: Machine<KeyOperation, KeyOperationContext, CreatePlan, CreateInput, MintMemo<CreateInput>, CreateOutcome> = {
  name: 'create',
  kind: 'create',
  memo: (mode: DriveMode, input: CreateInput) => new MintMemo(mode, input),
  label: (op) => op.name,

  async begin(ctx, plan, memo) {
    const done = await alreadyDone(ctx, plan);
    if (done) return { stop: { kind: 'already_done', ...done } };
    if (plan.kind === 'pledge' && plan.subscriptionId !== undefined) await pledgeMintCheck(ctx, plan.subscriptionId, []);
    await memo.input.confirmName?.();
    await checkDestinations(plan.destinations, { ...(ctx.delivery.env && { env: ctx.delivery.env }) });
    const op = await ctx.record.start({
      kind: plan.kind,
      profile: ctx.profile,
      origin: ctx.origin,
      name: plan.name,
      ...(plan.subscriptionId !== undefined && { subscriptionId: plan.subscriptionId }),
      key: {},
      lost: [],
      destinations: plan.destinations.map((d) => (d.kind === 'command' ? { ...d, argv: [...d.argv] } : { ...d })),
      targets: pendingTargets(plan.destinations),
    });
    await ctx.drivers?.take(op.id);
    return op;
  },

  async next(ctx, op, memo): Promise<Next<KeyOperation, CreateOutcome>> {
    const done = (): CreateOutcome => ({ kind: 'done', key: memo.key, outcomes: [...memo.outcomes.values()] });
    if (op.state === 'ending') {
      // Its copies of previous content are being removed: nothing can be undone, it ends.
      if (memo.mode === 'undo' && !memo.done.has('complete')) {
        memo.done.add('complete');
        emit(ctx, { type: 'complete', kind: op.kind, name: op.name });
      }
      return { step: endStep(ctx.record, op, memo, done) };
    }
    if (memo.mode === 'undo') {
      return mintUndoNext(CONFIG, ctx, op, memo, () => {
        if (memo.emitted === 0) emit(ctx, { type: 'nothing_to_undo', name: op.name });
        return { kind: 'undone' } as const;
      });
    }
    if (op.state === 'showing') {
      if (!memo.input.shown) {
        if (memo.key) return { stop: { kind: 'reveal', op, key: memo.key } };
        // Taken up: whether it was seen cannot be known; it is named, with how to delete it.
        const listed = op.key.id !== undefined && (await listedKeys(ctx, memo)).some((k) => k.id === op.key.id);
        emit(ctx, { type: 'shown_unknown', key: { id: op.key.id, name: op.name }, listed });
      }
      return { step: step('delivered', undefined, () => ctx.record.update(op.id, { state: 'delivered' })) };
    }
    const mint = await mintNext(CONFIG, ctx, op, memo);
    if (mint) return 'stop' in mint ? { stop: mint.stop } : mint;
    return { step: endStep(ctx.record, op, memo, done) };
  },
};

/** The context of a key creation in `dataDir` (the record there). */
export function keyOperationContext(fields: Omit<KeyOperationContext, 'record'> & { readonly dataDir: string }): KeyOperationContext {
  const { dataDir, ...rest } = fields;
  return { ...rest, record: keyOperationRecord(dataDir) };
}
