/**
 * Cursor and scroll window of a list (only the visible window is rendered): a pure
 * {@link windowOf} and a hook with the moves of the key conventions (j/k, PgUp/PgDn, g/G).
 */
import { useCallback, useMemo, useRef, useState } from 'react';

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
}

/** Window state for a list of `count` rows with `visible` rows on screen. */
export function useListCursor(count: number, visible: number): ListCursor {
  const [raw, setRaw] = useState<ListWindow>({ cursor: 0, offset: 0 });
  const dims = useRef({ count, visible });
  dims.current = { count, visible };
  const view = windowOf(raw.cursor, raw.offset, count, visible);

  const moveTo = useCallback((index: number) => {
    setRaw((r) => {
      const { count: n, visible: v } = dims.current;
      const cur = windowOf(r.cursor, r.offset, n, v);
      const next = windowOf(index, cur.offset, n, v);
      return next.cursor === r.cursor && next.offset === r.offset ? r : next;
    });
  }, []);
  const moveBy = useCallback((delta: number) => {
    setRaw((r) => {
      const { count: n, visible: v } = dims.current;
      const cur = windowOf(r.cursor, r.offset, n, v);
      const next = windowOf(cur.cursor + delta, cur.offset, n, v);
      return next.cursor === r.cursor && next.offset === r.offset ? r : next;
    });
  }, []);

  return useMemo(
    () => ({
      ...view,
      moveBy,
      moveTo,
      top: () => moveTo(0),
      bottom: () => moveTo(Number.MAX_SAFE_INTEGER),
      pageDown: () => moveBy(Math.max(1, dims.current.visible - 1)),
      pageUp: () => moveBy(-Math.max(1, dims.current.visible - 1)),
    }),
    [view.cursor, view.offset, moveBy, moveTo],
  );
}
