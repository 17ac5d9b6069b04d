/**
 * src/terminal/heap.ts in a process of its own (its V8 flags are process-wide): after
 * `keepToBaselineTiers()` a hot function is never optimized (what keeps `keydeck monitor`'s
 * optimizing compilers, their code and their threads' malloc arenas out of its resident memory,
 * bench/memory.mjs), while the same function in a process that did not call it is.
 */
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const heap = fileURLToPath(new URL('../../src/terminal/heap.ts', import.meta.url));

/** V8's optimization status bits of a function made hot (2e5 calls) in a fresh node. */
function statusAfterHotLoop(callBaselineOnly: boolean): number {
  const script = `
    const { keepToBaselineTiers } = await import(${JSON.stringify(heap)});
    if (${callBaselineOnly}) keepToBaselineTiers();
    function sum(x) { let s = 0; for (let i = 0; i < 50; i++) s += (x * i) % 7; return s; }
    let total = 0;
    for (let i = 0; i < 200000; i++) total += sum(i);
    await new Promise((resolve) => setTimeout(resolve, 50)); // a concurrent compile lands
    for (let i = 0; i < 200000; i++) total += sum(i);
    console.log(%GetOptimizationStatus(sum));
  `;
  const out = execFileSync(process.execPath, ['--allow-natives-syntax', '--input-type=module', '--eval', script], { encoding: 'utf8' });
  return Number(out.trim());
}

// V8's OptimizationStatus (src/runtime/runtime.h): kOptimized, kMaglevved, kTurboFanned.
const OPTIMIZED = 1 << 4;
const MAGLEVVED = 1 << 5;
const TURBOFANNED = 1 << 6;

describe('keepToBaselineTiers', () => {
  it('keeps a hot function out of Maglev and Turbofan; without it the same function is optimized', () => {
    const control = statusAfterHotLoop(false);
    expect(control & OPTIMIZED, `status ${control}`).toBe(OPTIMIZED);
    const baseline = statusAfterHotLoop(true);
    expect(baseline & (OPTIMIZED | MAGLEVVED | TURBOFANNED), `status ${baseline}`).toBe(0);
  });
});
