/**
 * A table for a window of rows: ink-table (the ESM fork `@alcalzone/ink-table`) extended where
 * it falls short (Library notes). A subclass of its `Table` keeps its frame (top
 * border, heading, separator, bottom border: its row builders and Header/Skeleton slots) and
 * overrides `getColumns`, `getHeadings` and `render`:
 * - only the rows it is given are rendered (the caller passes the visible window);
 * - column widths come from the caller (fitted to the terminal); cells are fitted by display
 *   width (string-width), not `String.length`, so wide characters line up;
 * - one separator under the heading instead of one between every row;
 * - the selected row is marked (the caller puts `▶` in its first cell; the row is drawn in
 *   inverse video) and cells may carry a colour;
 * - data rows are keyed by their slot in the window (no sha1 of every row on every render) and
 *   drawn by a memoised row that is ONE pre-styled `Text` ({@link DataRowText}: the whole line,
 *   its styles already in it) instead of ink-table's Box with two `Text` nodes per cell: every
 *   node and style run costs Ink work on each frame, and a scrolling move rewrites every row;
 * - the frame is drawn in the default colour (a grey `│` costs two style changes per cell on
 *   every row Ink rewrites: a third of the bytes of a scrolling move).
 */
import { memo, type ReactNode } from 'react';
import chalk from 'chalk';
import { Box, Text } from 'ink';
import { Table, type TableProps } from 'ink-table';
import { fitWidth } from '../format.js';
import { theme, type ThemeColor } from '../theme.js';

/** A column: `key` into the row, `title` in the heading, `width` of its content in cells (without padding). */
export interface DataColumn {
  readonly key: string;
  readonly title: string;
  readonly width: number;
  readonly align?: 'left' | 'right';
}

/** A row: display strings by column key. */
export type DataRow = Readonly<Record<string, string>>;

/** Props of {@link DataTable}. */
export interface DataTableProps {
  readonly columns: readonly DataColumn[];
  /** The visible window of rows only. */
  readonly rows: readonly DataRow[];
  /** Index in `rows` of the selected row, if it is in the window. */
  readonly selectedIndex?: number;
  /** Colour of a cell, by row index in `rows` and column key (meaning is also in its text). */
  readonly cellColor?: (rowIndex: number, columnKey: string) => ThemeColor;
  /** Shown instead of rows when `rows` is empty. */
  readonly emptyText?: string;
  /** Written into the bottom border at its right end (the selection's place in a long list, `12/46`). */
  readonly position?: string | undefined;
}

/** Cell padding on each side, in cells (ink-table's minimum). */
export const CELL_PADDING = 1;

/** Width in cells of a table with content `widths`: borders, padding and content. */
export function tableWidth(widths: readonly number[]): number {
  return widths.reduce((sum, w) => sum + w + 2 * CELL_PADDING + 1, 1);
}

function HeadingCell({ children }: { children?: ReactNode }) {
  return (
    <Text bold color={theme.accent}>
      {children}
    </Text>
  );
}

function Skeleton({ children }: { children?: ReactNode }) {
  return <Text>{children}</Text>;
}

type ColumnSpec = { key: string; width: number; align: 'left' | 'right' | 'center'; column: string };

type Row = Record<string, string>;

/** Props of the subclass: ink-table's own, plus the window's. */
type WindowedTableProps = Pick<TableProps<Row>, 'data'> &
  Partial<TableProps<Row>> & {
    readonly layout: readonly DataColumn[];
    readonly rows: readonly DataRow[];
    readonly selectedIndex?: number;
    readonly cellColor?: (rowIndex: number, columnKey: string) => ThemeColor;
    readonly emptyText?: string;
    readonly position?: string | undefined;
  };

/** `text` in `color` (an Ink colour name; chalk, as Ink's own colorize uses), or as it is. */
function painted(text: string, color: ThemeColor): string {
  if (!color) return text;
  const paint = (chalk as unknown as Record<string, ((s: string) => string) | undefined>)[color];
  return typeof paint === 'function' ? paint(text) : text;
}

