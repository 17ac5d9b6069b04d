/**
 * The destinations' steps of the mint-and-deliver sub-machine (./mint.ts): each destination's
 * progress (src/delivery/recordSchemas.ts `TargetSchema`) is recorded before and after its
 * effect. A file's previous content is copied beside it (src/delivery/fileUndo.ts) before the key
 * is written, a command is recorded `running` before it starts. Recovery reads the world first:
 * whether a file holds the key is read from the file (by fingerprint), and the key's value itself
 * is read back from a file that holds it ({@link valueFromFiles}) when the process that had it died.
 *
 * | target state | file: next step                                     | command: next step |
 * |--------------|-----------------------------------------------------|--------------------|
 * | `pending`, `failed` | `plan:i`: record `writing` with where its content goes | `start:i`: record `running` |
 * | `writing`    | `keep:i`: copy its content aside (once), then `write:i`: write the key, record `written` or `failed` | — |
 * | `running`    | —                                                   | `run:i`: run it, record `took` or `failed` |
 * | `written`, `took` | nothing (a file is read to check it holds the key) | nothing |
 *
 * Files go first, then commands (src/delivery/destinations.ts orders them so): once a command has
 * run, every file holds the key, so its value survives a kill whenever a file destination was named.
 */
import { deliverOne, type DeliveryOptions, type DeliveryOutcome } from '../delivery/deliver.js';
import { describeDestination, type Destination } from '../delivery/destinations.js';
import { fileHolds, planBackup, readFileKey, removeBackup, restoreFile, writeBackup } from '../delivery/fileUndo.js';
import { keyFingerprint } from '../delivery/fingerprint.js';
import { DeliveryError } from '../delivery/destinations.js';
import type { TargetState } from '../delivery/recordSchemas.js';
import { emit, step, type KitContext, type Step } from './kit.js';

/** What the destinations' steps work with. */
export interface TargetsIo<Op> {
  readonly ctx: KitContext & { readonly delivery: DeliveryOptions };
  /** The operation as recorded (its id names the copies of previous content). */
  readonly op: Op & { readonly id: string; readonly destinations: readonly Destination[]; readonly targets: readonly TargetState[] };
  /** Records `targets` (the operation as recorded after). */
  save(targets: TargetState[]): Promise<Op>;
}

/** What one drive remembers of the destinations (./mint.ts MintMemo). */
export interface TargetsMemo {
  /** Steps done in this drive (./kit.ts DriveMemo). */
  readonly done: ReadonlySet<string>;
  /** The outcome of each destination tried in this drive, by index. */
  readonly outcomes: Map<number, DeliveryOutcome>;
  /** A copy of previous content that could not be made, by index. */
  readonly keepFailed: Map<number, string>;
}

/** Fresh targets for `destinations` (all `pending`). */
export function pendingTargets(destinations: readonly Destination[]): TargetState[] {
  return destinations.map(() => ({ state: 'pending' }));
}

/**
 * Targets for a new key of the same operation (the earlier one's value was lost): every state back
 * to `pending`, keeping where each file's previous content is (it is still what it held before
 * keydeck) and which commands ran.
 */
export function resetTargets(targets: readonly TargetState[]): TargetState[] {
  return targets.map((t) => ({ ...t, state: 'pending' as const }));
}

/** True when every destination holds the key (`written` or `took`). */
export function allDelivered(targets: readonly TargetState[], destinations: readonly Destination[]): boolean {
  return destinations.every((_, i) => targets[i]?.state === 'written' || targets[i]?.state === 'took');
}

/** `targets` with `i` replaced. */
function withTarget(targets: readonly TargetState[], i: number, next: TargetState): TargetState[] {
  const all = [...targets];
  all[i] = next;
  return all;
}

/**
 * The next step that delivers `key` to a destination not tried in this drive, or undefined when
 * each was tried (or holds it already). Never throws for a destination's failure (its outcome
 * says it, and its target is `failed`); throws what the record throws.
 */
