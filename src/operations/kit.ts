/**
 * The kit every multi-step operation of src/operations is built on: a machine over a record
 * (./record.ts: its states, and the moves between them that every update is checked against) and
 * one loop, {@link drive}, that runs it as a Kubernetes controller reconciles. Each turn the
 * machine observes the world (the service's lists, the stored credential, each destination's
 * content by fingerprint), picks the next step from the recorded state and what it saw, and the
 * loop performs that step's one effect (a request, a file or credential write, a command), then
 * its record write. A machine stops with an outcome for the face: done, or waiting for the face's
 * word (a key shown until the user has it, the old key's fate after a rotation), or a destination
 * that failed. The face then calls {@link drive} again with its answer, or with `undo`.
 *
 * Modes: `run` (a new operation from its plan, or on with the face's answer), `finish` (taken up
 * after an interruption: `--finish`, a rerun, the TUI's next start), `undo`. Taking up an
 * operation locks it for this face (./drivers.ts), and the lock stays held until the drive has
 * settled, whatever the face lets go of meanwhile; one another keydeck drives is refused
 * (`in_progress`).
 *
 * Events and failures are data (./events.ts), worded by the faces through ./wording.ts. The loop's
 * named points (`<machine>.<step>` once a step's effect is done, its result not yet recorded;
 * `<machine>.<step>:recorded` after its record write) are failpoints of src/failpoints, armed by
 * the context's own environment (`failpointsFrom`): the in-process crash walks (test/crash) halt
 * a drive there (an {@link OperationError} `crashed` that no step catches), a process run is
 * killed there; the process's other boundaries (src/failpoints) are those of the SIGKILL walks.
 */
import { KeydeckApiError } from '../api/errors.js';
import { isFailpointHalt, type FailpointHalt, type Failpoints } from '../failpoints/index.js';
import type { OperationDrivers } from './drivers.js';
import type { OperationEvent, OperationFailure, OperationKind } from './events.js';
import { failureSentence } from './wording.js';
import { KeydeckError } from '../errors/index.js';

/** See the module comment. */
export type DriveMode = 'run' | 'finish' | 'undo';

/** A drive's failure: a stable `code` and its facts (`failure`); `message` is the wording table's sentence. */
export class OperationError extends KeydeckError {
  override readonly name = 'OperationError';
  override readonly code: OperationFailure['code'];
  readonly failure: OperationFailure;
  constructor(failure: OperationFailure) {
    super(failure.code, failureSentence(failure));
    this.code = failure.code;
    this.failure = failure;
  }
}

/** What every machine's context has. */
export interface KitContext {
  /** The operations this context drives (locked for it); absent: no locking (a test of one machine alone). */
  readonly drivers?: OperationDrivers | undefined;
  /** Where the events go (the face words them); absent: nowhere. */
  readonly emit?: ((event: OperationEvent) => void) | undefined;
  /** The context's failpoints (src/failpoints `failpointsFrom`: crash walks only). */
  readonly failpoints?: Failpoints | undefined;
}

/** How a step ends the operation: its entry removed from the record, and the machine's outcome. */
export interface Ended<Out> {
  readonly ended: Out;
}

/** One step: at most one effect, then what it records (the operation as recorded, or its end). */
export interface Step<Op> {
  /** The step's name (`mint`, `write:0`, `delete-lost:ID`): a drive does a named step once. */
  readonly name: string;
  /** Its name in the kit's failpoints when not `name` (steps per key id are counted: `delete-lost#2`). */
  readonly point?: string;
  /** The effect; its result goes to `commit`. Absent: a step that only records. */
  readonly effect?: () => Promise<unknown>;
  /** The record write after the effect; absent: the effect changes nothing recorded. */
  readonly commit?: (result: unknown) => Promise<Op | Ended<unknown>>;
}

