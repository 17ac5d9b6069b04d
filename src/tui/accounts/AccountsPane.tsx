/**
 * The Accounts pane (`0`): every profile's account at a glance (./AccountsView.tsx), most urgent
 * first, each read by its own account watcher on its own schedule (src/watcher/profileWatchers.ts),
 * so a slow or stopped service shows "down" on its own row while the others show figures. `j`/`k`
 * move, enter opens the selected profile's account in the other panes (the same one: its Keys
 * pane; one with no stored credential or no address is said on the status line instead), `r`
 * reads every balance now.
 */
import { Box, Text } from 'ink';
import { useEffect, useState } from 'react';
import { useKeymap } from '../contexts/KeymapContext.js';
import { useClock } from '../contexts/ServicesContext.js';
import { useFlash } from '../contexts/StatusContext.js';
import type { PaneProps } from '../panes/registry.js';
import { theme } from '../theme.js';
import { truncateTo } from '../format.js';
import { visible } from '../../terminal/sanitize.js';
import type { ProfileWatch } from '../../watcher/profileWatchers.js';
import { useAccounts } from './AccountsContext.js';
import { AccountsView } from './AccountsView.js';
import { useAccountRows } from './useAccountRows.js';

const NO_WATCHES: readonly ProfileWatch[] = [];

/** See the module comment. */
export function AccountsPane({ size, active, goTo }: PaneProps) {
  const accounts = useAccounts();
  const clock = useClock();
  const rows = useAccountRows(accounts?.watches ?? NO_WATCHES, clock, active);
  // The other accounts are read from the first time the pane is shown on.
  const want = accounts?.want;
  useEffect(() => {
    if (active) want?.();
  }, [active, want]);
  const [selected, setSelected] = useState<string | undefined>(undefined);
  const index = Math.max(
    0,
    rows.findIndex((r) => r.name === (selected ?? accounts?.current)),
  );
  const chosen = rows[index]?.name;
  const flash = useFlash();
  /** Opens `name` in the other panes; a profile with no credential or no address is said, not opened (its setup has no way back here). */
  const open = (name: string) => {
    const row = rows.find((r) => r.name === name);
    if (row?.state === 'no_key') return flash(`profile "${name}" has no stored credential: store one with keydeck --profile ${name} auth login, or start keydeck --profile ${name}`, 'warning', 10_000);
    if (row?.state === 'no_address') return flash(`profile "${name}" has no service address: start keydeck --profile ${name} to set it up`, 'warning', 10_000);
    if (name === accounts?.current) goTo('keys');
    else accounts?.open(name);
  };
  const move = (delta: number) => {
    const next = rows[Math.min(rows.length - 1, Math.max(0, index + delta))];
    if (next) setSelected(next.name);
  };
  useKeymap(
    'accounts',
    {
      'accounts.down': () => move(1),
      'accounts.up': () => move(-1),
      'accounts.open': accounts && chosen !== undefined ? () => open(chosen) : undefined,
      'accounts.refresh': accounts ? () => accounts.watches.forEach((w) => w.watcher.refresh()) : undefined,
    },
    { active },
  );
  if (!accounts) {
    return <Text color={theme.muted}>{truncateTo('no other profile is watched here', size.columns)}</Text>;
  }
  return (
    <Box flexDirection="column" width={size.columns} height={size.rows}>
      {accounts.problem !== undefined ? (
        <Text color={theme.warning} wrap="truncate">
          {truncateTo(visible(accounts.problem), size.columns)}
        </Text>
      ) : null}
      <AccountsView rows={rows} selected={chosen} current={accounts.current} columns={size.columns} height={size.rows - (accounts.problem !== undefined ? 1 : 0)} now={clock()} />
    </Box>
  );
}