export async function nextTargetStep<Op>(io: TargetsIo<Op>, memo: TargetsMemo, key: string): Promise<Step<Op> | undefined> {
  const { op, ctx } = io;
  const fingerprint = keyFingerprint(key);
  const settle = (i: number, outcome: DeliveryOutcome) => {
    memo.outcomes.set(i, outcome);
    emit(ctx, { type: 'delivery', outcome });
  };
  for (const [i, d] of op.destinations.entries()) {
    if (memo.outcomes.has(i)) continue;
    const t = op.targets[i] ?? { state: 'pending' };
    if (d.kind === 'file') {
      if (t.state === 'written' && (await fileHolds(d, fingerprint, t.target))) {
        settle(i, { destination: d, ok: true, sentence: `${describeDestination(d)} holds it already` });
        continue;
      }
      if (t.state !== 'writing') {
        let before = t.target !== undefined ? { target: t.target, ...(t.backup !== undefined && { backup: t.backup }) } : undefined;
        try {
          before ??= await planBackup(d, op.id);
        } catch (err) {
          const sentence = err instanceof DeliveryError ? err.message : `${describeDestination(d)}: ${(err as Error).message}`;
          return step(`plan:${i}`, undefined, async () => {
            settle(i, { destination: d, ok: false, sentence });
            return io.save(withTarget(op.targets, i, { ...t, state: 'failed' }));
          });
        }
        const planned = before;
        return step(`plan:${i}`, undefined, async () =>
          io.save(withTarget(op.targets, i, { ...t, state: 'writing', target: planned.target, ...(planned.backup !== undefined && { backup: planned.backup }) })),
        );
      }
      const failedCopy = memo.keepFailed.get(i);
      if (failedCopy !== undefined) {
        return step(`keep-failed:${i}`, undefined, async () => {
          settle(i, { destination: d, ok: false, sentence: `${describeDestination(d)}: its content could not be copied aside first (${failedCopy}), so the key was not written` });
          return io.save(withTarget(op.targets, i, { ...t, state: 'failed' }));
        });
      }
      if (t.target !== undefined && t.backup !== undefined && !memo.done.has(`keep:${i}`)) {
        const before = { target: t.target, backup: t.backup };
        return step(`keep:${i}`, async () => {
          try {
            await writeBackup(before, ctx.delivery.lockDir);
          } catch (err) {
            memo.keepFailed.set(i, (err as NodeJS.ErrnoException).code ?? (err as Error).message);
          }
        });
      }
      return step(
        `write:${i}`,
        () => deliverOne(key, d, ctx.delivery),
        async (outcome: DeliveryOutcome) => {
          settle(i, outcome);
          return io.save(withTarget(op.targets, i, { ...t, state: outcome.ok ? 'written' : 'failed' }));
        },
      );
    }
    if (t.state === 'took') {
      settle(i, { destination: d, ok: true, sentence: `${describeDestination(d)} took it already` });
      continue;
    }
    if (t.state !== 'running') return step(`start:${i}`, undefined, async () => io.save(withTarget(op.targets, i, { ...t, state: 'running', ran: true })));
    return step(
      `run:${i}`,
      () => deliverOne(key, d, ctx.delivery),
      async (outcome: DeliveryOutcome) => {
        settle(i, outcome);
        return io.save(withTarget(op.targets, i, { ...t, state: outcome.ok ? 'took' : 'failed' }));
      },
    );
  }
  return undefined;
}

/**
 * The key of `fingerprint` as a file destination holds it (the world keeps it where the process
 * that had it died), with that destination; undefined when none does.
 */
export async function valueFromFiles(
  destinations: readonly Destination[],
  targets: readonly TargetState[],
  fingerprint: string | undefined,
): Promise<{ value: string; from: Destination } | undefined> {
  if (fingerprint === undefined) return undefined;
  for (const [i, d] of destinations.entries()) {
    if (d.kind !== 'file') continue;
    const value = await readFileKey(d, targets[i]?.target);
    if (value !== undefined && keyFingerprint(value) === fingerprint) return { value, from: d };
  }
  return undefined;
}

/** What the undo of the destinations found (one drive; ./mint.ts MintMemo). */
export interface TargetsUndoMemo {
  /** Steps done in this drive (./kit.ts DriveMemo). */
  readonly done: Set<string>;
  /** The destinations that may still hold the key (a command that ran, a file that could not be put back). */
  readonly holders: Destination[];
  /** The copies of previous content kept (their file could not be put back). */
  readonly keptBackups: string[];
}

/**
 * The next step that undoes a delivery of the key of `fingerprint`, or undefined once each was
 * undone: each file that holds it gets back what it held before (src/delivery/fileUndo.ts
 * `restoreFile`); a command that ran cannot be undone and is named as a holder. Never throws.
 */
export function nextUndoTargetStep<Op>(
  ctx: KitContext & { readonly delivery: DeliveryOptions },
  op: { readonly destinations: readonly Destination[]; readonly targets: readonly TargetState[] },
  fingerprint: string | undefined,
  memo: TargetsUndoMemo,
): Step<Op> | undefined {
  for (const [i, d] of op.destinations.entries()) {
    const t = op.targets[i];
    if (!t || memo.done.has(`restore:${i}`)) continue;
    if (d.kind === 'command') {
      memo.done.add(`restore:${i}`);
      if (t.state === 'running' || t.state === 'took' || (t.ran === true && t.state !== 'failed')) {
        memo.holders.push(d);
        emit(ctx, { type: 'command_holds', destination: d, took: t.state === 'took' });
      }
      continue;
    }
    if (t.target === undefined || fingerprint === undefined) continue;
    const before = { target: t.target, ...(t.backup !== undefined && { backup: t.backup }) };
    return step(`restore:${i}`, async () => {
      const restored = await restoreFile(d, before, fingerprint, ctx.delivery.lockDir);
      if (restored.held) emit(ctx, { type: 'restored', destination: d, sentence: restored.sentence });
      if (!restored.released) {
        memo.holders.push(d);
        if (t.backup !== undefined) memo.keptBackups.push(t.backup);
      }
    });
  }
  return undefined;
}

/** Removes the copies of previous content of `targets`, except `keep`. */
export async function dropBackups(targets: readonly TargetState[], keep: readonly string[] = []): Promise<void> {
  for (const t of targets) if (t.backup !== undefined && !keep.includes(t.backup)) await removeBackup(t.backup);
}
