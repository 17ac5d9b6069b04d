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
 *
 * Between those, a plain full collection as soon as the old generation has grown by
 * {@link OLD_GROWTH_LIMIT_BYTES} (looked at every {@link CHECK_EVERY_MS}). V8 lets the old
 * generation grow by at least 8 MB before it collects it (its minimum step, 2 MB only when it
 * optimizes for size, which costs far more: see the closing note of issue 27), and a poller's
 * answers outlive a scavenge or two of a small young generation, so they are promoted and die
 * old: at a 2 s interval `monitor` promoted about 6 MB a minute. Collecting after 1 MB keeps those
 * pages from being needed at all: −3 MB for `monitor`, −7 MB for the TUI after 10 minutes at 2 s
 * (bench/memory.mjs side by side; 2 MB gave −2 and −5), for about 10 % more CPU time at that
 * interval. The cost follows the garbage, not the clock: at the default 15 s interval a poll
 * promotes a few hundred KB and the once-a-minute collection comes first.
 */
import { getHeapSpaceStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/** How long after it is asked the young generation is settled, ms: start-up (first frame, first answers) is over. */
export const SETTLE_AFTER_MS = 5_000;
/** Between two full collections after that at the most, ms. */
export const COLLECT_EVERY_MS = 60_000;
/** How often the old generation's growth is looked at, ms. */
export const CHECK_EVERY_MS = 5_000;
/** Growth of the old generation since the last full collection that calls for one, bytes (V8's own step is at least 8 MB). */
export const OLD_GROWTH_LIMIT_BYTES = 1024 * 1024;

let asked = false;

/** Options of {@link keepYoungGenerationSmall}. */
export interface HeapSettleOptions {
  /** The periodic collection compacts and gives emptied pages back (pauses 50–80 ms: not while someone types). Default false. */
  readonly compacting?: boolean;
}

/**
 * In {@link SETTLE_AFTER_MS} ms (a timer that does not keep the process alive): stops V8 growing its young
 * generation and runs one memory-reducing full collection. Then, every {@link CHECK_EVERY_MS}, a
 * look at the old generation: one full collection when it grew by {@link OLD_GROWTH_LIMIT_BYTES}
 * since the last (not while someone types: {@link optimizeWhileTyping}), and one anyway every
 * {@link COLLECT_EVERY_MS} (compacting with `compacting`). Timers that do not keep the process
 * alive. Idempotent. Never throws: a V8 without these flags keeps its defaults.
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
      const oldUsed = (): number => getHeapSpaceStatistics().find((space) => space.space_name === 'old_space')?.space_used_size ?? 0;
      let usedAfter = 0;
      let collectedAt = 0;
      const collect = (options: object): void => {
        gc(options);
        usedAfter = oldUsed();
        collectedAt = Date.now();
      };
      const lastResort = { type: 'major', execution: 'sync', flavor: 'last-resort' };
      const plain = { type: 'major', execution: 'sync' };
      collect(lastResort);
      setInterval(() => {
        if (Date.now() - collectedAt >= COLLECT_EVERY_MS) collect(compacting ? lastResort : plain);
        else if (!someoneTypes() && oldUsed() - usedAfter >= OLD_GROWTH_LIMIT_BYTES) collect(plain);
      }, CHECK_EVERY_MS).unref();
    } catch {
      // Defaults kept.
    }
  }, SETTLE_AFTER_MS).unref();
}

/** Options of {@link keepToBaselineTiers}. */
export interface BaselineTiersOptions {
  /** Keys turn the optimizing compilers back on for a while ({@link optimizeWhileTyping}): the TUI. Default false. */
  readonly optimizeWhileTyping?: boolean;
}

/** What the process asked of V8's tiers; undefined: V8's defaults (the tests' workers). */
let tiers: { readonly optimizeWhileTyping: boolean } | undefined;

/**
 * From now on V8 runs JavaScript in its interpreter and its baseline compiler (Ignition and
 * Sparkplug) only: no optimizing compiler (Maglev, Turbofan), except, with
 * `optimizeWhileTyping`, while someone types ({@link optimizeWhileTyping}). For the processes left
 * open: `keydeck monitor` and the TUI ({@link tuneForMonitor}, {@link tuneForTui}). The optimizing
 * compilers' memory (their code, their zones, the malloc arenas of the worker threads they compile
 * on, which glibc keeps) is most of what such a process gains after its first minute: 8–12 MB
 * less after 10 minutes at a 2 s interval, and no more CPU time (no compiling offsets the slower
 * code), bench/memory.mjs. Called by the command's action before it loads anything else (code
 * optimized until then stays); never from code that tests run inside their shared workers.
 * Idempotent (the first call's options stand); never throws (a V8 without these flags keeps its
 * defaults). Only these two work at run time: V8 decides at start whether it compiles on worker
 * threads (`--no-concurrent-recompilation` set later changes nothing, `--trace-opt`).
 */
export function keepToBaselineTiers({ optimizeWhileTyping = false }: BaselineTiersOptions = {}): void {
  if (tiers) return;
  tiers = { optimizeWhileTyping };
  setOptimizingTiers(false);
}

/**
 * {@link keepToBaselineTiers}, and without the baseline compiler either (Sparkplug): V8's
 * interpreter alone, whatever keys arrive. For `keydeck monitor`, whose few functions run once
 * every few seconds: Sparkplug's code is about 1 MB of its resident memory after 10 minutes at a
 * 2 s interval, and without it the CPU time stays the same (5.8 s in both, bench/memory.mjs side
 * by side). Not for the TUI, whose first frame and typing run hotter code. Same conditions as
 * keepToBaselineTiers.
 */
export function keepToInterpreter(): void {
  keepToBaselineTiers();
  try {
    setFlagsFromString('--no-sparkplug');
  } catch {
    // Defaults kept.
  }
}

/**
 * The TUI's settings, from its action before anything else loads: the baseline tiers, the
 * optimizing compilers while someone types, and a small young generation with the old one
 * collected as it grows ({@link keepYoungGenerationSmall}; not compacting: a key would wait).
 */
export function tuneForTui(): void {
  keepToBaselineTiers({ optimizeWhileTyping: true });
  keepYoungGenerationSmall();
}

/**
 * `keydeck monitor`'s settings, from its action before anything else loads: the interpreter alone
 * ({@link keepToInterpreter}) and a small young generation with compacting collections (nobody
 * types into it, so their pauses wait for no one).
 */
export function tuneForMonitor(): void {
  keepToInterpreter();
  keepYoungGenerationSmall({ compacting: true });
}

/** How long the optimizing compilers stay on after the last key, ms ({@link optimizeWhileTyping}). */
export const TYPING_WINDOW_MS = 20_000;

let typingUntil = 0;
/** Set while the typing window is open. */
let typingTimer: NodeJS.Timeout | undefined;

/** Whether a key arrived within the typing window (in a process that asked for it). */
function someoneTypes(): boolean {
  return typingTimer !== undefined;
}

/**
 * A key arrived (the input layer calls it for every chunk the terminal sends): in a process that
 * asked for it ({@link keepToBaselineTiers} with `optimizeWhileTyping`: the TUI), turns the
 * optimizing compilers back on until {@link TYPING_WINDOW_MS} after the last key. Moving through
 * 10,000 keys, a frame costs Ink's renderer about twice as much without them
 * (bench/keystrokes.mjs: key → frame p50 8–9 ms against 16); the functions a key's frame runs are
 * hot after a few keys, so they are optimized at once. A TUI left open, which nobody types into,
 * stays at the baseline tiers. Does nothing elsewhere: `monitor` (its q, r and u), the tests'
 * workers. Never throws.
 */
export function optimizeWhileTyping(): void {
  if (!tiers?.optimizeWhileTyping) return;
  typingUntil = Date.now() + TYPING_WINDOW_MS;
  if (someoneTypes()) return;
  setOptimizingTiers(true);
  const check = (): void => {
    const left = typingUntil - Date.now();
    if (left > 0) {
      typingTimer = setTimeout(check, left).unref();
      return;
    }
    typingTimer = undefined;
    setOptimizingTiers(false);
  };
  typingTimer = setTimeout(check, TYPING_WINDOW_MS).unref();
}

function setOptimizingTiers(on: boolean): void {
  try {
    setFlagsFromString(on ? '--opt' : '--no-opt');
    setFlagsFromString(on ? '--maglev' : '--no-maglev');
  } catch {
    // Defaults kept.
  }
}
