/**
 * The main screen: header, pane tabs, banner (when something lasts: offline, key rejected),
 * the active pane (all panes stay mounted, hidden when not active), the status line and the
 * hint bar. Binds the `global` scope: panes (1-3, 0, tab, shift-tab), r, ?, q, and S when the key
 * was rejected.
 */
import { useEffect, useMemo, useState } from 'react';
import { Box } from 'ink';
import { Banner, useBannerRows } from './components/Banner.js';
import { Header } from './components/Header.js';
import { HelpOverlay } from './components/HelpOverlay.js';
import { HintBar } from './components/HintBar.js';
import { PaneTabs } from './components/PaneTabs.js';
import { StatusLine, useStatusRows } from './components/StatusLine.js';
import { useAccountData } from './contexts/AccountDataContext.js';
import { useBalanceRefresh, usePollSucceeded } from './contexts/BalanceContext.js';
import { useHelpPage, useKeymap, useQuit } from './contexts/KeymapContext.js';
import type { Scope } from './keymap.js';
import { useServiceClock, useSession, useSessionActions } from './contexts/SessionContext.js';
import { useServices } from './contexts/ServicesContext.js';
import { useClearStatus, useFlash } from './contexts/StatusContext.js';
import type { LayoutMode } from './layout.js';
import { PANES, type PaneId } from './panes/index.js';
import { subscriptionNotice, subscriptionNoticeChangeAt } from './panes/keys/keyRows.js';
import { useServiceWords } from './hooks/useServiceWords.js';
import { useBlockNotifications, useSubscriptionNotifications } from './hooks/useSubscriptionNotifications.js';
import { usePledges } from './panes/keys/keyPledges.js';
import { RunawayBanner, useRunawayBannerRows } from './components/RunawayBanner.js';
import { useUsage } from './contexts/UsageContext.js';
import { useUsageKeys } from './hooks/useUsageKeys.js';
import { AUTO_SPACING_MS } from '../billing/usageBudget.js';
import { refreshWaitSentence } from '../billing/usageWords.js';

/** Props of {@link Shell}. */
export interface ShellProps {
  readonly columns: number;
  readonly rows: number;
  readonly mode: Exclude<LayoutMode, 'too-small'>;
  /** The pane shown first (default `keys`). */
  readonly initialPane?: PaneId;
}

/** Lines the shell itself takes (header, tabs, status, hints), without the banner. */
export function shellChromeRows(mode: Exclude<LayoutMode, 'too-small'>): number {
  return (mode === 'compact' ? 1 : 2) + 1 + 1 + 1;
}

/**
 * The pane tabs, with the notice of a subscription ending soon: its time left is drawn again when
 * its words change (src/tui/hooks/useServiceWords.ts), without rendering the shell and every pane for it.
 */
function Tabs({ active, compact, columns }: { readonly active: PaneId; readonly compact: boolean; readonly columns: number }) {
  const { keys } = useAccountData();
  const notice = useServiceWords(
    (t) => subscriptionNotice(keys.data, t, compact),
    (t) => subscriptionNoticeChangeAt(keys.data, t),
  );
  return <PaneTabs panes={PANES} active={active} compact={compact} columns={columns} notice={notice} />;
}

