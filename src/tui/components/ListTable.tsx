/**
 * The body of a list pane (Keys, Management keys): the filter line over the table of the rows in
 * view (hooks/useListPane.ts), the selected row marked, one column coloured by the item's state,
 * and a sentence in place of rows while the list loads, fails, is empty or matches nothing.
 */
import { Box } from 'ink';
import type { ResourceState } from '../hooks/useResource.js';
import type { ListItem, ListPane } from '../hooks/useListPane.js';
import { describeFailure } from '../errors.js';
import type { ThemeColor } from '../theme.js';
import { DataTable, type DataColumn, type DataRow } from './DataTable.js';
import { FilterLine } from './FilterLine.js';

/** Props of {@link ListTable}. */
export interface ListTableProps<T extends ListItem> {
  readonly list: ListPane<T>;
  /** Items before filtering (the "N of M" of the filter line). */
  readonly total: number;
  readonly columns: readonly DataColumn[];
  /** Width of the pane, in cells. */
  readonly width: number;
  /** The table row of `item`; `selected` when the cursor is on it. */
  readonly rowOf: (item: T, selected: boolean) => DataRow;
  /** Colour of the `status` column of `item` (its meaning is in the text too). */
  readonly statusColor: (item: T) => ThemeColor | undefined;
  /** Shown instead of rows: see {@link listEmptyText}. */
  readonly emptyText: string;
}

/** See the module comment. */
export function ListTable<T extends ListItem>({ list, total, columns, width, rowOf, statusColor, emptyText }: ListTableProps<T>) {
  const { window, cursor } = list;
  return (
    <>
      <FilterLine field={list.filterField} filtering={list.filtering} shown={list.rows.length} total={total} columns={width} />
      <Box flexGrow={1} flexDirection="column">
        <DataTable
          columns={columns}
          rows={window.map((item, i) => rowOf(item, cursor.offset + i === cursor.cursor))}
          selectedIndex={cursor.cursor - cursor.offset}
          cellColor={(i, col) => (col === 'status' && window[i] ? statusColor(window[i]) : undefined)}
          emptyText={emptyText}
          position={list.rows.length > list.visible ? `${cursor.cursor + 1}/${list.rows.length}` : undefined}
        />
      </Box>
    </>
  );
}

/**
 * The sentence in place of rows: loading, could not load (why), none yet (`none`), or no match.
 * `what` names the list ("the keys", "the management keys").
 */
export function listEmptyText(resource: Pick<ResourceState<readonly unknown[]>, 'data' | 'error'>, what: string, none: string): string {
  if (resource.data === undefined) {
    return resource.error !== undefined ? `could not load ${what}: ${describeFailure(resource.error)}` : `loading ${what}…`;
  }
  return resource.data.length === 0 ? none : 'no key matches the filter';
}
