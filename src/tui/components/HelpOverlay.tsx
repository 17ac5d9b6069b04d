/**
 * The `?` overlay: every binding of the key-action table, grouped by where it works, dangerous
 * ones marked `!`. It opens at the section of the pane it was asked from, counts
 * bindings (not lines), keeps each binding whole (keys too wide for their column get a line of
 * their own, descriptions wrap under themselves: never cut), and a page that starts
 * inside a section says which (`Keys pane (1), continued`). PgDn / space and PgUp turn a page
 * (at a binding's first line), j/k scroll a line; esc, ? or q closes it.
 */
import { useMemo, useState } from 'react';
import { Box, Text } from 'ink';
import { useKeymap } from '../contexts/KeymapContext.js';
import { KEY_ACTIONS, SCOPE_TITLES, keyLabel, type KeyName, type Scope } from '../keymap.js';
import { displayWidth, fitWidth, wrapWords } from '../format.js';
import { theme } from '../theme.js';

/** Widest the keys column gets, cells; keys wider than the column take a line of their own. */
const MAX_KEYS_WIDTH = 20;

/** One line of the overlay. */
export interface HelpLine {
  readonly text: string;
  /** A section's title. */
  readonly title?: boolean;
  readonly dangerous?: boolean;
  /** The section it belongs to. */
  readonly scope: Scope;
  /** On a binding's first line: its number, from 0, in the order listed. */
  readonly binding?: number;
}

/** The bindings the overlay lists (every key action), in the order of its sections. */
export function helpBindingCount(): number {
  return (Object.keys(SCOPE_TITLES) as Scope[]).reduce((n, scope) => n + KEY_ACTIONS.filter((a) => a.scope === scope).length, 0);
}

/**
 * The overlay's lines at `width` cells: a title per scope, then `keys  description` rows, each
 * description wrapped at spaces under its own column (default: one line per row, unwrapped).
 */
export function helpLines(width = Number.POSITIVE_INFINITY): HelpLine[] {
  const lines: HelpLine[] = [];
  const keysOf = (keys: readonly KeyName[]) => keys.map(keyLabel).join(' / ');
  const keysWidth = Math.min(MAX_KEYS_WIDTH, Math.max(...KEY_ACTIONS.map((a) => displayWidth(keysOf(a.keys)))));
  const textWidth = Number.isFinite(width) ? Math.max(10, width - keysWidth - 3) : Number.POSITIVE_INFINITY;
  const indent = ' '.repeat(keysWidth + 3);
  let binding = 0;
  for (const scope of Object.keys(SCOPE_TITLES) as Scope[]) {
    const rows = KEY_ACTIONS.filter((a) => a.scope === scope);
    if (rows.length === 0) continue;
    if (lines.length > 0) lines.push({ text: '', scope });
    lines.push({ text: SCOPE_TITLES[scope], title: true, scope });
    for (const a of rows) {
      const keys = keysOf(a.keys);
      const mark = a.dangerous ? '!' : ' ';
      const dangerous = a.dangerous ?? false;
      const wrapped = Number.isFinite(textWidth) ? wrapWords(a.help ?? a.label, textWidth) : [a.help ?? a.label];
      const own = displayWidth(keys) > keysWidth;
      if (own) lines.push({ text: `${mark} ${keys}`, dangerous, scope, binding });
      wrapped.forEach((part, i) => {
        const first = i === 0 && !own;
        lines.push({ text: first ? `${mark} ${fitWidth(keys, keysWidth)} ${part}` : `${indent}${part}`, dangerous, scope, ...(first && { binding }) });
      });
      binding++;
    }
  }
  return lines;
}

/** The first line of the binding or section that line `index` is part of. */
function startOf(lines: readonly HelpLine[], index: number): number {
  let i = Math.max(0, Math.min(index, lines.length - 1));
  while (i > 0 && lines[i]!.binding === undefined && !lines[i]!.title && lines[i]!.text !== '') i--;
  return i;
}

/** A page's first line: not the blank before a title (the title itself). */
function pageStart(lines: readonly HelpLine[], i: number): number {
  return lines[i]?.text === '' && lines[i + 1]?.title ? i + 1 : i;
}