/**
 * The line of a data row, styles included: `│ cell │ cell │`, each cell padded and in its
 * colour when it has one; the selected row in inverse from its first cell to its last (one
 * style run: fewer bytes each time the row is redrawn).
 */
export function rowLine(cells: readonly string[], selected: boolean, colors?: readonly ThemeColor[]): string {
  const pad = ' '.repeat(CELL_PADDING);
  let inner = '';
  for (let i = 0; i < cells.length; i++) inner += `${i === 0 ? '' : '│'}${painted(pad + cells[i]! + pad, colors?.[i])}`;
  return `│${selected ? chalk.inverse(inner) : inner}│`;
}

/**
 * A data row: one Ink `Text` holding the pre-styled line ({@link rowLine}), memoised on it, so a
 * cursor move re-renders only the rows whose text changed and each costs Ink one text node.
 */
const DataRowText = memo(function DataRowText({ line }: { readonly line: string }) {
  return <Text wrap="truncate">{line}</Text>;
});

/**
 * ink-table's bottom border for columns of `widths` (padding included) with ` label ` written
 * over its right end (left as it is when the label does not fit).
 */
export function bottomBorder(widths: readonly number[], label: string): string {
  const line = `└${widths.map((w) => '─'.repeat(w)).join('┴')}┘`;
  const text = ` ${label} `;
  const chars = [...line];
  if (text.length + 3 > chars.length) return line;
  chars.splice(chars.length - 2 - text.length, text.length, ...text);
  return chars.join('');
}

/** The ink-table subclass: see the module comment. Use {@link DataTable}. */
class WindowedTable extends Table<Row> {
  declare readonly props: Readonly<WindowedTableProps>;

  override getColumns(): ColumnSpec[] {
    return this.props.layout.map((c) => ({ key: c.key, column: c.key, width: c.width + 2 * CELL_PADDING, align: c.align ?? 'left' }));
  }

  override getHeadings(): Partial<Record<string, string>> {
    const headings: Record<string, string> = {};
    for (const c of this.props.layout) headings[c.key] = fitWidth(c.title, c.width);
    return headings;
  }

  /** Fits every value to its column by display width (ink-table would pad by `String.length`, and fail on overflow). */
  private fitRow(row: DataRow): string[] {
    return this.props.layout.map((c) => {
      const value = row[c.key] ?? '';
      return c.align === 'right' ? fitWidth(value, c.width).trimEnd().padStart(c.width) : fitWidth(value, c.width);
    });
  }

  override render() {
    const columns = this.getColumns() as unknown as Parameters<typeof this.header>[0]['columns'];
    const widths = this.props.layout.map((c) => c.width + 2 * CELL_PADDING);
    const { rows, selectedIndex, cellColor, emptyText } = this.props;
    return (
      <Box flexDirection="column">
        {this.header({ key: 'header', columns, data: {} })}
        {this.heading({ key: 'heading', columns, data: this.getHeadings() })}
        {this.separator({ key: 'separator', columns, data: {} })}
        {rows.length === 0 && emptyText ? <Text color={theme.muted}>{fitWidth(`│ ${emptyText}`, tableWidth(widths.map((w) => w - 2 * CELL_PADDING)))}</Text> : null}
        {rows.map((row, i) => (
          // Keyed by slot: scrolling updates text in place instead of remounting rows.
          <DataRowText key={`slot-${i}`} line={rowLine(this.fitRow(row), i === selectedIndex, cellColor ? this.props.layout.map((c) => cellColor(i, c.key)) : undefined)} />
        ))}
        {this.props.position === undefined ? this.footer({ key: 'footer', columns, data: {} }) : <Text>{bottomBorder(widths, this.props.position)}</Text>}
      </Box>
    );
  }
}

/**
 * A bordered table of the rows given (the visible window only), with the selected row marked.
 * Height: `rows.length` (or 1 for `emptyText`) + 4 lines of frame.
 */
export function DataTable(props: DataTableProps) {
  const { columns, ...rest } = props;
  return <WindowedTable {...rest} layout={columns} columns={columns.map((c) => c.key)} data={props.rows as Row[]} header={HeadingCell} skeleton={Skeleton} />;
}
