/**
 * src/terminal/heap.ts in a process of its own (its V8 flags are process-wide): after
 * `keepToBaselineTiers()` a hot function is never optimized (what keeps `keydeck monitor`'s
 * optimizing compilers, their code and their threads' malloc arenas out of its resident memory,
 * bench/memory.mjs), while the same function in a process that did not call it is; and
 * `optimizeWhileTyping()` (the input layer calls it on every key) turns them back on until
 * TYPING_WINDOW_MS after the last key, then off again, in the TUI's mode only (not the monitor's,
 * not a test worker's); and keepYoungGenerationSmall's check
 * collects the old generation once it has grown by 1 MB (not less, not while someone types).
 */
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runInFreshNode } from '../fresh-node.js';

const heap = fileURLToPath(new URL('../../src/terminal/heap.ts', import.meta.url));

/** Script text: `hot(f)` calls f 4e5 times around a 50 ms pause (a concurrent compile lands), then gives V8's status of f. */
const HOT = `
  const realSetTimeout = globalThis.setTimeout;
  const hot = async (f) => {
    for (let i = 0; i < 200000; i++) f(i);
    await new Promise((resolve) => realSetTimeout(resolve, 50));
    for (let i = 0; i < 200000; i++) f(i);
    return %GetOptimizationStatus(f);
  };
`;

/** Runs `script` (an ES module, V8's natives syntax allowed) in a fresh node and parses what it prints. */
function runFresh<T>(script: string): T {
  return runInFreshNode<T>(script, ['--allow-natives-syntax']);
}

/** V8's optimization status bits of a function made hot (4e5 calls) in a fresh node. */
function statusAfterHotLoop(callBaselineOnly: boolean, interpreterOnly = false): number {
  return runFresh<number>(`
    const { keepToBaselineTiers, keepToInterpreter } = await import(${JSON.stringify(heap)});
    if (${interpreterOnly}) keepToInterpreter();
    else if (${callBaselineOnly}) keepToBaselineTiers();
    ${HOT}
    function sum(x) { let s = 0; for (let i = 0; i < 50; i++) s += (x * i) % 7; return s; }
    console.log(await hot(sum));
  `);
}

// V8's OptimizationStatus (src/runtime/runtime.h): kOptimized, kMaglevved, kTurboFanned.
const OPTIMIZED = 1 << 4;
const MAGLEVVED = 1 << 5;
const TURBOFANNED = 1 << 6;
const BASELINE = 1 << 15;

/**
 * The optimization status of three functions made hot in a fresh node: `before` before any key,
 * `typing` after a key, `after` once the typing window is over (the script takes the module's
 * timer and moves Date.now past the window, so nothing waits 20 s). `mode`: what the process
 * asked for, the TUI's (the baseline tiers, compilers while typing), the monitor's (the
 * interpreter alone), or nothing (a test worker).
 */
function statusesWhileTyping(mode: 'tui' | 'monitor' | 'none'): { before: number; typing: number; after: number } {
  return runFresh(`
    const timers = [];
    const heap = await import(${JSON.stringify(heap)});
    if (${JSON.stringify(mode)} === 'tui') heap.keepToBaselineTiers({ optimizeWhileTyping: true });
    if (${JSON.stringify(mode)} === 'monitor') heap.keepToInterpreter();
    ${HOT}
    function before(x) { let s = 0; for (let i = 0; i < 50; i++) s += (x * i) % 7; return s; }
    function typing(x) { let s = 0; for (let i = 0; i < 50; i++) s += (x * i) % 5; return s; }
    function after(x) { let s = 0; for (let i = 0; i < 50; i++) s += (x * i) % 3; return s; }
    const b = await hot(before);
    globalThis.setTimeout = (fn, ms) => { timers.push(fn); return { unref() { return this; } }; };
    heap.optimizeWhileTyping();
    globalThis.setTimeout = realSetTimeout;
    const t = await hot(typing);
    const now = Date.now;
    Date.now = () => now() + heap.TYPING_WINDOW_MS + 1;
    for (const fn of timers.splice(0)) fn();
    const a = await hot(after);
    console.log(JSON.stringify({ before: b, typing: t, after: a }));
  `);
}

