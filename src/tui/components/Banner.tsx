/**
 * The banner under the tabs, for conditions that last: the stored key rejected (401: offer
 * setup with `S`), a rejected `KEYDECK_TOKEN` (say so and what to do; never offer a setup whose
 * key the variable would override again), offline or the service failing (the last
 * data stays on screen), rate limited. Wrapped at spaces to at most {@link BANNER_MAX_LINES}
 * lines: it starts with the cause in a few words (offline, HTTP 503, unreadable answers) so that
 * a small terminal still says what is wrong; nothing when all is well.
 */
import { Text } from 'ink';
import { useBalanceSelect } from '../contexts/BalanceContext.js';
import { useClock } from '../contexts/ServicesContext.js';
import { useSession } from '../contexts/SessionContext.js';
import { connectionProblemWords, describeFailure, errorCode, isUnauthorized } from '../errors.js';
import { clockTime, wrapWords } from '../format.js';
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
    if (args.origin === 'env') {
      return {
        text: `${symbols.warning} KEYDECK_TOKEN was rejected: unset KEYDECK_TOKEN to use the key stored for this profile, or set a valid one, then start keydeck again.`,
        color: theme.danger,
      };
    }
    if (args.origin === 'sandbox') {
      return { text: `${symbols.warning} The sandbox's demo session token was rejected (was its database replaced?): quit (q) and start keydeck --sandbox again.`, color: theme.danger };
    }
    const what = args.origin === 'memory' ? 'The key of this session' : 'The stored management key';
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

/** Most lines the banner takes (the rest of a longer text is cut with "…"). */
export const BANNER_MAX_LINES = 3;

/** The banner's lines at `columns` (empty when there is nothing to say). */
function useBannerLines(columns: number): { lines: string[]; color?: ThemeColor } {
  const session = useSession();
  const clock = useClock();
  // Picked at each poll: a poll that changes nothing of it (all is well) re-renders nothing.
  const banner = useBalanceSelect(
    (poll) => bannerFor({ rejected: session.rejected, origin: session.info?.origin, error: poll.error, updatedAt: poll.updatedAt, nextAt: poll.nextAt, now: clock() }),
    (a, b) => a === b || (a !== undefined && b !== undefined && a.text === b.text && a.color === b.color),
  );
  if (!banner) return { lines: [] };
  return { lines: wrapWords(banner.text, columns, BANNER_MAX_LINES), color: banner.color };
}

/** A few lines, or nothing. */
export function Banner({ columns }: { readonly columns: number }) {
  const { lines, color } = useBannerLines(columns);
  if (lines.length === 0) return null;
  return <Text color={color}>{lines.join('\n')}</Text>;
}

/** How many rows {@link Banner} draws at `columns` (the shell reserves them); 0 when none. */
export function useBannerRows(columns: number): number {
  return useBannerLines(columns).lines.length;
}
