/**
 * Step 3, card checkout (§2.4): the hosted page's `sessionUrl`, `o` opens it in the browser,
 * `c` copies it; then the balance is watched until `totalTopUp` has risen by the amount. esc
 * leaves the walk-through while the wait goes on (enter on the Billing pane resumes it); `x`
 * closes a top-up that will not be paid.
 */
import { Text } from 'ink';
import type { JournalEntry } from '../../../billing/journal.js';
import { Dialog } from '../../components/Dialog.js';
import { useKeymap } from '../../contexts/KeymapContext.js';
import { formatUsd } from '../../format.js';
import { theme } from '../../theme.js';
import { visible } from '../../../terminal/sanitize.js';
import { CARD_WATCH_INTERVAL_MS } from './useTopUpFlow.js';
import { FlowMessageView } from './FlowMessageView.js';
import type { FlowMessage } from './flowState.js';

/** Props of {@link CardStep}. */
export interface CardStepProps {
  readonly entry: JournalEntry;
  readonly message?: FlowMessage | undefined;
  readonly onOpen: () => void;
  readonly onCopy: () => void;
  readonly onAbandon: () => void;
  readonly onLeave: () => void;
  readonly columns: number;
  readonly rows: number;
}

/** See the module comment. */
export function CardStep({ entry, message, onOpen, onCopy, onAbandon, onLeave, columns, rows }: CardStepProps) {
  const url = entry.sessionUrl;
  useKeymap(
    'topup',
    { 'topup.open': url ? onOpen : undefined, 'topup.copyUrl': url ? onCopy : undefined, 'topup.abandon': onAbandon, 'topup.leave': onLeave },
    { modal: true },
  );
  const target = entry.baselineTotalTopUp !== undefined ? entry.baselineTotalTopUp + entry.amount : undefined;
  return (
    <Dialog title={`Top up · card checkout · ${formatUsd(entry.amount)}`} columns={columns} rows={rows}>
      <Text wrap="wrap">Pay on the card processor’s checkout page:</Text>
      <Text color={theme.accent} wrap="wrap">
        {url !== undefined ? visible(url) : `(session ${visible(entry.sessionId ?? '?')}: no page address was given)`}
      </Text>
      <Text wrap="wrap">o opens it in the browser · c copies the link</Text>
      <Text> </Text>
      <Text wrap="wrap">
        {`… waiting for the payment: the balance is read every ${CARD_WATCH_INTERVAL_MS / 1000} s`}
        {target !== undefined ? ` until the total of top-ups reaches ${formatUsd(target)}.` : '.'}
      </Text>
      <FlowMessageView message={message} />
      <Text color={theme.muted} wrap="wrap">
        esc leaves (the wait goes on; enter on the Billing pane resumes) · x closes it if you will not pay
      </Text>
    </Dialog>
  );
}