describe('keepToBaselineTiers', () => {
  it('keeps a hot function out of Maglev and Turbofan; without it the same function is optimized', () => {
    const control = statusAfterHotLoop(false);
    expect(control & OPTIMIZED, `status ${control}`).toBe(OPTIMIZED);
    const baseline = statusAfterHotLoop(true);
    expect(baseline & (OPTIMIZED | MAGLEVVED | TURBOFANNED), `status ${baseline}`).toBe(0);
    expect(baseline & BASELINE, `status ${baseline}`).toBe(BASELINE);
  });

  it('keepToInterpreter (monitor) leaves a hot function in the interpreter: no baseline code either', () => {
    const status = statusAfterHotLoop(true, true);
    expect(status & (OPTIMIZED | MAGLEVVED | TURBOFANNED | BASELINE), `status ${status}`).toBe(0);
  });
});

describe('optimizeWhileTyping', () => {
  it('turns the optimizing compilers on while someone types, and off again after the typing window', () => {
    const s = statusesWhileTyping('tui');
    expect(s.before & OPTIMIZED, `before a key: status ${s.before}`).toBe(0);
    expect(s.typing & OPTIMIZED, `while typing: status ${s.typing}`).toBe(OPTIMIZED);
    expect(s.after & OPTIMIZED, `after the window: status ${s.after}`).toBe(0);
  });

  it('changes nothing in a process that did not ask for the baseline tiers (the tests\' workers)', () => {
    const s = statusesWhileTyping('none');
    expect(s.before & OPTIMIZED, `status ${s.before}`).toBe(OPTIMIZED);
    expect(s.after & OPTIMIZED, `after the window: status ${s.after}`).toBe(OPTIMIZED);
  });

  it('changes nothing in the monitor (its q, r and u): the interpreter alone, keys or not', () => {
    const s = statusesWhileTyping('monitor');
    expect(s.typing & (OPTIMIZED | BASELINE), `after a key: status ${s.typing}`).toBe(0);
  });
});

/**
 * Old-generation bytes in use before and after one look of keepYoungGenerationSmall's check, in a
 * fresh node (the script takes the module's timers and runs them itself: the settling
 * collection, then one check), after `promotedMb` MB of objects were promoted (kept through
 * scavenges) and dropped. `typing`: a key was just pressed in a process kept to the baseline tiers.
 */
function oldGenerationAroundCheck(promotedMb: number, typing = false): { before: number; after: number } {
  const script = `
    const v8 = await import('node:v8');
    const timeouts = [];
    const intervals = [];
    globalThis.setTimeout = (fn) => { timeouts.push(fn); return { unref() { return this; } }; };
    globalThis.setInterval = (fn) => { intervals.push(fn); return { unref() { return this; } }; };
    const heap = await import(${JSON.stringify(heap)});
    if (${typing}) { heap.keepToBaselineTiers({ optimizeWhileTyping: true }); heap.optimizeWhileTyping(); }
    heap.keepYoungGenerationSmall();
    timeouts.find((fn) => String(fn).includes('semi-space'))();
    const used = () => v8.getHeapSpaceStatistics().find((s) => s.space_name === 'old_space').space_used_size;
    let kept = [];
    const start = used();
    while (used() - start < ${promotedMb} * 1048576) {
      for (let i = 0; i < 1000; i++) kept.push({ i, text: 'row ' + i });
      for (let i = 0; i < 2000; i++) new Array(16).fill(i); // young garbage: scavenges promote what is kept
    }
    kept = null;
    const before = used();
    intervals[0]();
    console.log(JSON.stringify({ before, after: used() }));
  `;
  return runFresh(script);
}

describe('keepYoungGenerationSmall', () => {
  const MB = 1024 * 1024;

  it('collects the old generation once it has grown by 1 MB of promoted garbage', () => {
    const { before, after } = oldGenerationAroundCheck(3);
    expect(before - after, `old generation ${before} → ${after} bytes`).toBeGreaterThan(2 * MB);
  });

  it('leaves a smaller growth to V8, and any growth while someone types', () => {
    const small = oldGenerationAroundCheck(0.5);
    expect(small.before - small.after, `old generation ${small.before} → ${small.after} bytes`).toBeLessThan(0.25 * MB);
    const typing = oldGenerationAroundCheck(3, true);
    expect(typing.before - typing.after, `old generation ${typing.before} → ${typing.after} bytes`).toBeLessThan(0.25 * MB);
  });
});
