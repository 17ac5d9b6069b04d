/**
 * The confirmation before a card-on-file charge (the service's endpoints `method: card_direct`): the card is
 * charged the moment the request is sent, so the method step never sends it on one key. Cancel
 * is focused first; esc cancels (back to the method step).
 */
import { ConfirmDialog } from '../../components/ConfirmDialog.js';
import { formatUsd } from '../../../api/money.js';

/** Props of {@link ConfirmChargeDialog}. */
export interface ConfirmChargeDialogProps {
  /** USD. */
  readonly amount: number;
  readonly onConfirm: () => void;
  readonly onCancel: () => void;
  readonly columns: number;
  readonly rows: number;
}

/** See the module comment. */
export function ConfirmChargeDialog({ amount, onConfirm, onCancel, columns, rows }: ConfirmChargeDialogProps) {
  return (
    <ConfirmDialog
      title={`Charge ${formatUsd(amount)} to the card on file?`}
      message={['The card is charged at once, as soon as you choose Charge; the amount is then added to the credit balance.']}
      actionLabel={`Charge ${formatUsd(amount)}`}
      dangerous
      onConfirm={onConfirm}
      onCancel={onCancel}
      columns={columns}
      rows={rows}
    />
  );
}
