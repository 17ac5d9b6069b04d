/**
 * Bad answers from the service, through the fault proxy, in a real terminal (80×24): bursts of
 * HTTP 503 (a short one absorbed by the client's retries of a GET, a longer one shown), a 200
 * whose body is not JSON, and a storm of 429 with Retry-After. Each time keydeck keeps running,
 * says what is wrong in words, keeps the last data on screen, and recovers by itself.
 */
import { describe, expect, it } from 'vitest';
import type { SeenRequest } from './fault-proxy.js';
import { waitForData } from './harness.js';
import { runFaultScenario, useRig } from './scenario.js';

const CREDITS = '/api/billing/credits';
const creditReads = (seen: readonly SeenRequest[]) => seen.filter((r) => r.path === CREDITS);

/** Resolves once `check()` is true (polled every 50 ms); throws after `timeoutMs`. */
async function until(check: () => boolean, what: string, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe.concurrent('bad answers', () => {
  it('a burst of two 503s is absorbed by the retries of the balance read: nothing alarming is shown', { timeout: 90_000 }, async (t) => {
    const rig = await useRig(t);
    const { app, proxy } = rig;
    await waitForData(app);
    await app.waitFor('online · updated');
    const before = app.output().length;
    const seenBefore = proxy.seen.length;
    // The balance read is the one under test: the watcher's other reads (usage) pass untouched.
    proxy.set({ kind: 'status', status: 503, count: 2, only: { path: CREDITS } });
    // The next poll meets both 503s, then its retry passes.
    await until(() => proxy.seen.slice(seenBefore).some((r) => r.fault === 'pass' && r.path === CREDITS), 'a balance read after the burst');
    await rig.sandbox.topUp(rig.account, 10);
    await app.waitFor('$35.00 left', 10_000);
    const burst = proxy.seen.slice(seenBefore).filter((r) => r.fault === 'status');
    expect(burst.map((r) => r.path)).toEqual([CREDITS, CREDITS]);
    const written = app.output().slice(before);
    expect(written).not.toContain('failing');
    expect(written).not.toContain('Offline');
  });

  it('a burst of 503s longer than the retries: says the service is failing, then recovers when the burst ends', { timeout: 90_000 }, async (t) => {
    await runFaultScenario(t, {
      // Three attempts of one balance read (the first try and two retries): one failed poll. The
      // watcher's other reads (usage) pass untouched: one of them must not take a 503 of the burst.
      begin: (rig) => rig.proxy.set({ kind: 'status', status: 503, count: 3, only: { path: CREDITS } }),
      end: () => {},
      banner: /✕ The service is failing \(HTTP 503\): showing the data from \d\d:\d\d:\d\d/,
      header: /service failing since \d\d:\d\d:\d\d/,
    });
  });

  it('a 200 whose body is not JSON: says the answers are unreadable', { timeout: 90_000 }, async (t) => {
    await runFaultScenario(t, {
      begin: (rig) => rig.proxy.set({ kind: 'malformed' }),
      end: (rig) => rig.proxy.pass(),
      banner: /✕ The service’s answers are unreadable: showing the data from \d\d:\d\d:\d\d/,
      header: /bad answers since \d\d:\d\d:\d\d/,
    });
  });

  it('a 429 storm: says it is rate limited and waits the Retry-After before asking again', { timeout: 90_000 }, async (t) => {
    const retryAfterSeconds = 3;
    await runFaultScenario(t, {
      begin: (rig) => rig.proxy.set({ kind: 'rate-limit', retryAfterSeconds }),
      end: (rig) => rig.proxy.pass(),
      banner: /⚠ Rate limited by the service: showing the data from \d\d:\d\d:\d\d/,
      header: '⚠ rate limited',
      during: async (rig) => {
        // Two refused reads in a row: the gap after the first is keydeck's wait.
        await until(() => creditReads(rig.proxy.seen).filter((r) => r.fault === 'rate-limit').length >= 2, 'a second read during the storm', 15_000);
        const limited = creditReads(rig.proxy.seen).filter((r) => r.fault === 'rate-limit');
        // The poll interval is 2 s: only Retry-After makes the gap 3 s (less a little for transit).
        expect(limited[1]!.at - limited[0]!.at).toBeGreaterThanOrEqual(retryAfterSeconds * 1000 - 100);
      },
    });
  });
});
