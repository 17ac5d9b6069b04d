/**
 * Step 3, card direct: the card on file is charged; the service's answer (not shown in the
 * spec) is displayed as it came. When that answer does not say the charge was credited, the
 * top-up stays `verifying` until the service's billing status names its payment; a rise of the
 * total of top-ups that nothing names is shown as what it is.
 */
import { Text } from 'ink';
import { unexplainedRise } from '../../../billing/evidence.js';
import type { JournalEntry } from '../../../billing/journal.js';
import { Dialog } from '../../components/Dialog.js';
import { useKeymap } from '../../contexts/KeymapContext.js';
import { theme } from '../../theme.js';
import { StatusTree, treeLines } from '../../panes/billing/StatusTree.js';
import { FlowMessageView } from './FlowMessageView.js';
import type { FlowMessage } from './flowState.js';
import { formatUsd } from '../../../api/money.js';

/** Props of {@link DirectStep}. */
export interface DirectStepProps {
  readonly entry: JournalEntry;
  /** The service's answer, when it arrived in this run of keydeck. */
  readonly data?: unknown;
  readonly message?: FlowMessage | undefined;
  /** `totalTopUp` polled now (USD). */
  readonly totalTopUp?: number | undefined;
  readonly onAbandon: () => void;
  readonly onLeave: () => void;
  readonly columns: number;
  readonly rows: number;
}

/** See the module comment. */
export function DirectStep({ entry, data, message, totalTopUp, onAbandon, onLeave, columns, rows }: DirectStepProps) {
  useKeymap('topup', { 'topup.abandon': onAbandon, 'topup.leave': onLeave }, { modal: true });
  const lines = data === undefined ? [] : treeLines(data);
  const rise = unexplainedRise('card_direct', entry.baselineTotalTopUp, totalTopUp);
  return (
    <Dialog title={`Top up · 3/3 pay · card direct · ${formatUsd(entry.amount)}`} columns={columns} rows={rows}>
      <Text wrap="wrap">The card on file was charged. The service answered:</Text>
      {data === undefined ? (
        <Text color={theme.muted}>(the answer is not kept after a restart)</Text>
      ) : (
        <StatusTree lines={lines} offset={0} rows={Math.max(1, Math.min(lines.length, rows - 8))} columns={Math.max(10, columns - 6)} />
      )}
      <Text wrap="wrap">{`… waiting for the service to name this charge credited${entry.paymentId ? ` (payment ${entry.paymentId})` : ''}.`}</Text>
      {rise !== undefined ? (
        <Text color={theme.warning} wrap="wrap">
          {rise}
        </Text>
      ) : null}
      <FlowMessageView message={message} />
      <Text color={theme.muted}>esc leaves (the wait goes on) · x closes it</Text>
    </Dialog>
  );
}
