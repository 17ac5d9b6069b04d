/**
 * The selection and scroll window of a list (only the visible window is rendered): a pure
 * {@link windowOf} and a hook with the moves of the key conventions (j/k, PgUp/PgDn, g/G).
 *
 * The selection is a row's `id`, not its position: it stays on the same item when the list is
 * reloaded, re-sorted or filtered. When the item is gone from the list for good the row now at
 * its place (the nearest one) is selected; when a filter only hides it, the row at its place is
 * shown selected and the item is selected again once the filter lets it through. Across
 * reloads the selected row keeps its line on screen (the window moves with it).
 */
import { useCallback, useMemo, useReducer, useRef } from 'react';

/** A cursor (index of the selected row) and the index of the first visible row. */
export interface ListWindow {
  readonly cursor: number;
  readonly offset: number;
}

/**
 * Normalises a window for `count` rows of which `visible` fit: the cursor clamped to the
 * list, the offset moved as little as possible to keep the cursor in view.
 */
export function windowOf(cursor: number, offset: number, count: number, visible: number): ListWindow {
  if (count <= 0) return { cursor: 0, offset: 0 };
  const v = Math.max(1, visible);
  const c = Math.min(Math.max(0, cursor), count - 1);
  let o = Math.min(Math.max(0, offset), Math.max(0, count - v));
  if (c < o) o = c;
  else if (c >= o + v) o = c - v + 1;
  return { cursor: c, offset: o };
}

/** The list's window and its moves. */
export interface ListCursor extends ListWindow {
  readonly moveBy: (delta: number) => void;
  readonly moveTo: (index: number) => void;
  readonly top: () => void;
  readonly bottom: () => void;
  readonly pageDown: () => void;
  readonly pageUp: () => void;
  /** Selects the item with this id, now or as soon as it is in the list (e.g. after a reload). */
  readonly selectId: (id: string) => void;
}

/**
 * Where `sel` is in `list`: its item's row, else the row at its last place. When the item moved
 * (rows added or removed above it, another sort) the window moves with it, so the selected row
 * stays on the same screen line.
 */
function resolve(sel: Selection, list: readonly { readonly id: string }[], visible: number): ListWindow {
  const found = sel.id === undefined ? -1 : list.findIndex((r) => r.id === sel.id);
  if (found < 0) return windowOf(sel.index, sel.offset, list.length, visible);
  return windowOf(found, sel.offset + (found - sel.index), list.length, visible);
}

interface Selection {
  /** The selected item, undefined until the list has one. */
  id: string | undefined;
  /** Where it was last seen (the fallback when it is not in the rows). */
  index: number;
  offset: number;
  /** Asked for by {@link ListCursor.selectId} and not in the list yet: kept until it comes. */
  pending?: boolean;
}

/**
 * Selection state for `rows` with `visible` rows on screen. `exists(id)` tells whether an item
 * not among `rows` is still in the unfiltered list (hidden by a filter, not gone).
 */
export function useListCursor(rows: readonly { readonly id: string }[], visible: number, exists: (id: string) => boolean = () => false): ListCursor {
  const [, rerender] = useReducer((n: number) => n + 1, 0);
  // The live selection, updated at once by every move (two moves in one tick both count).
  const live = useRef<Selection>({ id: undefined, index: 0, offset: 0 });
  const dims = useRef({ rows, visible });
  dims.current = { rows, visible };

  // Where the selection is in these rows; a selected item gone for good gives way to the row at its place.
  const view = resolve(live.current, rows, visible);
  const shownId = rows[view.cursor]?.id;
  const sel = live.current;
  if (sel.pending && shownId === sel.id) sel.pending = false;
  const gone = sel.id !== undefined && shownId !== sel.id && !sel.pending && !rows.some((r) => r.id === sel.id) && !exists(sel.id);
  if (shownId !== undefined && (sel.id === undefined || gone)) sel.id = shownId;
  if (shownId === sel.id) sel.index = view.cursor;
  sel.offset = view.offset;

  const moveTo = useCallback((index: number) => {
    const { rows: list, visible: v } = dims.current;
    const cur = resolve(live.current, list, v);
    const next = windowOf(index, cur.offset, list.length, v);
    const id = list[next.cursor]?.id;
    if (id === live.current.id && next.offset === cur.offset && next.cursor === cur.cursor) return;
    live.current = { id: id ?? live.current.id, index: next.cursor, offset: next.offset };
    rerender();
  }, []);
  const moveBy = useCallback(
    (delta: number) => {
      const { rows: list, visible: v } = dims.current;
      moveTo(resolve(live.current, list, v).cursor + delta);
    },
    [moveTo],
  );
  const selectId = useCallback((id: string) => {
    live.current = { ...live.current, id, pending: true };
    rerender();
  }, []);

  const { cursor, offset } = view;
  return useMemo(
    () => ({
      cursor,
      offset,
      moveBy,
      moveTo,
      selectId,
      top: () => moveTo(0),
      bottom: () => moveTo(Number.MAX_SAFE_INTEGER),
      pageDown: () => moveBy(Math.max(1, dims.current.visible - 1)),
      pageUp: () => moveBy(-Math.max(1, dims.current.visible - 1)),
    }),
    [cursor, offset, moveBy, moveTo, selectId],
  );
}