/**
 * Builds a {@link Step} whose `commit` gets what `effect` returned. A name `kind:ID` (a step per
 * key) is `kind` in the failpoints, so that their names do not depend on the service's ids.
 */
export function step<Op, R>(name: string, effect: (() => Promise<R>) | undefined, commit?: (result: R) => Promise<Op | Ended<unknown>>): Step<Op> {
  const perKey = /^([a-z-]+):(?!\d+$)/.exec(name);
  return { name, ...(perKey && { point: perKey[1]! }), ...(effect && { effect }), ...(commit && { commit: commit as (result: unknown) => Promise<Op | Ended<unknown>> }) };
}

/** What a machine returns each turn: the next step, or its outcome (the drive stops there). */
export type Next<Op, Out> = { readonly step: Step<Op> } | { readonly stop: Out };

/**
 * What one drive remembers between turns (never recorded): the mode, the face's answer, what was
 * done in this drive, and the observations of the world since the last effect.
 */
export class DriveMemo<Input> {
  readonly mode: DriveMode;
  readonly input: Input;
  /** Steps done in this drive, by name (an idempotent effect is not done twice in one drive). */
  readonly done = new Set<string>();
  readonly #seen = new Map<string, Promise<unknown>>();
  constructor(mode: DriveMode, input: Input) {
    this.mode = mode;
    this.input = input;
  }

