/**
 * The first frame, drawn while the rest of the app loads (src/tui/run.tsx): the header and the pane
 * tabs exactly as the shell's first frame draws them (no key yet, balance …, connecting…, the Keys
 * tab active), built from the same views (components/HeaderView.tsx, components/PaneTabs.tsx), and
 * an empty body. The app replaces it as soon as it is loaded (about 70–100 ms later, the time the
 * API client, zod's schemas, the panes and the history store take to load), keeping the lines that
 * did not change. It reads no key and takes no input: keys typed meanwhile wait in the terminal
 * and reach the app when it starts reading. Below 60×15 it draws nothing: the app's own notice
 * follows. Loads with Ink alone (nothing from src/api but the URL helpers, no context).
 */
import { Box, useWindowSize } from 'ink';
import { BALANCE_UNKNOWN, CONNECTING, describeCredential, HeaderView, hostLabel } from './components/HeaderView.js';
import { PaneTabs } from './components/PaneTabs.js';
import { layoutModeFor } from './layout.js';
import { PANE_TABS } from './panes/registry.js';

/** Props of {@link BootFrame}: what the header shows before the session is read. */
export interface BootFrameProps {
  readonly target: 'sandbox' | 'live';
  readonly profileName: string;
  /** The profile's base URL; absent: "no service set" (the guided setup asks for it). */
  readonly baseUrl?: string | undefined;
  /** The profile is read-only: the header's `RO` badge. */
  readonly readOnly?: boolean;
}

/** See the module comment. */
export function BootFrame({ target, profileName, baseUrl, readOnly }: BootFrameProps) {
  const { columns, rows } = useWindowSize();
  const mode = layoutModeFor(columns, rows);
  if (mode === 'too-small') return null;
  const compact = mode === 'compact';
  return (
    <Box width={columns} height={rows} flexDirection="column" overflow="hidden">
      <HeaderView
        columns={columns}
        compact={compact}
        target={target}
        profileName={profileName}
        host={hostLabel(baseUrl)}
        credential={describeCredential(undefined)}
        connection={CONNECTING}
        balance={BALANCE_UNKNOWN}
        readOnly={readOnly === true}
      />
      <PaneTabs panes={PANE_TABS} active="keys" compact={compact} columns={columns} />
    </Box>
  );
}
