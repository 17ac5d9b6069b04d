/**
 * The status line above the hint bar: the outcome of the last action, prefixed by a symbol
 * that carries its tone (✓ ok, ✕ error, ⚠ warning, · info); clears itself. A message that does
 * not fit one line wraps onto the lines it needs ({@link statusLinesOf}): the shell gives the
 * status area that many lines and the pane above shrinks, so no sentence is cut.
 */
import { Box, Text } from 'ink';
import { useStatusMessage, type StatusMessage, type StatusTone } from '../contexts/StatusContext.js';
import { truncateTo, wrapAll } from '../format.js';
import { theme } from '../theme.js';

const PREFIX: Record<StatusTone, string> = { ok: '✓', error: '✕', warning: '⚠', info: '·' };

/** The most lines a status message takes (beyond them its last line ends in "…"). */
export const MAX_STATUS_LINES = 6;

/** The lines `message` takes at `columns` cells: 1 for none, at most `maxLines`. */
export function statusLinesOf(message: StatusMessage | undefined, columns: number, maxLines = MAX_STATUS_LINES): string[] {
  if (!message) return [' '];
  const lines = wrapAll(`${PREFIX[message.tone]} ${message.text}`, columns);
  if (lines.length <= maxLines) return lines;
  const kept = lines.slice(0, maxLines);
  kept[maxLines - 1] = truncateTo(`${kept[maxLines - 1]} …`, columns);
  return kept;
}

/** Lines the status area needs now (for the layout of the screen above it). */
export function useStatusRows(columns: number, maxLines = MAX_STATUS_LINES): number {
  return statusLinesOf(useStatusMessage(), columns, maxLines).length;
}

/** The status area: the busy line, or the message wrapped (one blank line when there is none). */
export function StatusLine({ columns, busy, maxLines = MAX_STATUS_LINES }: { readonly columns: number; readonly busy?: string | undefined; readonly maxLines?: number }) {
  const message = useStatusMessage();
  if (busy) return <Text color={theme.accent}>{truncateTo(`… ${busy}`, columns)}</Text>;
  if (!message) return <Text> </Text>;
  const color = message.tone === 'ok' ? theme.ok : message.tone === 'error' ? theme.danger : message.tone === 'warning' ? theme.warning : undefined;
  const lines = statusLinesOf(message, columns, maxLines);
  return (
    <Box flexDirection="column" flexShrink={0}>
      <Text color={color}>{lines.join('\n')}</Text>
    </Box>
  );
}
