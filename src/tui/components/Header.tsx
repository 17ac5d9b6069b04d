/**
 * The header: SANDBOX or LIVE (and RO for a read-only profile), profile, the service's host, the management key in use (prefix
 * only; a warning when it lives in the plaintext file or only in memory), the live remaining
 * balance (the credit balance record `remaining`, USD) and the connection state (online · updated N s ago /
 * offline since … / service failing since … / bad answers since … / rate limited / key
 * rejected). Two lines in the full layout, one in the compact one.
 */
import { useRef } from 'react';
import { isBelowThreshold } from '../../billing/alert.js';
import { useBalanceSelect } from '../contexts/BalanceContext.js';
import { useClock, useServices } from '../contexts/ServicesContext.js';
import { useSession } from '../contexts/SessionContext.js';
import { connectionProblemWords, isUnauthorized, errorCode } from '../errors.js';
import { clockTime, updatedAgo } from '../format.js';
import { useAge } from '../hooks/useAge.js';
import type { PollState } from '../../watcher/types.js';
import type { CreditBalance } from '../../api/schemas.js';
import { symbols, theme } from '../theme.js';
import { BALANCE_UNKNOWN, CONNECTING, describeCredential, HeaderView, hostLabel, type HeaderWords } from './HeaderView.js';
import { formatUsd } from '../../api/money.js';

/** The connection state in words, with its symbol and colour; the age in steps of `stepSeconds`. */
export function connectionState(poll: PollState<CreditBalance>, rejected: boolean, now: number, stepSeconds = 5): HeaderWords {
  if (rejected || (poll.error !== undefined && isUnauthorized(poll.error))) return { text: `${symbols.offline} key rejected`, color: theme.danger };
  if (poll.error !== undefined) {
    if (errorCode(poll.error) === 'rate_limited') return { text: `${symbols.warning} rate limited`, color: theme.warning };
    const problem = connectionProblemWords(poll.error);
    if (problem && poll.failingSince !== undefined) {
      return { text: `${symbols.offline} ${problem.state} since ${clockTime(poll.failingSince)}`, color: theme.danger };
    }
    return { text: `${symbols.warning} ${errorCode(poll.error) ?? 'error'}`, color: theme.warning };
  }
  if (poll.updatedAt === undefined) return CONNECTING;
  return { text: `${symbols.online} online · updated ${updatedAgo(poll.updatedAt, now, stepSeconds)}`, color: theme.ok };
}

/** The balance in words: "$25.00 left", with "⚠ low" / "empty" when it is. */
export function balanceText(data: CreditBalance | undefined, alertBelowUsd: number | undefined): HeaderWords {
  if (!data) return BALANCE_UNKNOWN;
  const amount = formatUsd(data.remaining);
  if (data.remaining <= 0) return { text: `${amount} left (empty)`, color: theme.danger };
  if (isBelowThreshold(data.remaining, alertBelowUsd)) return { text: `${symbols.warning} ${amount} left (low)`, color: theme.warning };
  return { text: `${amount} left`, color: theme.ok };
}

/** Granularity of the header's "updated N s ago", seconds. */
export const HEADER_AGE_STEP_SECONDS = 15;

/** The same words (a poll that changes none of them costs no frame). */
function sameHeaderWords(a: { readonly connection: HeaderWords; readonly balance: HeaderWords }, b: { readonly connection: HeaderWords; readonly balance: HeaderWords }): boolean {
  return a.connection.text === b.connection.text && a.connection.color === b.connection.color && a.balance.text === b.balance.text && a.balance.color === b.balance.color;
}

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
  // The words the header shows, picked at each poll: a poll that changes none of them draws no
  // frame. The age is counted from the latest poll, whether or not it changed the words.
  const latest = useRef<number | undefined>(undefined);
  const words = useBalanceSelect(
    (poll) => ({
      updatedAt: (latest.current = poll.updatedAt),
      connection: connectionState(poll, session.rejected, clock(), HEADER_AGE_STEP_SECONDS),
      balance: balanceText(poll.data, profile.alertBelowUsd),
    }),
    sameHeaderWords,
  );
  // Redrawn when the age text changes (15-second steps), not on a fixed tick: an idle
  // monitor then draws about one frame per poll. The age is read from the latest poll when the
  // step comes, so polls more frequent than the step draw nothing for it.
  useAge(() => latest.current ?? words.updatedAt, clock, HEADER_AGE_STEP_SECONDS);
  return (
    <HeaderView
      columns={columns}
      compact={compact}
      target={target}
      profileName={profile.name}
      host={hostLabel(session.baseUrl)}
      credential={describeCredential(session.info)}
      connection={words.connection}
      balance={words.balance}
      readOnly={profile.readOnly !== undefined}
    />
  );
}
