/**
 * Delivering one key to an operation's destinations with a record of each step (issue 42), shared
 * by every operation that creates a key (./createKey.ts, ./pledgeKey.ts, ./rotateKey.ts). Each
 * destination's state (src/delivery/recordSchemas.ts `TargetSchema`) is saved before and after its
 * effect: a file's previous content is copied beside it (src/delivery/fileUndo.ts) before the key
 * is written, a command is recorded `running` before it starts. Recovery reads the world first:
 * whether a file holds the key is read from the file (by fingerprint), and the key's value itself
 * is read back from a file that holds it ({@link valueFromFiles}) when the process that had it died.
 *
 * Files go first, then commands (./destinations.ts orders them so): once a command has run, every
 * file holds the key, so its value survives a kill whenever a file destination was named.
 */
import { deliverOne, type DeliveryOptions, type DeliveryOutcome } from '../delivery/deliver.js';
import { describeDestination, type Destination } from '../delivery/destinations.js';
import { fileHolds, planBackup, readFileKey, removeBackup, restoreFile, writeBackup } from '../delivery/fileUndo.js';
import { keyFingerprint } from '../delivery/fingerprint.js';
import { DeliveryError } from '../delivery/destinations.js';
import type { TargetState } from '../delivery/recordSchemas.js';

/** What {@link deliverTargets} needs. */
export interface TargetsIo {
  /** The operation's id (names the copies of previous content). */
  readonly operationId: string;
  readonly destinations: readonly Destination[];
  readonly delivery: DeliveryOptions;
  /** Saves the targets in the operation's record (before and after each effect). */
  save(targets: TargetState[]): Promise<void>;
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

/**
 * Delivers `key` to every destination that does not hold it yet (see the module comment).
 * Never throws for a destination's failure (an outcome says it); throws what `save` throws.
 * @returns the targets as saved last, and one outcome per destination
 */
export async function deliverTargets(io: TargetsIo, key: string, targets: readonly TargetState[]): Promise<{ targets: TargetState[]; outcomes: DeliveryOutcome[] }> {
  const fingerprint = keyFingerprint(key);
  const now = [...targets];
  const outcomes: DeliveryOutcome[] = [];
  const set = async (i: number, next: TargetState) => {
    now[i] = next;
    await io.save([...now]);
  };
  for (const [i, d] of io.destinations.entries()) {
    const t = now[i] ?? { state: 'pending' };
    if (d.kind === 'file') {
      if (t.state === 'written' && (await fileHolds(d, fingerprint, t.target))) {
        outcomes.push({ destination: d, ok: true, sentence: `${describeDestination(d)} holds it already` });
        continue;
      }
      let before = t.target !== undefined ? { target: t.target, ...(t.backup !== undefined && { backup: t.backup }) } : undefined;
      try {
        before ??= await planBackup(d, io.operationId);
      } catch (err) {
        outcomes.push({ destination: d, ok: false, sentence: err instanceof DeliveryError ? err.message : `${describeDestination(d)}: ${(err as Error).message}` });
        await set(i, { ...t, state: 'failed' });
        continue;
      }
      await set(i, { ...t, state: 'writing', target: before.target, ...(before.backup !== undefined && { backup: before.backup }) });
      try {
        await writeBackup(before, io.delivery.lockDir);
      } catch (err) {
        outcomes.push({ destination: d, ok: false, sentence: `${describeDestination(d)}: its content could not be copied aside first (${(err as NodeJS.ErrnoException).code ?? (err as Error).message}), so the key was not written` });
        await set(i, { ...now[i]!, state: 'failed' });
        continue;
      }
      const outcome = await deliverOne(key, d, io.delivery);
      outcomes.push(outcome);
      await set(i, { ...now[i]!, state: outcome.ok ? 'written' : 'failed' });
      continue;
    }
    if (t.state === 'took') {
      outcomes.push({ destination: d, ok: true, sentence: `${describeDestination(d)} took it already` });
      continue;
    }
    await set(i, { ...t, state: 'running', ran: true });
    const outcome = await deliverOne(key, d, io.delivery);
    outcomes.push(outcome);
    await set(i, { ...now[i]!, state: outcome.ok ? 'took' : 'failed' });
  }
  return { targets: now, outcomes };
}

/** True when every destination holds the key (`written` or `took`). */
export function allDelivered(targets: readonly TargetState[], destinations: readonly Destination[]): boolean {
  return destinations.every((_, i) => targets[i]?.state === 'written' || targets[i]?.state === 'took');
}

/**
 * The key of `fingerprint` as a file destination holds it (the world keeps it where the process
 * that had it died), or undefined when none does.
 */
export async function valueFromFiles(destinations: readonly Destination[], targets: readonly TargetState[], fingerprint: string | undefined): Promise<string | undefined> {
  if (fingerprint === undefined) return undefined;
  for (const [i, d] of destinations.entries()) {
    if (d.kind !== 'file') continue;
    const value = await readFileKey(d, targets[i]?.target);
    if (value !== undefined && keyFingerprint(value) === fingerprint) return value;
  }
  return undefined;
}

/** What {@link undoTargets} did. */
export interface TargetsUndo {
  /** Sentences for the user, one per destination touched. */
  readonly said: string[];
  /** The destinations that may still hold the key (a command that ran, a file that could not be put back). */
  readonly holders: Destination[];
  /** The copies of previous content still kept (their file could not be put back). */
  readonly keptBackups: string[];
}

/**
 * Undoes the deliveries of the key of `fingerprint`: each file that holds it gets back what it
 * held before (src/delivery/fileUndo.ts `restoreFile`); a command that ran cannot be undone and is
 * named as a holder. Never throws.
 */
export async function undoTargets(destinations: readonly Destination[], targets: readonly TargetState[], fingerprint: string | undefined, lockDir: string): Promise<TargetsUndo> {
  const said: string[] = [];
  const holders: Destination[] = [];
  const keptBackups: string[] = [];
  for (const [i, d] of destinations.entries()) {
    const t = targets[i];
    if (!t) continue;
    if (d.kind === 'command') {
      if (t.state === 'running' || t.state === 'took' || (t.ran === true && t.state !== 'failed')) {
        holders.push(d);
        said.push(`${describeDestination(d)} ${t.state === 'took' ? 'took' : 'may have taken'} the new key, and a command cannot be undone`);
      }
      continue;
    }
    if (t.target === undefined || fingerprint === undefined) continue;
    const restored = await restoreFile(d, { target: t.target, ...(t.backup !== undefined && { backup: t.backup }) }, fingerprint, lockDir);
    if (!restored.sentence.includes('does not hold the new key')) said.push(restored.sentence);
    if (!restored.released) {
      holders.push(d);
      if (t.backup !== undefined) keptBackups.push(t.backup);
    }
  }
  return { said, holders, keptBackups };
}

/** Removes the copies of previous content of `targets`, except `keep`. */
export async function dropBackups(targets: readonly TargetState[], keep: readonly string[] = []): Promise<void> {
  for (const t of targets) if (t.backup !== undefined && !keep.includes(t.backup)) await removeBackup(t.backup);
}
