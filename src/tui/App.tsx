/**
 * The root component: providers (services, the timer of the texts that move with the clock,
 * status, keymap, session, balance, lists), the size gate (80×24 full, 60×15 compact, below that
 * a notice; the app stays mounted underneath), and the router between the guided setup and the
 * shell. Errors in rendering reach the one exit site through the error boundary.
 */
import { Component, useEffect, type ReactNode } from 'react';
import { Box, useFocusManager, useWindowSize } from 'ink';
import { TooSmall } from './components/TooSmall.js';
import { AccountDataProvider } from './contexts/AccountDataContext.js';
import { BalanceProvider } from './contexts/BalanceContext.js';
import { KeymapProvider } from './contexts/KeymapContext.js';
import { ServicesContext } from './contexts/ServicesContext.js';
import { SessionProvider, useSession, type SessionState } from './contexts/SessionContext.js';
import { StatusProvider } from './contexts/StatusContext.js';
import { UsageProvider } from './contexts/UsageContext.js';
import { WakeProvider } from './hooks/useAge.js';
import { KeychainHung } from './flows/KeychainHung.js';
import { SetupFlow } from './flows/SetupFlow.js';
import { layoutModeFor } from './layout.js';
import type { PaneId } from './panes/index.js';
import type { AppServices } from './services.js';
import { Shell } from './Shell.js';

/** Props of {@link App}. */
export interface AppProps {
  readonly services: AppServices;
  /** Start from this session state instead of reading the store (tests). */
  readonly initialSession?: SessionState;
  /** The pane shown first (default `keys`). */
  readonly initialPane?: PaneId;
}

/** The whole TUI. See the module comment. */
export function App({ services, initialSession, initialPane }: AppProps) {
  return (
    <ExitOnError services={services}>
      <ServicesContext.Provider value={services}>
        <WakeProvider>
          <StatusProvider>
            <KeymapProvider onQuit={() => services.exit(0)} onInterrupt={() => services.exit(130)}>
              <SessionProvider {...(initialSession && { initial: initialSession })}>
                <Screen {...(initialPane && { initialPane })} />
              </SessionProvider>
            </KeymapProvider>
          </StatusProvider>
        </WakeProvider>
      </ServicesContext.Provider>
    </ExitOnError>
  );
}

function Screen({ initialPane }: { readonly initialPane?: PaneId }) {
  const { columns, rows } = useWindowSize();
  const focus = useFocusManager();
  // The app owns tab / shift-tab / esc: Ink's focus manager must not claim them.
  useEffect(() => focus.disableFocus(), [focus]);
  const mode = layoutModeFor(columns, rows);
  const session = useSession();
  const layoutMode = mode === 'too-small' ? 'compact' : mode;
  return (
    <Box width={columns} height={rows} flexDirection="column" overflow="hidden">
      {mode === 'too-small' ? <TooSmall columns={columns} rows={rows} /> : null}
      <Box display={mode === 'too-small' ? 'none' : 'flex'} flexDirection="column">
        {session.phase === 'setup' ? (
          <SetupFlow columns={columns} rows={rows} mode={layoutMode} />
        ) : session.phase === 'keychain-hung' ? (
          <KeychainHung columns={columns} rows={rows} />
        ) : (
          <BalanceProvider>
            <AccountDataProvider>
              <UsageProvider>
                <Shell columns={columns} rows={rows} mode={layoutMode} {...(initialPane && { initialPane })} />
              </UsageProvider>
            </AccountDataProvider>
          </BalanceProvider>
        )}
      </Box>
    </Box>
  );
}

/** Sends a render error to the app's exit site (terminal restored, error printed redacted). */
class ExitOnError extends Component<{ services: AppServices; children?: ReactNode }, { failed: boolean }> {
  override state = { failed: false };
  static getDerivedStateFromError(): { failed: boolean } {
    return { failed: true };
  }
  override componentDidCatch(error: Error): void {
    this.props.services.exit(1, `keydeck: unexpected error: ${error.stack ?? error.message}`);
  }
  override render() {
    return this.state.failed ? null : this.props.children;
  }
}
