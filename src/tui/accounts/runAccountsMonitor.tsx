/**
 * Renders `keydeck monitor --all-profiles` inline (Ink, no alternate screen) until `q` (exit 0),
 * ctrl-c or SIGINT (130) or SIGTERM (143): a title line and the Accounts table (./AccountsView.tsx)
 * of every profile's watcher, most urgent first; `r` reads every balance now.
 */
import { Box, Text, useWindowSize } from 'ink';
import { runInline } from '../runInline.js';
import { KeymapProvider, useKeymap } from '../contexts/KeymapContext.js';
import { truncateTo } from '../format.js';
import { theme } from '../theme.js';
import type { ProfileWatch } from '../../watcher/profileWatchers.js';
import { AccountsView } from './AccountsView.js';
import { useAccountRows } from './useAccountRows.js';

/** Input of {@link runAccountsMonitor}. */
export interface RunAccountsMonitorInput {
  /** One watcher per profile, started by the caller. */
  readonly watches: readonly ProfileWatch[];
  /** The profile the flags chose (marked `•`). */
  readonly current: string;
  /** Streams (tests); default the process's. */
  readonly stdout?: NodeJS.WriteStream;
  readonly stdin?: NodeJS.ReadStream;
}

const now = () => Date.now();

/** The title and the table, as tall as the terminal allows (every profile when they fit). */
export function AccountsMonitorView({
  watches,
  current,
  columns,
  rows,
  onQuit,
}: {
  readonly watches: readonly ProfileWatch[];
  readonly current: string;
  readonly columns: number;
  readonly rows: number;
  readonly onQuit: () => void;
}) {
  const accounts = useAccountRows(watches, now);
  useKeymap('global', { quit: onQuit, refresh: () => watches.forEach((w) => w.watcher.refresh()) });
  const height = Math.max(3, Math.min(rows - 1, accounts.length + accounts.filter((a) => a.state === 'down').length + 1));
  return (
    <Box flexDirection="column" width={columns}>
      <Text color={theme.muted} wrap="truncate">
        {truncateTo(`keydeck monitor · ${watches.length} profiles · r reads now · q quits`, columns)}
      </Text>
      <AccountsView rows={accounts} current={current} columns={columns} height={height + 1} now={now()} />
    </Box>
  );
}

function AccountsMonitorApp({ input, onQuit }: { readonly input: RunAccountsMonitorInput; readonly onQuit: (code: number) => void }) {
  const { columns, rows } = useWindowSize();
  return (
    <KeymapProvider onQuit={() => onQuit(0)} onInterrupt={() => onQuit(130)}>
      <AccountsMonitorView watches={input.watches} current={input.current} columns={columns} rows={rows} onQuit={() => onQuit(0)} />
    </KeymapProvider>
  );
}

/** See the module comment. */
export function runAccountsMonitor(input: RunAccountsMonitorInput): Promise<number> {
  return runInline((quit) => <AccountsMonitorApp input={input} onQuit={quit} />, input);
}
