/**
 * What the header draws, from words already chosen (an `RO` badge beside SANDBOX or LIVE for a
 * read-only profile): the pure half of {@link Header}
 * (components/Header.tsx), which reads the session, the balance poll and the clock and hands
 * their words here. The frame drawn while the app loads (src/tui/BootFrame.tsx) draws the same
 * view with the words of the first frame (no key yet, balance …, connecting…), so the two
 * cannot differ. No context and nothing from src/api here: it must load with Ink alone.
 */
import { hostOf } from '../../api/baseUrl.js';
import { Box, Text } from 'ink';
import type { CredentialInfo } from '../contexts/SessionContext.js';
import { displayWidth } from '../format.js';
import { symbols, theme, type ThemeColor } from '../theme.js';

/** A piece of the header in words, with its colour. */
export interface HeaderWords {
  readonly text: string;
  readonly color: ThemeColor;
}

/** The connection state before the first answer. */
export const CONNECTING: HeaderWords = { text: 'connecting…', color: theme.muted };
/** The balance before the first answer. */
export const BALANCE_UNKNOWN: HeaderWords = { text: 'balance …', color: theme.muted };

/** The host (and port) of a base URL, for display; "no service set" without one. */
export function hostLabel(baseUrl: string | undefined): string {
  return baseUrl ? hostOf(baseUrl) : 'no service set';
}

/** The credential in words (never the secret), with the warnings of the plaintext file, longest first. */
export interface CredentialWordsForHeader {
  readonly text: string;
  readonly warning?: string;
  readonly shorterWarnings?: readonly string[];
}

/** The credential in use, in words (never the secret); `no key` before the session has one. */
export function describeCredential(info: CredentialInfo | undefined): CredentialWordsForHeader {
  if (!info) return { text: 'no key' };
  const what = info.kind === 'management-key' ? `key ${info.keyPrefix ?? 'mk_…'}` : 'session token';
  switch (info.origin) {
    case 'keychain':
      return { text: `${what} (keychain)` };
    case 'env':
      return { text: `${what} (KEYDECK_TOKEN)` };
    case 'memory':
      return { text: `${what} (this session only: not stored)` };
    case 'sandbox':
      return { text: `demo ${what} (kept in the data dir)` };
    case 'file':
      return { text: `${what}`, warning: `stored in plaintext: ${info.path ?? 'file'}`, shorterWarnings: ['stored in plaintext (path: keydeck auth status)', 'stored in plaintext'] };
  }
}

/** Props of {@link HeaderView}. */
export interface HeaderViewProps {
  readonly columns: number;
  readonly compact: boolean;
  /** `sandbox` draws the SANDBOX badge, `live` the LIVE one. */
  readonly target: 'sandbox' | 'live';
  readonly profileName: string;
  /** The service's host (and port), {@link hostLabel}. */
  readonly host: string;
  readonly credential: CredentialWordsForHeader;
  readonly connection: HeaderWords;
  readonly balance: HeaderWords;
  /** The profile is read-only (its `readOnly`, or `--read-only`): an `RO` badge beside SANDBOX or LIVE. */
  readonly readOnly?: boolean;
}

/** The header's lines (two in the full layout, one in the compact one). */
export function HeaderView({ columns, compact, target, profileName, host, credential: cred, connection: conn, balance: bal, readOnly }: HeaderViewProps) {
  const badge = target === 'sandbox' ? 'SANDBOX' : 'LIVE';
  const badgeColor = target === 'sandbox' ? theme.sandbox : theme.live;
  // Read-only (src/config/profileMarks.ts): said beside the badge, in both layouts, before the profile's name.
  const ro = readOnly ? (
    <Text bold inverse>
      {' RO '}
    </Text>
  ) : null;
  // The plaintext file's path when the line holds it whole; else a shorter warning that says
  // where the path is (no line ends in a cut `…`).
  const credRoom = columns - displayWidth(conn.text) - 1;
  const fits = (w: string) => displayWidth(`${cred.text}  ${symbols.warning} ${w}`) <= credRoom;
  const warning = cred.warning === undefined ? undefined : ([cred.warning, ...(cred.shorterWarnings ?? [])].find(fits) ?? cred.shorterWarnings?.at(-1) ?? cred.warning);

  if (compact) {
    return (
      <Box width={columns}>
        <Box flexGrow={1} flexShrink={1}>
          <Text wrap="truncate">
            <Text bold color={badgeColor} inverse>{` ${badge} `}</Text>
            {ro}
            {` ${profileName}@${host} · ${cred.text}${cred.warning ? ` ${symbols.warning}` : ''}`}
          </Text>
        </Box>
        <Box flexShrink={0}>
          <Text color={bal.color}>{` ${bal.text} `}</Text>
          <Text color={conn.color}>{conn.text.split(' · ')[0]}</Text>
        </Box>
      </Box>
    );
  }
  return (
    <Box flexDirection="column" width={columns}>
      <Box>
        <Box flexGrow={1} flexShrink={1}>
          <Text wrap="truncate">
            <Text bold>keydeck </Text>
            <Text bold color={badgeColor} inverse>{` ${badge} `}</Text>
            {ro ? <Text> </Text> : null}
            {ro}
            {`  profile ${profileName} · ${host}`}
          </Text>
        </Box>
        <Box flexShrink={0} marginLeft={1}>
          <Text bold color={bal.color}>
            {bal.text}
          </Text>
        </Box>
      </Box>
      <Box>
        <Box flexGrow={1} flexShrink={1}>
          <Text wrap="truncate">
            {cred.text}
            {warning ? <Text color={theme.warning}>{`  ${symbols.warning} ${warning}`}</Text> : null}
          </Text>
        </Box>
        <Box flexShrink={0} marginLeft={1}>
          <Text color={conn.color}>{conn.text}</Text>
        </Box>
      </Box>
    </Box>
  );
}
