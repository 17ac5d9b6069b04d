/**
 * The one-line hint bar: the keys that work right now (from the key-action table, through the
 * bound handlers), so it never disagrees with what the keys do.
 */
import { Text } from 'ink';
import { useActiveActions } from '../contexts/KeymapContext.js';
import { keyLabel } from '../keymap.js';
import { truncateTo } from '../format.js';
import { theme } from '../theme.js';

/** Shown first when present, so a truncated hint bar still says how to get help and out. */
const FIRST = ['help', 'quit'];

/** Formats the active actions as `key label` pairs (help and quit first). */
export function hintText(actions: ReadonlyArray<{ id: string; keys: readonly string[]; label: string; hint?: boolean }>): string {
  const seen = new Set<string>();
  const parts: string[] = [];
  const ordered = [...actions.filter((a) => FIRST.includes(a.id)), ...actions.filter((a) => !FIRST.includes(a.id))];
  for (const a of ordered) {
    if (a.hint === false) continue;
    const k = keyLabel(a.keys[0] ?? '');
    if (seen.has(k)) continue;
    seen.add(k);
    parts.push(`${k} ${a.label}`);
  }
  return parts.join('  ');
}

/** Props of {@link HintBar}. */
export interface HintBarProps {
  readonly columns: number;
  /** Replaces the hints (e.g. "working…" while an action runs). */
  readonly override?: string;
}

/** One line: what the keys do here. */
export function HintBar({ columns, override }: HintBarProps) {
  const actions = useActiveActions();
  const text = override ?? hintText(actions);
  return <Text color={theme.muted}>{truncateTo(text, columns)}</Text>;
}
