/**
 * The confirmation before closing an unfinished top-up for good (`x` in the walk-through): the
 * journal entry is marked abandoned and keydeck stops watching for it. Cancel is focused first.
 */
import { ConfirmDialog } from '../../components/ConfirmDialog.js';
import { formatUsd } from '../../format.js';

/** Props of {@link CloseTopUpDialog}. */
export interface CloseTopUpDialogProps {
  /** The method in words: "USDC", "card checkout", "card direct". */
  readonly methodLabel: string;
  /** The top-up's amount in USD. */
  readonly amount: number;
  /** Why closing is safe only sometimes, in one or two sentences for this method. */
  readonly warning: string;
  readonly onConfirm: () => void;
  readonly onCancel: () => void;
  readonly columns: number;
  readonly rows: number;
}

/** See the module comment. */
export function CloseTopUpDialog(props: CloseTopUpDialogProps) {
  return (
    <ConfirmDialog
      title={`Close the ${props.methodLabel} top-up of ${formatUsd(props.amount)}?`}
      message={[props.warning]}
      actionLabel="Close it"
      dangerous
      onConfirm={props.onConfirm}
      onCancel={props.onCancel}
      columns={props.columns}
      rows={props.rows}
    />
  );
}

/** The warning of a card top-up (checkout or direct): the service credits a late payment anyway. */
export const CARD_CLOSE_WARNING =
  'Only if you will not pay it. A payment made later is still credited by the service, but keydeck stops watching for it.';
