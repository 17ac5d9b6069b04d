/**
 * One full repaint once a resize storm is over. Ink re-lays out at once on every resize, but it
 * draws only the lines that changed since its last frame, positioned relative to the cursor.
 * While the window is being dragged, some frames reach the terminal after its size has changed
 * again (wrapped, clipped or reflowed there), so what Ink believes is on screen drifts from what
 * is; later frames build on that garbage (seen as stray rows of an older, narrower layout after
 * a 60×15 ↔ 200×60 storm). When no resize has come for `settleMs`, the whole screen is erased
 * and the frame drawn again from the top-left corner.
 */

/** Quiet time after the last resize before the full repaint, ms. */
export const RESIZE_SETTLE_MS = 150;

/** Cursor home, then erase to the end of the screen (the same sequence Ink uses for its own full clears). */
export const ERASE_SCREEN = '\x1b[H\x1b[J';

/** Options of {@link repaintAfterResize}. */
export interface RepaintAfterResizeOptions {
  /** The terminal's output stream (emits `resize`). */
  readonly stdout: NodeJS.WriteStream;
  /** Erases and redraws everything (see run.tsx: Ink's clear, {@link ERASE_SCREEN}, a re-render). */
  readonly repaint: () => void;
  /** Default {@link RESIZE_SETTLE_MS}. */
  readonly settleMs?: number;
}

/** Calls `repaint` once `settleMs` after the last `resize` of `stdout`; returns the stop function. */
export function repaintAfterResize({ stdout, repaint, settleMs = RESIZE_SETTLE_MS }: RepaintAfterResizeOptions): () => void {
  let timer: NodeJS.Timeout | undefined;
  const onResize = () => {
    if (timer) clearTimeout(timer);
    timer = setTimeout(() => {
      timer = undefined;
      repaint();
    }, settleMs);
  };
  stdout.on('resize', onResize);
  return () => {
    if (timer) clearTimeout(timer);
    timer = undefined;
    stdout.off('resize', onResize);
  };
}
