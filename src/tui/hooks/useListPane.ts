/**
 * Behaviour shared by the list panes (Keys, Management keys): filter by name as you type
 * (`/`, esc clears), the cursor window, and the selection kept by id when the list is reloaded,
 * re-sorted or filtered (hooks/useListCursor.ts). Binds the `list` and `filter` scopes of the key-action table.
 */
import { useMemo, useState } from 'react';
import { useTextField, type TextFieldHandle } from '../components/TextField.js';
import { useKeymap } from '../contexts/KeymapContext.js';
import { TABLE_CHROME_ROWS } from '../layout.js';
import { useListCursor, type ListCursor } from './useListCursor.js';

/** What a list pane lists: keys of either kind, found by `id`, filtered by `name`. */
export interface ListItem {
  readonly id: string;
  readonly name: string;
}

/** Arguments of {@link useListPane}. */
export interface UseListPaneArgs<T extends ListItem> {
  /** The whole list, already sorted (memoised by the caller). */
  readonly items: readonly T[];
  /** Rows of the pane left for the filter line and the table (the pane's rows minus its footer). */
  readonly bodyRows: number;
  /** The pane is shown and no dialog of it is open: list keys are bound. */
  readonly active: boolean;
}

/** What {@link useListPane} gives the pane. */
export interface ListPane<T> {
  /** `items` filtered by name (case-insensitive substring). */
  readonly rows: readonly T[];
  readonly cursor: ListCursor;
  /** The selected item, if any. */
  readonly selected: T | undefined;
  readonly filter: string;
  /** The filter's text field (typed into while {@link ListPane.filtering}). */
  readonly filterField: TextFieldHandle;
  /** The filter field has the keyboard. */
  readonly filtering: boolean;
  /** The filter line is shown (typing, or a filter is set). */
  readonly filterLine: boolean;
  /** Table rows that fit under the filter line (at least 1). */
  readonly visible: number;
  /** The rows in view: `rows` from the cursor's offset, `visible` long. */
  readonly window: readonly T[];
  readonly setFilter: (value: string) => void;
  /** Selects the item with this id as soon as it is in the list (e.g. after a reload). */
  readonly selectId: (id: string) => void;
}

/** See the module comment. */
export function useListPane<T extends ListItem>({ items, bodyRows, active }: UseListPaneArgs<T>): ListPane<T> {
  const [filter, setFilterState] = useState('');
  const filterField = useTextField('', { onChange: setFilterState });
  const setFilter = filterField.set;
  const [filtering, setFiltering] = useState(false);
  const lowered = useMemo(() => items.map((i) => i.name.toLowerCase()), [items]);
  const rows = useMemo(() => {
    const q = filter.trim().toLowerCase();
    if (q === '') return items;
    const out: T[] = [];
    for (let i = 0; i < items.length; i++) if (lowered[i]!.includes(q)) out.push(items[i]!);
    return out;
  }, [items, lowered, filter]);

  const filterLine = filtering || filter !== '';
  const visible = Math.max(1, bodyRows - TABLE_CHROME_ROWS - (filterLine ? 1 : 0));
  const ids = useMemo(() => new Set(items.map((i) => i.id)), [items]);
  const cursor = useListCursor(rows, visible, (id) => ids.has(id));
  const selected = rows[cursor.cursor];

  useKeymap(
    'list',
    {
      'list.down': () => cursor.moveBy(1),
      'list.up': () => cursor.moveBy(-1),
      'list.pageDown': cursor.pageDown,
      'list.pageUp': cursor.pageUp,
      'list.top': cursor.top,
      'list.bottom': cursor.bottom,
      'list.filter': () => setFiltering(true),
      'list.clearFilter': filter !== '' ? () => setFilter('') : undefined,
    },
    { active: active && !filtering },
  );
  useKeymap(
    'filter',
    {
      'filter.apply': () => setFiltering(false),
      'filter.clear': () => {
        setFilter('');
        setFiltering(false);
      },
    },
    { active: active && filtering, modal: true, textEntry: true },
  );

  return useMemo(
    () => ({
      rows,
      cursor,
      selected,
      filter,
      filterField,
      filtering,
      filterLine,
      visible,
      window: rows.slice(cursor.offset, cursor.offset + visible),
      setFilter,
      selectId: cursor.selectId,
    }),
    [rows, cursor, selected, filter, filterField, filtering, filterLine, visible, setFilter],
  );
}
