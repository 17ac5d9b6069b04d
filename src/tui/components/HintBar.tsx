/**
 * The one-line hint bar: the keys that work right now (from the key-action table, through the
 * bound handlers), so it never disagrees with what the keys do. It never cuts a hint:
 * when the line is too narrow, lower-priority hints are left out whole; `?` (which lists them
 * all) is always kept.
 */
import { Text } from 'ink';
import { useActiveActions } from '../contexts/KeymapContext.js';
import { keyLabel } from '../keymap.js';
import { displayWidth, truncateTo } from '../format.js';
import { theme } from '../theme.js';

/** Shown first when present, in this order: help, the way out, and the way back from a rejected key. */
const FIRST = ['help', 'quit', 'setup.again'];

/**
 * Formats the active actions as `key label` pairs (help, quit and setup first, then the others
 * in table order), keeping only those that fit in `width` cells whole (default: all).
 */
export function hintText(actions: ReadonlyArray<{ id: string; keys: readonly string[]; label: string; hint?: boolean }>, width = Number.POSITIVE_INFINITY): string {
  const seen = new Set<string>();
  const parts: string[] = [];
  const first = FIRST.flatMap((id) => actions.filter((a) => a.id === id));
  const ordered = [...first, ...actions.filter((a) => !FIRST.includes(a.id))];
  let used = 0;
  for (const a of ordered) {
    if (a.hint === false) continue;
    const k = keyLabel(a.keys[0] ?? '');
    if (seen.has(k)) continue;
    seen.add(k);
    const part = `${k} ${a.label}`;
    const w = displayWidth(part) + (parts.length > 0 ? 2 : 0);
    if (used + w > width) continue;
    parts.push(part);
    used += w;
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
  const text = override ?? hintText(actions, columns);
  return <Text color={theme.muted}>{truncateTo(text, columns)}</Text>;
}