  /** What `read` observes, read once until the next effect. */
  observe<T>(what: string, read: () => Promise<T>): Promise<T> {
    let seen = this.#seen.get(what) as Promise<T> | undefined;
    if (!seen) {
      seen = read();
      this.#seen.set(what, seen);
      // A failed read is read again next time.
      seen.catch(() => this.#seen.delete(what));
    }
    return seen;
  }

  /** The world moved (an effect was performed): observe it again. */
  forget(): void {
    this.#seen.clear();
  }
}

/** One operation's machine (see the module comment). */
export interface Machine<Op extends { readonly id: string }, Ctx extends KitContext, Plan, Input, Memo extends DriveMemo<Input>, Out> {
  /** Its name in the failpoints (`create`, `rotate`, `mgmt-rotate`). */
  readonly name: string;
  readonly kind: OperationKind;
  /** A fresh memo for one drive. */
  memo(mode: DriveMode, input: Input): Memo;
  /**
   * Checks a plan and records the operation (its first state), or stops at once (nothing to do).
   * @throws OperationError and the checks' errors (nothing recorded then)
   */
  begin(ctx: Ctx, plan: Plan, memo: Memo): Promise<Op | { readonly stop: Out }>;
  /** The operation's name for `in_progress` (`web`). */
  label(op: Op): string;
  /** Observes the world and returns the next step or the outcome. */
  next(ctx: Ctx, op: Op, memo: Memo): Promise<Next<Op, Out>>;
}

/** Where a drive starts: a plan (mode `run`), or a recorded operation. */
export type DriveStart<Op, Plan> = { readonly plan: Plan } | { readonly op: Op };

/**
 * Runs `machine` from `start` in `mode` until it stops (see the module comment). The operation
 * stays locked for `ctx.drivers` until this drive has settled (./drivers.ts `during`).
 * @returns the machine's outcome
 * @throws OperationError (`in_progress` when another keydeck drives the operation; the machine's
 *   own), and what an effect or the record throws (the operation stays recorded as it was)
 */
export async function drive<Op extends { readonly id: string }, Ctx extends KitContext, Plan, Input, Memo extends DriveMemo<Input>, Out>(
  machine: Machine<Op, Ctx, Plan, Input, Memo, Out>,
  ctx: Ctx,
  start: DriveStart<Op, Plan>,
  mode: DriveMode,
  input: Input,
): Promise<Out> {
  const memo = machine.memo(mode, input);
  const point = (name: string) => {
    try {
      ctx.failpoints?.reach(`${machine.name}.${name}`);
    } catch (err) {
      if (isFailpointHalt(err)) throw new OperationError({ code: 'crashed', point: (err as FailpointHalt).point });
      throw err;
    }
  };
  const run = async () => {
    try {
      return await loop(machine, ctx, start, memo, point);
    } catch (err) {
      // Halted at a failpoint: the face ends there as a killed process would, which drops its locks.
      if (err instanceof OperationError && err.code === 'crashed') ctx.drivers?.releaseAll();
      throw err;
    }
  };
  // Under way for the context's drivers from this call until it settles: no let-go drops its lock meanwhile.
  return ctx.drivers ? ctx.drivers.during(run) : run();
}

/** The loop of {@link drive}. */
async function loop<Op extends { readonly id: string }, Ctx extends KitContext, Plan, Input, Memo extends DriveMemo<Input>, Out>(
  machine: Machine<Op, Ctx, Plan, Input, Memo, Out>,
  ctx: Ctx,
  start: DriveStart<Op, Plan>,
  memo: Memo,
  point: (name: string) => void,
): Promise<Out> {
  let op: Op;
  if ('plan' in start) {
    const begun = await machine.begin(ctx, start.plan, memo);
    if ('stop' in begun) return begun.stop;
    op = begun;
    point('begin:recorded');
  } else {
    op = start.op;
    if (ctx.drivers && !(await ctx.drivers.take(op.id))) throw new OperationError({ code: 'in_progress', kind: machine.kind, name: machine.label(op) });
  }
  for (;;) {
    const next = await machine.next(ctx, op, memo);
    if ('stop' in next) return next.stop;
    const { name, effect, commit } = next.step;
    const at = next.step.point ?? name;
    let result: unknown;
    if (effect) {
      result = await effect();
      memo.forget();
      memo.done.add(name);
      point(at);
    }
    if (!commit) continue;
    const after = await commit(result);
    memo.done.add(name);
    if (isEnded(after)) {
      ctx.drivers?.release(op.id, true);
      point(`${at}:recorded`);
      return after.ended as Out;
    }
    const recorded = after !== op;
    op = after;
    // A commit that wrote nothing (the same operation back) is no point of its own.
    if (recorded) point(`${at}:recorded`);
  }
}

function isEnded(value: unknown): value is Ended<unknown> {
  return typeof value === 'object' && value !== null && 'ended' in value;
}

/** How long before an operation's start a key found by name counts as its own, ms (clock skew, slow answers). */
export const FOUND_BY_NAME_WINDOW_MS = 10 * 60_000;

/**
 * The keys of `listed` an operation may have made without learning of them (its creating answer
 * lost): those `mine` accepts that it does not know yet (`known`), made since it started (less
 * {@link FOUND_BY_NAME_WINDOW_MS}), or, when the ids listed just before it were recorded
 * (`before`), not among them.
 */
export function keysMadeBy<K extends { readonly id: string; readonly createdAt?: string | undefined }>(
  listed: readonly K[],
  op: { readonly startedAt: string; readonly before?: readonly string[] | undefined; readonly known: readonly string[] },
  mine: (key: K) => boolean,
): K[] {
  const since = Date.parse(op.startedAt) - FOUND_BY_NAME_WINDOW_MS;
  const fresh = (k: K) => (op.before ? !op.before.includes(k.id) : Date.parse(k.createdAt ?? '') >= since);
  return listed.filter((k) => !op.known.includes(k.id) && fresh(k) && mine(k));
}

/**
 * Deletes a key with `remove`; true when it is gone (also when it already was: `not_found`),
 * false when the service refused or did not answer.
 */
export async function deleteQuietly(remove: () => Promise<unknown>): Promise<boolean> {
  try {
    await remove();
    return true;
  } catch (err) {
    return err instanceof KeydeckApiError && err.code === 'not_found';
  }
}

/** Emits `event` in `ctx` (nothing when nobody listens). */
export function emit(ctx: KitContext, event: OperationEvent): void {
  ctx.emit?.(event);
}
