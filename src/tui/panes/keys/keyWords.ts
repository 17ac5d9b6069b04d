/**
 * The words of the Keys pane that move with the clock (the rows' status and expiry, a pool key in
 * or out of its blocks, the selected key's details: status, paid time left, last use, the usage
 * figures' age; the order by status; a deactivate or delete dialog's paid time), and when each may
 * next change: the pane is drawn again exactly then (src/tui/hooks/useServiceWords.ts), one commit
 * per change, none while they stay as drawn, nothing while the pane is hidden.
 */
import type { ConsumptionKey } from '../../../api/schemas.js';
import type { Plan } from '../../../api/usageSchemas.js';
import { paidTimeLost } from '../../../api/keyStatus.js';
import type { DataRow } from '../../components/DataTable.js';
import { keyDetailLines, keyDetailsChangeAt, type KeyHours, type KeySpendDetails } from '../../components/KeyDetails.js';
import { earliest } from '../../format.js';
import { useServiceWords } from '../../hooks/useServiceWords.js';
import { budgetCell, budgetLine, type KeyBudgets } from './keyBudget.js';
import type { Pledges } from './keyPledges.js';
import { expiredBy, keyRow, keyRowChangeAt, timeLeftChangeAt } from './keyRows.js';
import type { KeySpendView } from './keySpend.js';

/** How often the words of a guardrail shown are looked at, ms (they are not worked out to their change). */
const BUDGET_LOOK_MS = 30_000;

/** What the Keys pane shows that the clock moves. */
export interface KeysPaneClock {
  /** The pane is shown. */
  readonly shown: boolean;
  /** A dialog in place of the table; a deactivate or delete one says the paid time lost. */
  readonly dialog?: { readonly kind: string; readonly key?: ConsumptionKey } | undefined;
  /** The rows in view. */
  readonly rows: readonly ConsumptionKey[];
  /** The selected key; its details are shown in full unless `compact` (then its limits only). */
  readonly selected: ConsumptionKey | undefined;
  readonly compact: boolean;
  readonly spend: KeySpendView;
  readonly pledges: Pledges;
  readonly budgets: KeyBudgets;
  readonly plans?: readonly Plan[] | undefined;
  /** Cells of a details line. */
  readonly width: number;
  /** Sorted by status: when keys turn expired (keyRows.ts `statusEnds`). */
  readonly statusEnds?: readonly number[] | undefined;
  /** The service time the pane is drawn at (ms). */
  readonly drawnAt: number;
}

/** What the details of a key show beside the key itself (src/tui/components/KeyDetails.tsx). */
interface DetailsParts {
  readonly usage: KeySpendDetails | undefined;
  readonly budget: string | undefined;
  readonly hours: KeyHours | undefined;
}

/** The pane's rows and details at service time `t` (ms), for drawing and for {@link keysPaneWords}. */
export interface KeysPaneAt {
  readonly rowAt: (key: ConsumptionKey, selected: boolean, t: number) => DataRow;
  readonly detailsAt: (key: ConsumptionKey | undefined, t: number) => DetailsParts;
}

/** {@link KeysPaneAt} of `view`. */
function keysPaneAt(view: KeysPaneClock): KeysPaneAt {
  const { spend, pledges, budgets, compact } = view;
  return {
    rowAt: (key, selected, t) => ({
      ...keyRow(key, selected, t, spend.rowOf(key.id), pledges.hoursOf(key, t)),
      ...(budgets.any && { budget: budgetCell(budgets.budgetOf(key, t), budgets.markOf(key)) }),
    }),
    detailsAt: (key, t) => {
      const at = key ? pledges.hoursOf(key, t) : undefined;
      const text = key ? pledges.hoursText(key, t) : undefined;
      const full = key && !compact;
      return {
        usage: full ? spend.detailsOf(key.id, t) : undefined,
        budget: full && budgets.any ? budgetLine(budgets.budgetOf(key, t), budgets.deadlinesOf(key, t), budgets.markOf(key), t, view.width) : undefined,
        hours: at && text ? { at, text } : undefined,
      };
    },
  };
}

/** The paid-time dialog of `dialog`, if it is one. */
function paidDialog(dialog: KeysPaneClock['dialog']): { key: ConsumptionKey; kind: 'deactivate' | 'delete' } | undefined {
  return dialog?.key && (dialog.kind === 'deactivate' || dialog.kind === 'delete') ? { key: dialog.key, kind: dialog.kind } : undefined;
}

/** The words of `view` at `t` that move with the clock, as one text; undefined when none is shown. */
function keysPaneWords(view: KeysPaneClock, at: KeysPaneAt, t: number): string | undefined {
  if (!view.shown) return undefined;
  const paid = paidDialog(view.dialog);
  if (paid) return paidTimeLost(paid.key, paid.kind, t);
  if (view.dialog) return undefined;
  const rows = view.rows.map((key) => {
    const row = at.rowAt(key, false, t);
    return `${row.status}|${row.expires}|${row.budget ?? ''}`;
  });
  const key = view.compact ? undefined : view.selected;
  const d = key && at.detailsAt(key, t);
  const details = key && d ? keyDetailLines(key, t, d.usage, view.plans, d.hours, view.width, d.budget) : [];
  return [...rows, ...details, view.statusEnds ? `${expiredBy(view.statusEnds, t).count}` : ''].join('\n');
}

/** When {@link keysPaneWords}`(view, …, t)` may next say something else, at or after `t`; undefined when it does not move. */
function keysPaneChangeAt(view: KeysPaneClock, t: number): number | undefined {
  if (!view.shown) return undefined;
  const paid = paidDialog(view.dialog);
  if (paid) return timeLeftChangeAt(paid.key, t);
  if (view.dialog) return undefined;
  const key = view.compact ? undefined : view.selected;
  return earliest(
    ...view.rows.map((row) => keyRowChangeAt(row, t, view.pledges.hoursOf(row, t))),
    key && keyDetailsChangeAt(key, t, view.pledges.hoursOf(key, t)),
    key && view.spend.statusChangeAt(t),
    view.statusEnds && expiredBy(view.statusEnds, t).next,
    // A guardrail's words (its period, deadlines, next read) are looked at each half minute.
    view.budgets.any ? t + BUDGET_LOOK_MS : undefined,
  );
}

/** The pane's rows and details at a time, the pane drawn again when the words of `view` change (see the module comment). */
export function useKeysPaneClock(view: KeysPaneClock): KeysPaneAt {
  const at = keysPaneAt(view);
  useServiceWords(
    (t) => keysPaneWords(view, at, t),
    (t) => keysPaneChangeAt(view, t),
    view.drawnAt,
  );
  return at;
}
