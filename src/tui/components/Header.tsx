/**
 * The header: SANDBOX or LIVE, profile, the service's host, the management key in use (prefix
 * only; a warning when it lives in the plaintext file or only in memory), the live remaining
 * balance (§2.3 `remaining`, USD) and the connection state (online · updated N s ago /
 * offline since … / service failing since … / bad answers since … / rate limited / key
 * rejected). Two lines in the full layout, one in the compact one.
 */
import { hostOf } from '../../api/baseUrl.js';
import { isBelowThreshold } from '../../billing/alert.js';
import { Box, Text } from 'ink';
import { useBalance } from '../contexts/BalanceContext.js';
import { useClock, useServices } from '../contexts/ServicesContext.js';
import { useSession, type CredentialInfo } from '../contexts/SessionContext.js';
import { connectionProblemWords, isUnauthorized, errorCode } from '../errors.js';
import { clockTime, displayWidth, formatUsd, updatedAgo } from '../format.js';
import { useAge } from '../hooks/useAge.js';
import type { PollState } from '../hooks/poller.js';
import type { CreditBalance } from '../../api/schemas.js';
import { symbols, theme, type ThemeColor } from '../theme.js';

/** The host (and port) of a base URL, for display; "no service set" without one. */
export function hostLabel(baseUrl: string | undefined): string {
  return baseUrl ? hostOf(baseUrl) : 'no service set';
}

/** The credential in use, in words (never the secret). */
export function describeCredential(info: CredentialInfo | undefined): { text: string; warning?: string; shorterWarnings?: readonly string[] } {
  if (!info) return { text: 'no key' };
  const what = info.kind === 'management-key' ? `key ${info.keyPrefix ?? 'mk_…'}` : 'session token';
  switch (info.origin) {
    case 'keychain':
      return { text: `${what} (keychain)` };
    case 'env':
      return { text: `${what} (KEYDECK_TOKEN)` };
    case 'memory':
      return { text: `${what} (this session only: not stored)` };
    case 'file':
      return { text: `${what}`, warning: `stored in plaintext: ${info.path ?? 'file'}`, shorterWarnings: ['stored in plaintext (path: keydeck auth status)', 'stored in plaintext'] };
  }
}

/** The connection state in words, with its symbol and colour; the age in steps of `stepSeconds`. */
export function connectionState(poll: PollState<CreditBalance>, rejected: boolean, now: number, stepSeconds = 5): { text: string; color: ThemeColor } {
  if (rejected || (poll.error !== undefined && isUnauthorized(poll.error))) return { text: `${symbols.offline} key rejected`, color: theme.danger };
  if (poll.error !== undefined) {
    if (errorCode(poll.error) === 'rate_limited') return { text: `${symbols.warning} rate limited`, color: theme.warning };
    const problem = connectionProblemWords(poll.error);
    if (problem && poll.failingSince !== undefined) {
      return { text: `${symbols.offline} ${problem.state} since ${clockTime(poll.failingSince)}`, color: theme.danger };
    }
    return { text: `${symbols.warning} ${errorCode(poll.error) ?? 'error'}`, color: theme.warning };
  }
  if (poll.updatedAt === undefined) return { text: 'connecting…', color: theme.muted };
  return { text: `${symbols.online} online · updated ${updatedAgo(poll.updatedAt, now, stepSeconds)}`, color: theme.ok };
}

/** The balance in words: "$25.00 left", with "⚠ low" / "empty" when it is. */
export function balanceText(data: CreditBalance | undefined, alertBelowUsd: number | undefined): { text: string; color: ThemeColor } {
  if (!data) return { text: 'balance …', color: theme.muted };
  const amount = formatUsd(data.remaining);
  if (data.remaining <= 0) return { text: `${amount} left (empty)`, color: theme.danger };
  if (isBelowThreshold(data.remaining, alertBelowUsd)) return { text: `${symbols.warning} ${amount} left (low)`, color: theme.warning };
  return { text: `${amount} left`, color: theme.ok };
}

/** Granularity of the header's "updated N s ago", seconds. */
export const HEADER_AGE_STEP_SECONDS = 15;

/** Props of {@link Header}. */
export interface HeaderProps {
  readonly columns: number;
  readonly compact: boolean;
}

/** The header (see the module comment). Must be inside BalanceProvider. */
export function Header({ columns, compact }: HeaderProps) {
  const clock = useClock();
  const { target, profile } = useServices();
  const session = useSession();
  const poll = useBalance();
  // Redrawn when the age text changes (15-second steps), not on a fixed tick: an idle
  // monitor then draws about one frame per poll.
  useAge(poll.updatedAt, clock, HEADER_AGE_STEP_SECONDS);
  const cred = describeCredential(session.info);
  const conn = connectionState(poll, session.rejected, clock(), HEADER_AGE_STEP_SECONDS);
  const bal = balanceText(poll.data, profile.alertBelowUsd);
  const badge = target === 'sandbox' ? 'SANDBOX' : 'LIVE';
  const badgeColor = target === 'sandbox' ? theme.sandbox : theme.live;
  const host = hostLabel(session.baseUrl);
  // The plaintext file's path when the line holds it whole; else a shorter warning that says
  // where the path is (issue 19: no line ends in a cut `…`).
  const credRoom = columns - displayWidth(conn.text) - 1;
  const fits = (w: string) => displayWidth(`${cred.text}  ${symbols.warning} ${w}`) <= credRoom;
  const warning = cred.warning === undefined ? undefined : [cred.warning, ...(cred.shorterWarnings ?? [])].find(fits) ?? cred.shorterWarnings?.at(-1) ?? cred.warning;

  if (compact) {
    return (
      <Box width={columns}>
        <Box flexGrow={1} flexShrink={1}>
          <Text wrap="truncate">
            <Text bold color={badgeColor} inverse>{` ${badge} `}</Text>
            {` ${profile.name}@${host} · ${cred.text}${cred.warning ? ` ${symbols.warning}` : ''}`}
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
            {`  profile ${profile.name} · ${host}`}
          </Text>
        </Box>
        <Box flexShrink={0} marginLeft={1}>
          <Text bold color={bal.color}>{bal.text}</Text>
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
