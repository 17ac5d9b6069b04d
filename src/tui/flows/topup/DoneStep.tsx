/** The walk-through's last step: what was credited and the new balance; enter closes. */
import { Text } from 'ink';
import type { JournalEntry } from '../../../billing/journal.js';
import { methodLabel } from '../../../billing/journal.js';
import { Dialog } from '../../components/Dialog.js';
import { useKeymap } from '../../contexts/KeymapContext.js';
import { theme } from '../../theme.js';
import { StatusTree, treeLines } from '../../panes/billing/StatusTree.js';
import { formatUsd } from '../../../api/money.js';

/** Props of {@link DoneStep}. */
export interface DoneStepProps {
  readonly entry: JournalEntry;
  /** A card direct answer (not shown in the spec), displayed as it came. */
  readonly data?: unknown;
  /** The balance polled now (USD), shown when the entry has none. */
  readonly remaining?: number | undefined;
  readonly onClose: () => void;
  readonly columns: number;
  readonly rows: number;
}

/** See the module comment. */
export function DoneStep({ entry, data, remaining, onClose, columns, rows }: DoneStepProps) {
  useKeymap('topup', { 'topup.close': onClose }, { modal: true });
  const balance = entry.balance ?? remaining;
  return (
    <Dialog title={`Top up · credited · ${methodLabel(entry.method)}`} columns={columns} rows={rows}>
      <Text color={theme.ok}>{`✓ Credited ${formatUsd(entry.credited ?? entry.amount)}`}</Text>
      {balance !== undefined ? <Text bold>{`New balance ${formatUsd(balance)}`}</Text> : null}
      {/* The hash whole, on a line of its own (never cut); wrapped only below 66 columns. */}
      {entry.txHash ? <Text color={theme.muted}>transaction</Text> : null}
      {entry.txHash ? (
        <Text color={theme.muted} wrap="wrap">
          {entry.txHash}
        </Text>
      ) : null}
      {entry.evidence ? <Text color={theme.muted} wrap="wrap">{`How keydeck knows: ${entry.evidence}.`}</Text> : null}
      {data !== undefined ? <Text>The service answered:</Text> : null}
      {data !== undefined ? <StatusTree lines={treeLines(data)} offset={0} rows={Math.max(1, rows - 8)} columns={Math.max(10, columns - 6)} /> : null}
      <Text color={theme.muted}>enter closes</Text>
    </Dialog>
  );
}
