/**
 * Screen layout by terminal size: 80×24 and above shows everything, down to 60×15 a compact
 * layout (fewer columns, details folded to one line), below that a "terminal too small" notice.
 */

/** Smallest terminal the app draws in, in cells. */
export const MIN_COLUMNS = 60;
/** Smallest terminal height the app draws in, in rows. */
export const MIN_ROWS = 15;
/** Size from which the full layout is used. */
export const FULL_COLUMNS = 80;
/** Height from which the full layout is used, in rows. */
export const FULL_ROWS = 24;

/** `full` (≥ 80×24), `compact` (≥ 60×15), or `too-small`. */
export type LayoutMode = 'full' | 'compact' | 'too-small';

/** The layout mode for a terminal of `columns` × `rows` cells. */
export function layoutModeFor(columns: number, rows: number): LayoutMode {
  if (columns < MIN_COLUMNS || rows < MIN_ROWS) return 'too-small';
  if (columns >= FULL_COLUMNS && rows >= FULL_ROWS) return 'full';
  return 'compact';
}

/** Cells available to a pane's body, after the shell's own lines. */
export interface PaneSize {
  readonly columns: number;
  readonly rows: number;
  readonly mode: Exclude<LayoutMode, 'too-small'>;
}

/** Lines a table frame takes besides its rows: top border, heading, separator, bottom border. */
export const TABLE_CHROME_ROWS = 4;
