/**
 * The banner under the tabs, for conditions that last: the stored key rejected (401: offer
 * setup with `S`), offline or the service failing (the last data stays on screen), rate
 * limited. One line, cut to the width: it starts with the cause in a few words (offline, HTTP
 * 503, unreadable answers) so that a narrow terminal still says what is wrong; nothing when all
 * is well.
 */
import { Text } from 'ink';
import { useBalance } from '../contexts/BalanceContext.js';
import { useClock } from '../contexts/ServicesContext.js';
import { useSession } from '../contexts/SessionContext.js';
import { connectionProblemWords, describeFailure, errorCode, isUnauthorized } from '../errors.js';
import { clockTime, truncateTo } from '../format.js';
import { symbols, theme, type ThemeColor } from '../theme.js';

/** The banner's text and colour, or undefined when there is nothing to say. */
export function bannerFor(args: {
  rejected: boolean;
  origin?: string | undefined;
  error: unknown;
  updatedAt?: number | undefined;
  nextAt?: number | undefined;
  now: number;
}): { text: string; color: ThemeColor } | undefined {
  if (args.rejected || (args.error !== undefined && isUnauthorized(args.error))) {
    const what = args.origin === 'env' ? 'The key in KEYDECK_TOKEN' : 'The stored management key';
    return { text: `${symbols.warning} ${what} was rejected (revoked or deleted): press S to run the guided setup again.`, color: theme.danger };
  }
  if (args.error === undefined) return undefined;
  const retry = args.nextAt !== undefined ? `retrying in ${Math.max(0, Math.ceil((args.nextAt - args.now) / 1000))} s` : 'retrying';
  const kept = args.updatedAt !== undefined ? `showing the data from ${clockTime(args.updatedAt)}; ${retry}` : retry;
  if (errorCode(args.error) === 'rate_limited') return { text: `${symbols.warning} Rate limited by the service: ${kept}.`, color: theme.warning };
  const problem = connectionProblemWords(args.error);
  if (problem) return { text: `${symbols.offline} ${problem.headline}: ${kept}. ${describeFailure(args.error)}`, color: theme.danger };
  return { text: `${symbols.warning} ${describeFailure(args.error)}`, color: theme.warning };
}

/** One line, or nothing. */
export function Banner({ columns }: { readonly columns: number }) {
  const session = useSession();
  const poll = useBalance();
  const now = useClock()();
  const banner = bannerFor({ rejected: session.rejected, origin: session.info?.origin, error: poll.error, updatedAt: poll.updatedAt, nextAt: poll.nextAt, now });
  if (!banner) return null;
  return <Text color={banner.color}>{truncateTo(banner.text, columns)}</Text>;
}

/** True when {@link Banner} draws a line (the shell reserves the row). */
export function useHasBanner(): boolean {
  const session = useSession();
  const poll = useBalance();
  return session.rejected || poll.error !== undefined;
}
