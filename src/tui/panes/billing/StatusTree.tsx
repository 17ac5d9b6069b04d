/**
 * `GET /api/billing/status` (body not shown) as a readable key/value tree of whatever it
 * returns: objects as `key: value` lines indented by depth, arrays as numbered items, scalars
 * as they are. {@link treeLines} is pure; {@link StatusTree} draws a window of its lines.
 */
import { Box, Text } from 'ink';
import { visible } from '../../../terminal/sanitize.js';
import { truncateTo } from '../../format.js';
import { theme } from '../../theme.js';

/** One line of the tree. */
export interface TreeLine {
  readonly depth: number;
  /** The key or `[i]`; empty for a bare scalar. */
  readonly key: string;
  /** The scalar value as text; undefined for a line that opens an object or array. */
  readonly value?: string;
}

/** Deepest level expanded; deeper objects are summarised. */
const MAX_DEPTH = 8;

function scalarText(value: unknown): string {
  if (value === null) return 'null';
  if (typeof value === 'string') return value === '' ? '""' : visible(value);
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return String(value);
  if (value === undefined) return '(empty)';
  return JSON.stringify(value) ?? String(value);
}

/**
 * Flattens any JSON value into tree lines. An empty object or array is one line (`{}` / `[]`);
 * a text body (not JSON) is one line.
 */
export function treeLines(value: unknown, depth = 0, key = ''): TreeLine[] {
  const isArray = Array.isArray(value);
  if (typeof value !== 'object' || value === null) return [{ depth, key, value: scalarText(value) }];
  const entries: [string, unknown][] = isArray ? value.map((v, i) => [`[${i}]`, v]) : Object.entries(value as Record<string, unknown>);
  if (entries.length === 0) return [{ depth, key, value: isArray ? '[]' : '{}' }];
  if (depth >= MAX_DEPTH) return [{ depth, key, value: isArray ? `[${entries.length} items]` : '{…}' }];
  const out: TreeLine[] = key === '' && depth === 0 ? [] : [{ depth, key }];
  const childDepth = key === '' && depth === 0 ? 0 : depth + 1;
  // Keys are the service's too: made visible and short before they are laid out.
  for (const [k, v] of entries) for (const line of treeLines(v, childDepth, visible(k, { maxWidth: 64 }))) out.push(line);
  return out;
}

/** Props of {@link StatusTree}. */
export interface StatusTreeProps {
  readonly lines: readonly TreeLine[];
  /** First line shown. */
  readonly offset: number;
  readonly rows: number;
  readonly columns: number;
}

/** A window of `rows` lines from `offset`, with "… N more" when cut. */
export function StatusTree({ lines, offset, rows, columns }: StatusTreeProps) {
  const room = Math.max(1, rows);
  const more = lines.length - offset > room;
  const shown = lines.slice(offset, offset + (more ? room - 1 : room));
  return (
    <Box flexDirection="column">
      {shown.map((line, i) => (
        <Text key={offset + i} wrap="truncate">
          {'  '.repeat(line.depth)}
          {line.key !== '' ? <Text color={theme.accent}>{line.value === undefined ? line.key : `${line.key}: `}</Text> : null}
          {line.value !== undefined ? truncateTo(line.value, Math.max(1, columns - line.depth * 2 - line.key.length - 2)) : ''}
        </Text>
      ))}
      {more ? <Text color={theme.muted}>{`… ${lines.length - offset - shown.length} more lines (j/k scroll)`}</Text> : null}
    </Box>
  );
}
