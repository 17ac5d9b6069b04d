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
 * 10 minutes at a 2 s interval the monitor grew from 93 to 106 MB without it. A plain one (the
 * TUI's) frees the garbage but keeps the pages: after 10 minutes the TUI's old generation held
 * 21 MB of pages for 13 MB of objects. A compacting one (V8's "last resort", two collections that
 * also move objects together and give the emptied pages back) brings that to 13.5 for 12.7, but
 * pauses for 50–80 ms instead of 10–30: the monitor, which nobody types into, takes it; the TUI
 * does not (a key pressed then would wait for it). Measured with bench/memory.mjs and V8's `gc`
 * performance entries; either costs under 0.15 % of a core.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/** How long after it is asked the young generation is settled, ms: start-up (first frame, first answers) is over. */
export const SETTLE_AFTER_MS = 5_000;
/** Between two full collections after that, ms. */
export const COLLECT_EVERY_MS = 60_000;

let asked = false;

/** Options of {@link keepYoungGenerationSmall}. */
export interface HeapSettleOptions {
  /** The periodic collection compacts and gives emptied pages back (pauses 50–80 ms: not while someone types). Default false. */
  readonly compacting?: boolean;
}

/**
 * In {@link SETTLE_AFTER_MS} ms (a timer that does not keep the process alive): stops V8 growing its young
 * generation and runs one memory-reducing full collection, then one full collection (compacting
 * with `compacting`) every {@link COLLECT_EVERY_MS} (timers that do not keep the process alive).
 * Idempotent. Never throws: a V8 without these flags keeps its defaults.
 */
export function keepYoungGenerationSmall({ compacting = false }: HeapSettleOptions = {}): void {
  if (asked) return;
  asked = true;
  setTimeout(() => {
    try {
      setFlagsFromString('--semi-space-growth-factor=1');
      // `gc` exists in a context made after --expose-gc is set; the main context stays without it.
      setFlagsFromString('--expose-gc');
      const gc = runInNewContext('gc') as (options?: object) => void;
      gc({ type: 'major', execution: 'sync', flavor: 'last-resort' });
      const periodic = compacting ? { type: 'major', execution: 'sync', flavor: 'last-resort' } : { type: 'major', execution: 'sync' };
      setInterval(() => gc(periodic), COLLECT_EVERY_MS).unref();
    } catch {
      // Defaults kept.
    }
  }, SETTLE_AFTER_MS).unref();
}

let baselineOnly = false;

/**
 * From now on V8 runs JavaScript in its interpreter and its baseline compiler (Ignition and
 * Sparkplug) only: no optimizing compiler (Maglev, Turbofan). For `keydeck monitor`, which redraws
 * one screen every few seconds and reads three keys (quit, refresh, read usage). The optimizing
 * compilers' memory (their code, their zones, the malloc arenas of the worker threads they compile
 * on, which glibc keeps) is most of what such a process gains after its first minute: 8–10 MB
 * less after 10 minutes at a 2 s interval, and no more CPU time (less: 3.5–3.6 s against
 * 3.7–3.9 s over 4 minutes, no compiling), bench/memory.mjs. Not for the TUI: there a key's frame
 * took 5 ms longer (bench/keystrokes.mjs, 10,000 keys). Called by the `monitor` command's action
 * before it loads anything else (code optimized until then stays; not from monitorCommand, which
 * tests run inside their shared workers). Idempotent; never throws (a V8 without these flags
 * keeps its defaults). Only these two work at run time: V8 decides at start whether it compiles
 * on worker threads (`--no-concurrent-recompilation` set later changes nothing, `--trace-opt`).
 */
export function keepToBaselineTiers(): void {
  if (baselineOnly) return;
  baselineOnly = true;
  try {
    setFlagsFromString('--no-opt');
    setFlagsFromString('--no-maglev');
  } catch {
    // Defaults kept.
  }
}
