/**
 * The top-up walk-through's view of the shared top-up record (src/billing/journal.ts): the
 * records of this service and profile, newest first, loaded at mount (the newest
 * unfinished one handed to `onReopen`, after a restart); changes written through (kept in memory
 * and said when the disk refuses); card top-ups credited only when the billing status names them
 * paid (read when `totalTopUp` changes; each one handed to `onCardCredited`); the list read again
 * at a balance read when another keydeck process has written to the record since (its data
 * version), since they share it. A record that cannot be trusted (src/billing/journal.ts, "Fail
 * closed") is kept as one line, `damaged`, that the pane shows and the money actions obey.
 */
import { useCallback, useEffect, useRef, useState, type MutableRefObject } from 'react';
import type { CreditBalance } from '../../../api/schemas.js';
import { isUnfinished, JournalDamagedError, methodLabel, TransitionError, type JournalEntry, type JournalPatch, type JournalScope } from '../../../billing/journal.js';
import { isRecordDamaged } from '../../../config/recordDamage.js';
import { awaitsCardEvidence, checkCardPayments, type TopUpPorts } from '../../../billing/topups.js';
import { useFlash } from '../../contexts/StatusContext.js';
import { usePollSucceeded } from '../../contexts/BalanceContext.js';
import { describeFailure } from '../../errors.js';
import { useTopUpDeps } from './TopUpDeps.js';
import { useChangedState } from '../../hooks/useChangedState.js';
import { formatUsd } from '../../../api/money.js';
import { recordDamagedLine } from '../../../words/index.js';

/** Records by `createdAt` (ISO 8601 UTC text, which sorts as it reads), newest first. */
function byNewest(a: JournalEntry, b: JournalEntry): number {
  return a.createdAt < b.createdAt ? 1 : a.createdAt > b.createdAt ? -1 : 0;
}

/** What {@link useTopUpRecord} gives the walk-through. */
export interface TopUpRecord {
  /** The records of this service and profile, newest first. */
  readonly entries: readonly JournalEntry[];
  /** The same, for callbacks that must see the latest list. */
  readonly entriesRef: MutableRefObject<JournalEntry[]>;
  /** Puts a record into the list (replacing the one with its id). */
  readonly remember: (entry: JournalEntry) => void;
  /** Writes a change; when the disk refuses, keeps it in memory and says so. Resolves with the record as now shown. */
  readonly save: (id: string, patch: JournalPatch) => Promise<JournalEntry | undefined>;
  /**
   * The record cannot be trusted (src/billing/journal.ts, "Fail closed"): its one line (the file,
   * and that no top-up or verify is made). Set at the first read that finds it so, kept until the
   * pane is mounted again.
   */
  readonly damaged?: string;
  /** Says the record cannot be trusted when `error` is that ({@link damaged}); returns whether it was. */
  readonly noteDamage: (error: unknown) => boolean;
}

