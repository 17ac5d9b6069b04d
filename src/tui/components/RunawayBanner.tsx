/**
 * The runaway alert under the tabs: the newest alert of the usage context, naming the
 * key and its rate (or the balance's rate and the likely key, worded as likely), with the keys that
 * act on it: `D` deactivates the key (the confirm dialog, Cancel first), `X` hides the alert until
 * its key runs away again. Wrapped to at most {@link RUNAWAY_BANNER_MAX_LINES} lines, never cut.
 */
import { Text } from 'ink';
import { useUsage, type RunawayAlert } from '../contexts/UsageContext.js';
import { wrapWords } from '../format.js';
import { symbols, theme } from '../theme.js';

/** Most lines the alert takes. */
export const RUNAWAY_BANNER_MAX_LINES = 2;

/** The alert's text with its keys: `⚠ "batch" is spending $5.00/h, 10× its usual $0.50/h · D deactivates it · X dismisses (+1 more)`. */
export function runawayBannerText(alert: RunawayAlert, more: number): string {
  const act = alert.keyId !== undefined ? ` · D deactivates ${alert.id === 'account' ? `"${alert.keyName}"` : 'it'}` : '';
  return `${symbols.warning} ${alert.text}${act} · X dismisses${more > 0 ? ` (+${more} more)` : ''}`;
}

function useLines(columns: number): string[] {
  const { alerts } = useUsage();
  const alert = alerts[alerts.length - 1];
  if (!alert) return [];
  return wrapWords(runawayBannerText(alert, alerts.length - 1), columns, RUNAWAY_BANNER_MAX_LINES);
}

/** The alert's lines, or nothing. */
export function RunawayBanner({ columns }: { readonly columns: number }) {
  const lines = useLines(columns);
  if (lines.length === 0) return null;
  return <Text color={theme.danger}>{lines.join('\n')}</Text>;
}

/** Rows {@link RunawayBanner} takes at `columns` (0 without an alert). */
export function useRunawayBannerRows(columns: number): number {
  return useLines(columns).length;
}
