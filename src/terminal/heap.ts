/**
 * V8 tuning for the processes that stay open in a terminal (the TUI, `keydeck monitor`; issue 27).
 *
 * V8 grows its young generation (the semi-spaces where new objects live) under allocation, up to
 * 16 MB per semi-space, and keeps it: an Ink app that redraws a table every few seconds ends with
 * up to 2 × 16 MB of mostly empty young generation resident for the rest of its life (measured with
 * bench/memory.mjs: the TUI's new space went from 2 to 32 MB within a minute). Once start-up is
 * over, {@link keepYoungGenerationSmall} stops that growth (`--semi-space-growth-factor=1`: V8
 * reads it each time it considers growing, so it works at run time, unlike
 * `--max-semi-space-size`) and runs one memory-reducing collection, which gives back what start-up
 * grew. Not from the start: a 1 MB young generation while the bundle loads costs a third more
 * start-up time (GC). Scavenges then come more often but each costs less (only the live objects
 * of a small space are copied), which a process that mostly waits does not notice.
 *
 * Then, every {@link COLLECT_EVERY_MS}, one full collection: between V8's own (which wait for
 * the old generation to reach a limit that grows with it) a poller's garbage stays resident; over
 * 10 minutes at a 2 s interval the monitor grew from 93 to 106 MB without it. Each costs 10–30 ms
 * once a minute (about 0.03 % of a core).
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/** How long after it is asked the young generation is settled, ms: start-up (first frame, first answers) is over. */
export const SETTLE_AFTER_MS = 5_000;
/** Between two full collections after that, ms. */
export const COLLECT_EVERY_MS = 60_000;

let asked = false;

/**
 * In {@link SETTLE_AFTER_MS} ms (a timer that does not keep the process alive): stops V8 growing
 * its young generation and runs one memory-reducing full collection (a pause of a few ms), then
 * one full collection every {@link COLLECT_EVERY_MS} (timers that do not keep the process alive).
 * Idempotent. Never throws: a V8 without these flags keeps its defaults.
 */
export function keepYoungGenerationSmall(afterMs = SETTLE_AFTER_MS): void {
  if (asked) return;
  asked = true;
  setTimeout(() => {
    try {
      setFlagsFromString('--semi-space-growth-factor=1');
      // `gc` exists in a context made after --expose-gc is set; the main context stays without it.
      setFlagsFromString('--expose-gc');
      const gc = runInNewContext('gc') as (options?: object) => void;
      gc({ type: 'major', execution: 'sync', flavor: 'last-resort' });
      setInterval(() => gc({ type: 'major', execution: 'sync' }), COLLECT_EVERY_MS).unref();
    } catch {
      // Defaults kept.
    }
  }, afterMs).unref();
}
