/**
 * The status line above the hint bar: the outcome of the last action, prefixed by a symbol
 * that carries its tone (✓ ok, ✕ error, ⚠ warning, · info); clears itself.
 */
import { Text } from 'ink';
import { useStatusMessage, type StatusTone } from '../contexts/StatusContext.js';
import { truncateTo } from '../format.js';
import { theme } from '../theme.js';

const PREFIX: Record<StatusTone, string> = { ok: '✓', error: '✕', warning: '⚠', info: '·' };

/** One line; empty when there is no message. */
export function StatusLine({ columns, busy }: { readonly columns: number; readonly busy?: string | undefined }) {
  const message = useStatusMessage();
  if (busy) return <Text color={theme.accent}>{truncateTo(`… ${busy}`, columns)}</Text>;
  if (!message) return <Text> </Text>;
  const color = message.tone === 'ok' ? theme.ok : message.tone === 'error' ? theme.danger : message.tone === 'warning' ? theme.warning : undefined;
  return <Text color={color}>{truncateTo(`${PREFIX[message.tone]} ${message.text}`, columns)}</Text>;
}
