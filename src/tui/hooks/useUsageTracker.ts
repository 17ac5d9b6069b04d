/**
 * Drives a {@link UsageTracker} (src/billing/usageTracker.ts) from a component (issue 22): the
 * tracker's snapshot (its owner has loaded the kept answer: `tracker.load()`), then the schedule
 * asked on every `tick` (each successful balance poll: cheap,
 * a read is spent only when the budget's schedule says so), one refresh at a time; `readNow()`
 * spends a read on demand. Every runaway episode this process starts is sent to `notify` once.
 * Shared by the TUI (contexts/UsageContext.tsx) and `keydeck monitor`.
 */
import { useCallback, useEffect, useRef, useState } from 'react';
import type { UsageSnapshot, UsageTracker, KeyAlert } from '../../billing/usageTracker.js';
import type { NotifyEvent } from '../../terminal/notify.js';
import { isAbortError } from '../errors.js';

/** What {@link useUsageTracker} gives. */
export interface TrackedUsage {
  /** What is known (empty before the tracker exists). */
  readonly snapshot: UsageSnapshot;
  /** A read on demand is under way. */
  readonly reading: boolean;
  /** Spends a read now when one is left; resolves with the snapshot after it. */
  readonly readNow: () => Promise<UsageSnapshot>;
}

const EMPTY: UsageSnapshot = { episodes: new Map() };

/** True when two snapshots would show the same (figures, their time, the budget to the minute, the episodes). */
function same(a: UsageSnapshot, b: UsageSnapshot): boolean {
  const minute = (t: number | undefined) => (t === undefined ? undefined : Math.floor(t / 60_000));
  return (
    a.report === b.report &&
    a.at === b.at &&
    a.budget?.left === b.budget?.left &&
    minute(a.budget?.nextAt) === minute(b.budget?.nextAt) &&
    minute(a.budget?.blockedUntil) === minute(b.budget?.blockedUntil) &&
    a.error === b.error &&
    a.declined === b.declined &&
    [...a.episodes.keys()].join() === [...b.episodes.keys()].join()
  );
}

/** The notification of a key alert. */
export function alertEvent(alert: KeyAlert, name: string): NotifyEvent {
  return {
    kind: 'key_runaway',
    anomaly: alert.judgement.kind,
    keyId: alert.keyId,
    keyName: name,
    usdPerHour: alert.judgement.usdPerHour,
    ...(alert.judgement.baselineUsdPerHour !== undefined && { baselineUsdPerHour: alert.judgement.baselineUsdPerHour }),
  };
}

/**
 * See the module comment. `names` gives a key's display name (the key list's), else the answer's
 * name or its id is used.
 */
export function useUsageTracker(
  tracker: UsageTracker | undefined,
  tick: unknown,
  options: { readonly notify?: ((event: NotifyEvent) => void) | undefined; readonly names?: ((keyId: string) => string | undefined) | undefined } = {},
): TrackedUsage {
  // The snapshot belongs to its tracker: a new tracker (already loaded by its owner) is taken up in
  // the same render, so its figures cost no frame of their own.
  const [state, setState] = useState<{ readonly tracker: UsageTracker | undefined; readonly snapshot: UsageSnapshot }>({ tracker, snapshot: tracker?.snapshot ?? EMPTY });
  if (state.tracker !== tracker) setState({ tracker, snapshot: tracker?.snapshot ?? EMPTY });
  const snapshot = state.tracker === tracker ? state.snapshot : (tracker?.snapshot ?? EMPTY);
  const [reading, setReading] = useState(false);
  const busy = useRef(false);
  const opts = useRef(options);
  opts.current = options;
  const publish = useCallback(
    (next: UsageSnapshot) => setState((prev) => (prev.tracker === tracker && same(prev.snapshot, next) ? prev : { tracker, snapshot: next })),
    [tracker],
  );

  const run = useCallback(
    async (mode: 'auto' | 'demand'): Promise<UsageSnapshot> => {
      if (!tracker || busy.current) return tracker?.snapshot ?? EMPTY;
      busy.current = true;
      try {
        const { snapshot: next, alerts } = await tracker.refresh(mode);
        for (const alert of alerts) opts.current.notify?.(alertEvent(alert, opts.current.names?.(alert.keyId) ?? alert.name ?? alert.keyId));
        publish(next);
        return next;
      } catch (error) {
        const next = { ...tracker.snapshot, error };
        if (!isAbortError(error)) publish(next);
        return next;
      } finally {
        busy.current = false;
      }
    },
    [tracker, publish],
  );

  useEffect(() => {
    if (tracker) void run('auto');
  }, [tracker, tick, run]);

  const readNow = useCallback(async () => {
    setReading(true);
    try {
      return await run('demand');
    } finally {
      setReading(false);
    }
  }, [run]);

  return { snapshot, reading, readNow };
}
