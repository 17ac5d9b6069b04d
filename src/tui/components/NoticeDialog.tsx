/** A dialog that only informs (e.g. "a top-up is needed first"); enter or esc closes it. */
import { Text } from 'ink';
import { useKeymap } from '../contexts/KeymapContext.js';
import { Dialog } from './Dialog.js';

/** Props of {@link NoticeDialog}. */
export interface NoticeDialogProps {
  readonly title: string;
  readonly message: readonly string[];
  readonly onClose: () => void;
  /** Optional: `3` closes and opens the Billing pane. */
  readonly onGoToBilling?: () => void;
  readonly columns: number;
  readonly rows: number;
}

/** See the module comment. */
export function NoticeDialog(props: NoticeDialogProps) {
  useKeymap('notice', { 'notice.close': props.onClose, 'notice.billing': props.onGoToBilling }, { modal: true });
  return (
    <Dialog title={props.title} columns={props.columns} rows={props.rows}>
      {props.message.map((line, i) => (
        <Text key={i} wrap="wrap">
          {line}
        </Text>
      ))}
      <Text>{props.onGoToBilling ? '3 opens the Billing pane · enter or esc closes' : 'enter or esc closes'}</Text>
    </Dialog>
  );
}
