/**
 * Step 3, card direct: the card on file is charged; the service's answer (not shown in the
 * spec) is displayed as it came, and the balance is watched until `totalTopUp` has risen by
 * the amount.
 */
import { Text } from 'ink';
import type { JournalEntry } from '../../../billing/journal.js';
import { Dialog } from '../../components/Dialog.js';
import { useKeymap } from '../../contexts/KeymapContext.js';
import { formatUsd } from '../../format.js';
import { theme } from '../../theme.js';
import { StatusTree, treeLines } from '../../panes/billing/StatusTree.js';
import { FlowMessageView } from './FlowMessageView.js';
import type { FlowMessage } from './flowState.js';

/** Props of {@link DirectStep}. */
export interface DirectStepProps {
  readonly entry: JournalEntry;
  /** The service's answer, when it arrived in this run of keydeck. */
  readonly data?: unknown;
  readonly message?: FlowMessage | undefined;
  readonly onAbandon: () => void;
  readonly onLeave: () => void;
  readonly columns: number;
  readonly rows: number;
}

/** See the module comment. */
export function DirectStep({ entry, data, message, onAbandon, onLeave, columns, rows }: DirectStepProps) {
  useKeymap('topup', { 'topup.abandon': onAbandon, 'topup.leave': onLeave }, { modal: true });
  const lines = data === undefined ? [] : treeLines(data);
  return (
    <Dialog title={`Top up · card direct · ${formatUsd(entry.amount)}`} columns={columns} rows={rows}>
      <Text wrap="wrap">The card on file was charged. The service answered:</Text>
      {data === undefined ? (
        <Text color={theme.muted}>(the answer is not kept after a restart)</Text>
      ) : (
        <StatusTree lines={lines} offset={0} rows={Math.max(1, Math.min(lines.length, rows - 8))} columns={Math.max(10, columns - 6)} />
      )}
      <Text wrap="wrap">… waiting for the balance to rise by the amount.</Text>
      <FlowMessageView message={message} />
      <Text color={theme.muted}>esc leaves (the wait goes on) · x closes it</Text>
    </Dialog>
  );
}
