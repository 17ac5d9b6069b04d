/**
 * Network faults between keydeck and the service, through the fault proxy, in a real terminal
 * (80×24): the upstream refusing connections (killed, then revived), connections reset, answers
 * held past keydeck's call deadline, and keydeck started while the service is down. Each time
 * keydeck keeps running, says "Offline" with the cause, keeps the last data on screen, and
 * recovers by itself when the fault ends. The scriptable commands meet held answers too: they
 * give up at KEYDECK_TIMEOUT_MS with exit 4.
 */
import { describe, expect, it } from 'vitest';
import { runCli } from '../credentials/harness.js';
import { CALL_TIMEOUT_MS, CREDIT_KEY_NAME, startUpstream, SUBSCRIPTION_KEY_NAME } from './harness.js';
import { runFaultScenario, useRig } from './scenario.js';

describe.concurrent('network faults', () => {
  it('upstream killed (connections refused), then revived', { timeout: 90_000 }, async (t) => {
    await runFaultScenario(t, {
      begin: (rig) => rig.proxy.kill(),
      end: (rig) => rig.proxy.revive(),
      banner: /✕ Offline: showing the data from \d\d:\d\d:\d\d/,
      header: /offline since \d\d:\d\d:\d\d/,
    });
  });

  it('connections reset', { timeout: 90_000 }, async (t) => {
    const rig = await runFaultScenario(t, {
      begin: (rig) => rig.proxy.set({ kind: 'reset' }),
      end: (rig) => rig.proxy.pass(),
      banner: /✕ Offline: showing the data from \d\d:\d\d:\d\d/,
      header: /offline since \d\d:\d\d:\d\d/,
    });
    expect(rig.proxy.seen.some((r) => r.fault === 'reset')).toBe(true);
  });

  it(`answers held past the call deadline (${CALL_TIMEOUT_MS} ms)`, { timeout: 90_000 }, async (t) => {
    const rig = await runFaultScenario(t, {
      begin: (rig) => rig.proxy.set({ kind: 'delay', ms: CALL_TIMEOUT_MS * 3 }),
      end: (rig) => rig.proxy.pass(),
      banner: /✕ Offline \(no answer in time\): showing the data from/,
      header: /offline since \d\d:\d\d:\d\d/,
    });
    expect(rig.proxy.seen.some((r) => r.fault === 'delay')).toBe(true);
  });

  it('started while the service is down: says so, then fills the screen by itself once it is back', { timeout: 90_000 }, async (t) => {
    const rig = await useRig(t, { beforeStart: (proxy) => proxy.kill() });
    const { app } = rig;
    await app.waitFor(/✕ Offline: retrying/, 15_000);
    await app.waitFor('could not load the keys');
    expect(app.screenText()).toMatch(/offline since \d\d:\d\d:\d\d/);

    await rig.proxy.revive();
    await app.waitFor(SUBSCRIPTION_KEY_NAME, 20_000);
    await app.waitFor(CREDIT_KEY_NAME, 5_000);
    await app.waitFor('$25.00 left', 5_000);
    await app.waitFor('online · updated', 5_000);
    const screen = app.screenText();
    expect(screen).not.toContain('could not load');
    expect(screen).not.toContain('Offline');
    // The Management keys pane recovered too.
    app.write('2');
    await app.waitFor('resilience', 5_000);
    expect(app.screenText()).not.toContain('could not load');
  });

  it('keydeck keys list against held answers gives up at KEYDECK_TIMEOUT_MS: exit 4 and the reason', { timeout: 90_000 }, async (t) => {
    const upstream = await startUpstream();
    t.onTestFinished(() => upstream.close());
    // Held longer than the client's default deadline (10 s): only KEYDECK_TIMEOUT_MS ends it sooner.
    upstream.proxy.set({ kind: 'delay', ms: 30_000 });
    const started = Date.now();
    const result = await runCli(['keys', 'list'], { env: upstream.env, timeoutMs: 40_000 });
    const elapsed = Date.now() - started;
    expect(result.code).toBe(4);
    expect(result.stderr).toContain(`did not answer within ${CALL_TIMEOUT_MS / 1000} s`);
    expect(result.stderr).not.toContain(upstream.managementKey);
    expect(elapsed).toBeGreaterThanOrEqual(CALL_TIMEOUT_MS);
    expect(elapsed).toBeLessThan(9_000);
  });
});