/** See the module comment. `ports` and `scope` undefined: no session yet (nothing is read). */
export function useTopUpRecord(options: {
  readonly scope: JournalScope | undefined;
  readonly ports: TopUpPorts | undefined;
  readonly credits: CreditBalance | undefined;
  readonly onReopen: (unfinished: JournalEntry) => void;
  readonly onCardCredited: (entry: JournalEntry) => void;
}): TopUpRecord {
  const { scope, ports, credits, onReopen, onCardCredited } = options;
  const deps = useTopUpDeps();
  const flash = useFlash();
  // A state set to itself (an empty journal read at start, when none was held) calls no setState (see useChangedState).
  const [entries, setEntries] = useChangedState<JournalEntry[]>([]);
  const entriesRef = useRef(entries);
  entriesRef.current = entries;
  const mounted = useRef(true);
  useEffect(
    () => () => {
      mounted.current = false;
    },
    [],
  );
  const [damaged, setDamaged] = useState<string | undefined>(undefined);
  const noteDamage = useCallback((error: unknown): boolean => {
    if (!isRecordDamaged(error)) return false;
    const line = error instanceof JournalDamagedError ? recordDamagedLine(error) : describeFailure(error);
    if (mounted.current) setDamaged(line);
    return true;
  }, []);

  /** Puts `entry` into the list (replacing the one with its id), newest first. */
  const remember = useCallback(
    (entry: JournalEntry) => {
      setEntries((list) => [entry, ...list.filter((e) => e.id !== entry.id)].sort(byNewest));
    },
    [setEntries],
  );

  /** Writes a change to the journal; when the disk refuses, keeps it in memory and says so. */
  const save = useCallback(
    async (id: string, patch: JournalPatch): Promise<JournalEntry | undefined> => {
      const current = entriesRef.current.find((e) => e.id === id);
      let next: JournalEntry | undefined;
      try {
        next = await deps.journal.update(id, patch);
      } catch (error) {
        if (error instanceof TransitionError) {
          flash(error.message, 'error');
          return current;
        }
        noteDamage(error);
        flash(`${describeFailure(error)} The top-up is kept in memory only: note its details.`, 'warning');
      }
      next ??= current ? { ...current, ...patch, updatedAt: new Date().toISOString() } : undefined;
      if (next && mounted.current) remember(next);
      return next;
    },
    [deps.journal, flash, remember, noteDamage],
  );

  // The record's data version when it was last read (see the rereading below).
  const seenVersion = useRef<number | undefined>(undefined);

  // Load the journal for this service and reopen the newest unfinished top-up (after a restart).
  useEffect(() => {
    if (!scope) return;
    let cancelled = false;
    seenVersion.current = undefined;
    const load = async () => ({ version: await deps.journal.dataVersion(), list: await deps.journal.recent(scope, 200) });
    load().then(
      ({ version, list }) => {
        if (cancelled) return;
        seenVersion.current = version;
        // An empty record read at start changes nothing shown: no commit (a whole frame for Ink) for it.
        setEntries((held) => (held.length === 0 && list.length === 0 ? held : list));
        const unfinished = list.find((e) => isUnfinished(e.state));
        if (unfinished) onReopen(unfinished);
      },
      (error: unknown) => {
        if (cancelled) return;
        if (!noteDamage(error)) flash(describeFailure(error), 'warning');
      },
    );
    return () => {
      cancelled = true;
    };
  }, [scope, deps.journal, flash, onReopen, noteDamage, setEntries]);

  // Card top-ups: credited only when the billing status names them paid. It is read when
  // totalTopUp changes (a payment raises it) and once at the first balance; one read at a time.
  const checkedTotal = useRef<number | undefined>(undefined);
  const checking = useRef(false);
  useEffect(() => {
    if (!credits || !ports || checking.current || checkedTotal.current === credits.totalTopUp) return;
    const waiting = entriesRef.current.filter(awaitsCardEvidence);
    if (waiting.length === 0) return;
    checking.current = true;
    const total = credits.totalTopUp;
    checkCardPayments(ports, waiting)
      .then(
        (changed) => {
          checkedTotal.current = total;
          if (!mounted.current) return;
          for (const entry of changed) {
            remember(entry);
            flash(`top-up of ${formatUsd(entry.credited ?? entry.amount)} (${methodLabel(entry.method)}) credited: the service’s billing status names it paid`, 'ok');
            onCardCredited(entry);
          }
        },
        () => {
          // An unreadable status claims nothing; the next change of the total reads it again.
          checkedTotal.current = total;
        },
      )
      .finally(() => {
        checking.current = false;
      });
  }, [credits, ports, entries, flash, remember, onCardCredited]);

  // The record is shared with other keydeck processes (a second TUI, `keydeck billing verify` in
  // another shell): at each balance read, it is read again when one of them has written to it
  // since (its data version; this process's own writes are shown already), whether or not the
  // total moved (a refusal does not move it; a verify's outcome is written just after the service
  // has raised it). Per record, the newer copy is kept (a change the disk refused stays shown from
  // memory). One read at a time; an unreadable record leaves the list shown, and the next balance
  // read tries again.
  const rereading = useRef(false);
  // Heard as the poll's event (src/tui/contexts/BalanceContext.tsx `usePollSucceeded`): a poll
  // that finds the same balance re-renders nothing, and still re-reads the record.
  usePollSucceeded(() => {
    if (!scope || seenVersion.current === undefined || rereading.current) return;
    rereading.current = true;
    const reread = async () => {
      const version = await deps.journal.dataVersion();
      if (version === seenVersion.current) return;
      const list = await deps.journal.recent(scope, 200);
      seenVersion.current = version;
      if (!mounted.current) return;
      setEntries((held) => {
        const byId = new Map(list.map((e) => [e.id, e]));
        for (const e of held) {
          const disk = byId.get(e.id);
          if (!disk || disk.updatedAt < e.updatedAt) byId.set(e.id, e);
        }
        return [...byId.values()].sort(byNewest);
      });
    };
    reread()
      .catch((error: unknown) => noteDamage(error))
      .finally(() => {
        rereading.current = false;
      });
  });

  return { entries, entriesRef, remember, save, ...(damaged !== undefined && { damaged }), noteDamage };
}
