/**
 * The confirmation before closing an unfinished top-up for good (`x` in the walk-through): the
 * journal entry is marked abandoned and keydeck stops watching for it. Cancel is focused first.
 * The warning depends on the method: a card payment made later is still credited by the
 * service; USDC already sent must be verified, never closed.
 */
import type { JournalEntry } from '../../../billing/journal.js';
import { methodLabel } from '../../../billing/journal.js';
import { ConfirmDialog } from '../../components/ConfirmDialog.js';
import { formatUsd } from '../../format.js';

/** Props of {@link CloseTopUpDialog}. */
export interface CloseTopUpDialogProps {
  /** The top-up to close (its method and amount, USD). */
  readonly entry: Pick<JournalEntry, 'method' | 'amount'>;
  readonly onConfirm: () => void;
  readonly onCancel: () => void;
  readonly columns: number;
  readonly rows: number;
}

/** Why closing is safe only sometimes, by method. */
function warningOf(method: JournalEntry['method']): string {
  return method === 'usdc'
    ? 'Only if you sent nothing to this address. If you already sent USDC, keep it open and verify the transaction: the journal is what lets you finish it.'
    : 'Only if you will not pay it. A payment made later is still credited by the service, but keydeck stops watching for it.';
}

/** See the module comment. */
export function CloseTopUpDialog({ entry, onConfirm, onCancel, columns, rows }: CloseTopUpDialogProps) {
  return (
    <ConfirmDialog
      title={`Close the ${methodLabel(entry.method)} top-up of ${formatUsd(entry.amount)}?`}
      message={[warningOf(entry.method)]}
      actionLabel="Close it"
      dangerous
      onConfirm={onConfirm}
      onCancel={onCancel}
      columns={columns}
      rows={rows}
    />
  );
}