/**
 * The page of `lines` that starts at `start` in `room` rows: whether it needs the title of the
 * section it starts inside (`sticky`, one row), and how many lines it shows. It ends before a
 * binding it cannot show whole (unless that binding starts it), and never with a section's title
 * (or the blank before one) whose bindings are all on the next page.
 */
export function helpPage(lines: readonly HelpLine[], start: number, room: number): { sticky: boolean; count: number } {
  const first = lines[start];
  const sticky = first !== undefined && !first.title && !(first.text === '' && lines[start + 1]?.title);
  let count = Math.min(sticky ? room - 1 : room, lines.length - start);
  const cut = startOf(lines, start + count);
  if (start + count < lines.length && cut > start) count = cut - start;
  while (count > 1 && start + count < lines.length && (lines[start + count - 1]!.title || lines[start + count - 1]!.text === '')) count--;
  return { sticky, count };
}

/** Props of {@link HelpOverlay}. */
export interface HelpOverlayProps {
  readonly columns: number;
  readonly rows: number;
  /** The section to open at: the pane `?` was pressed on (default the first, Everywhere). */
  readonly scope?: Scope;
  readonly onClose: () => void;
}

/** Full-body overlay listing every key binding. */
export function HelpOverlay({ columns, rows, scope, onClose }: HelpOverlayProps) {
  const lines = useMemo(() => helpLines(columns - 4), [columns]);
  const total = useMemo(helpBindingCount, []);
  // Rows for lines: the border (2) and the header (1) aside; one more when the page needs the
  // title of the section it starts in.
  const room = Math.max(2, rows - 3);
  // j/k stop once the end is in view; a page (and the first one) may start further down, shorter.
  const maxOffset = Math.max(0, lines.length - room);
  const lastLine = Math.max(0, lines.length - 1);
  const [offset, setOffset] = useState(() => {
    const at = scope ? lines.findIndex((l) => l.title && l.scope === scope) : 0;
    return Math.min(lastLine, Math.max(0, at));
  });
  const clamped = Math.min(offset, lastLine);
  const { sticky, count } = helpPage(lines, clamped, room);
  const first = lines[clamped];
  const shown = lines.slice(clamped, clamped + count);
  const by = (delta: number) => setOffset((o) => Math.max(0, Math.min(Math.max(maxOffset, delta < 0 ? o : 0), o + delta)));
  const page = (direction: 1 | -1) =>
    setOffset((o) => {
      const from = Math.min(o, lastLine);
      /** Where PgDn goes from the page at `start`. */
      const after = (start: number) => pageStart(lines, startOf(lines, start + helpPage(lines, start, room).count));
      if (direction === 1) return from + helpPage(lines, from, room).count >= lines.length ? from : after(from);
      // The page before: the longest one whose PgDn comes back here.
      for (let start = Math.max(0, from - room); start < from; start++) {
        if (pageStart(lines, startOf(lines, start)) !== start) continue;
        if (after(start) >= from) return start;
      }
      return Math.max(0, pageStart(lines, startOf(lines, from - 1)));
    });
  useKeymap(
    'help',
    {
      'help.pageDown': () => page(1),
      'help.pageUp': () => page(-1),
      'help.down': () => by(1),
      'help.up': () => by(-1),
      'help.close': onClose,
    },
    { modal: true },
  );
  const numbers = shown.flatMap((l) => (l.binding !== undefined ? [l.binding + 1] : []));
  const range = numbers.length > 0 ? `${Math.min(...numbers)}–${Math.max(...numbers)}` : '—';
  return (
    <Box flexDirection="column" width={columns} height={rows} borderStyle="round" paddingX={1}>
      <Text bold>{fitWidth(`Key bindings ${range} of ${total} · PgDn next page · ! asks first`, columns - 4)}</Text>
      {sticky && first ? (
        <Text bold color={theme.accent}>
          {fitWidth(`${SCOPE_TITLES[first.scope]}, continued`, columns - 4)}
        </Text>
      ) : null}
      {shown.map((l, i) => (
        <Text key={i} bold={l.title ?? false} color={l.title ? theme.accent : l.dangerous ? theme.warning : undefined}>
          {fitWidth(l.text, columns - 4)}
        </Text>
      ))}
    </Box>
  );
}