/** See the module comment. */
export function Shell({ columns, rows, mode, initialPane = 'keys' }: ShellProps) {
  const [pane, setPaneState] = useState<PaneId>(initialPane);
  const clearStatus = useClearStatus();
  /** Shows pane `next`; the message of the pane left goes with it. */
  const setPane = (next: PaneId) => {
    if (next !== pane) clearStatus();
    setPaneState(next);
  };
  // The key overlay, opened at a scope's keys: the pane's, or the page `?` was pressed on (the top-up walk-through).
  const [help, setHelp] = useState<Scope | false>(false);
  const helpPage = useHelpPage();
  // The first frame draws the pane shown; the others mount right after it (and then stay mounted,
  // so the Billing pane's monitor runs and every pane keeps its state): keydeck's first frame
  // waits for nothing it does not show.
  const [othersMounted, setOthersMounted] = useState(false);
  useEffect(() => setOthersMounted(true), []);
  const session = useSession();
  const serviceNow = useServiceClock();
  const { startSetup } = useSessionActions();
  const { keys, managementKeys } = useAccountData();
  const refreshBalance = useBalanceRefresh();
  const flash = useFlash();
  const quit = useQuit();
  const bannerRows = useBannerRows(columns) + useRunawayBannerRows(columns);
  const compact = mode === 'compact';
  // A status message wraps onto the lines it needs (at most a quarter of the screen): the pane shrinks.
  const statusMax = Math.max(1, Math.min(6, Math.floor(rows / 4)));
  const statusRows = useStatusRows(columns, statusMax);
  const bodyRows = Math.max(1, rows - shellChromeRows(mode) - bannerRows - (statusRows - 1));
  // One size object per layout, so the memoised panes (panes/index.ts) re-render only for their own data.
  const size = useMemo(() => ({ columns, rows: bodyRows, mode }), [columns, bodyRows, mode]);
  const index = PANES.findIndex((p) => p.id === pane);
  const { onClientNotice, notify } = useServices();
  useSubscriptionNotifications(keys.data, serviceNow, notify);
  // A pool key's reserved block about to end, checked at each balance poll.
  const pledges = usePledges();
  usePollSucceeded(useBlockNotifications(keys.data, pledges.blocksOf, serviceNow, notify));
  // What the reader hid (key values in a list) is said once, on the status line.
  useEffect(() => onClientNotice?.((message) => flash(message, 'warning', 10_000)), [onClientNotice, flash]);
  const cycle = (delta: number) => setPane(PANES[(index + delta + PANES.length) % PANES.length]!.id);
  const usage = useUsage();
  // The runaway alert's keys (D, X) and u, and the deactivation dialog in place of the pane.
  const usageDialog = useUsageKeys({ active: !help, columns, rows: bodyRows });
  /** `r` never spends a usage read: on stale figures it says why and what would. */
  const usageNote = (): string | undefined => {
    const { at, budget } = usage.snapshot;
    if (!usage.available || !budget || (at !== undefined && serviceNow() - at < AUTO_SPACING_MS)) return undefined;
    return refreshWaitSentence(at, { ...budget, now: serviceNow() });
  };

  useKeymap(
    'global',
    {
      quit,
      help: () => setHelp(helpPage() ?? pane),
      refresh: session.client
        ? () => {
            refreshBalance();
            void Promise.all([keys.reload(), managementKeys.reload()]).then(([a, b]) => {
              const note = usageNote();
              if (a && b) flash(note ? `refreshed the balance and the keys; ${note}` : 'refreshed from the service', note ? 'info' : 'ok', note ? 10_000 : 3000);
              else flash('could not refresh: the last data stays on screen', 'error');
            });
          }
        : undefined,
      'pane.keys': () => setPane('keys'),
      'pane.mgmt': () => setPane('mgmt'),
      'pane.billing': () => setPane('billing'),
      'pane.accounts': () => setPane('accounts'),
      'pane.next': () => cycle(1),
      'pane.prev': () => cycle(-1),
      // Not for a rejected KEYDECK_TOKEN: the variable would override the new key at the next start.
      'setup.again': session.rejected && session.info?.origin !== 'env' ? () => startSetup() : undefined,
      // The demo account signs in by itself: its setup is there to be tried.
      'setup.try': session.info?.origin === 'sandbox' ? () => startSetup() : undefined,
    },
    { active: !help && usageDialog === undefined },
  );

  return (
    <Box flexDirection="column" width={columns} height={rows} overflow="hidden">
      <Header columns={columns} compact={compact} />
      <Tabs active={pane} compact={compact} columns={columns} />
      {bannerRows > 0 ? <Banner columns={columns} /> : null}
      <RunawayBanner columns={columns} />
      <Box height={bodyRows} width={columns} flexDirection="column" overflow="hidden">
        {help ? <HelpOverlay columns={columns} rows={bodyRows} scope={help} onClose={() => setHelp(false)} /> : null}
        {!help && usageDialog ? usageDialog : null}
        {PANES.map((p) => {
          const shown = !help && !usageDialog && p.id === pane;
          if (!othersMounted && p.id !== pane) return null;
          return (
            <Box key={p.id} display={shown ? 'flex' : 'none'}>
              <p.Component size={size} active={shown} goTo={setPane} />
            </Box>
          );
        })}
      </Box>
      <StatusLine columns={columns} maxLines={statusMax} />
      <HintBar columns={columns} />
    </Box>
  );
}
