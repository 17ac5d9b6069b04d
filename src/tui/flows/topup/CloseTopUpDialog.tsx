/**
 * The confirmation before closing an unfinished top-up for good (`x` in the walk-through): the
 * record is marked closed and keydeck stops watching for it. Cancel is focused first.
 * The warning depends on the method: a card payment made later is still credited by the
 * service; USDC already sent must be verified, never closed; a verification whose outcome is
 * unknown ("verifying") should be verified again first.
 */
import type { JournalEntry } from '../../../billing/journal.js';
import { methodLabel } from '../../../billing/journal.js';
import { ConfirmDialog } from '../../components/ConfirmDialog.js';
import { formatUsd } from '../../../api/money.js';

/** Props of {@link CloseTopUpDialog}. */
export interface CloseTopUpDialogProps {
  /** The top-up to close (its method, amount in USD, and state). */
  readonly entry: Pick<JournalEntry, 'method' | 'amount'> & Partial<Pick<JournalEntry, 'state'>>;
  readonly onConfirm: () => void;
  readonly onCancel: () => void;
  readonly columns: number;
  readonly rows: number;
}

/** Why closing is safe only sometimes, by method and state. */
function warningOf(method: JournalEntry['method'], state: JournalEntry['state'] | undefined): string {
  if (state === 'verifying') {
    return 'It is being verified and the outcome is unknown: it may already be credited. Verify it again first (keydeck recognises its own earlier verification); close it only if you are sure.';
  }
  return method === 'usdc'
    ? 'Only if you sent nothing to this address. If you already sent USDC, keep it open and verify the transaction: the record is what lets you finish it.'
    : 'Only if you will not pay it. A payment made later is still credited by the service, but keydeck stops watching for it.';
}

/** See the module comment. */
export function CloseTopUpDialog({ entry, onConfirm, onCancel, columns, rows }: CloseTopUpDialogProps) {
  return (
    <ConfirmDialog
      title={`Close the ${methodLabel(entry.method)} top-up of ${formatUsd(entry.amount)}?`}
      message={[warningOf(entry.method, entry.state)]}
      actionLabel="Close it"
      dangerous
      onConfirm={onConfirm}
      onCancel={onCancel}
      columns={columns}
      rows={rows}
    />
  );
}
