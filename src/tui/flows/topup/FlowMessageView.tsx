/** A walk-through message: its tone as a symbol (✓ ✕ ⚠ ·) and a colour, then its lines. */
import { Box, Text } from 'ink';
import { theme } from '../../theme.js';
import type { FlowMessage } from './flowState.js';

const PREFIX: Record<FlowMessage['tone'], string> = { ok: '✓', error: '✕', warning: '⚠', info: '·' };

/** Renders `message` (nothing when undefined). */
export function FlowMessageView({ message }: { readonly message?: FlowMessage | undefined }) {
  if (!message) return null;
  const color = message.tone === 'ok' ? theme.ok : message.tone === 'error' ? theme.danger : message.tone === 'warning' ? theme.warning : undefined;
  return (
    <Box flexDirection="column">
      {message.lines.map((line, i) => (
        <Text key={i} color={color} wrap="wrap">
          {i === 0 ? `${PREFIX[message.tone]} ${line}` : `  ${line}`}
        </Text>
      ))}
    </Box>
  );
}
