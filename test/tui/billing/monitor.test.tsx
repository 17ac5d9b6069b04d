/**
 * `keydeck monitor`: the inline Ink view against the sandbox (figures, no alternate screen, the
 * bell written once per crossing, q leaves), the command's checks before anything is read or
 * sent, and the built CLI's usage errors.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MonitorSettings } from '../../../src/billing/settings.js';
import { monitorCommand } from '../../../src/commands/monitor.js';
import { CommandFailure } from '../../../src/commands/output.js';
import { runMonitor } from '../../../src/tui/panes/billing/monitor/runMonitor.js';
import { HistoryRecorder } from '../../../src/billing/historyRecorder.js';
import { AccountWatcher } from '../../../src/watcher/accountWatcher.js';
import { pollIntervalMs } from '../../../src/watcher/schedule.js';
import { runCli } from '../../credentials/harness.js';
import { startTestSandbox, type TestSandbox } from '../harness.js';
import { FakeStdin, FakeStdout } from '../render.js';
import { spend } from './billingHarness.js';

let sandbox: TestSandbox;
let configDir: string;
beforeAll(async () => {
  sandbox = await startTestSandbox();
  configDir = mkdtempSync(path.join(tmpdir(), 'keydeck-monitor-'));
});
afterAll(async () => {
  await sandbox?.close();
  rmSync(configDir, { recursive: true, force: true });
});

/** The shell's fake stdout, calling write callbacks as a real stream does (Ink waits on one at unmount). */
class StreamStdout extends FakeStdout {
  override write = (chunk: string, callback?: unknown): boolean => {
    this.frames.push(chunk);
    if (typeof callback === 'function') queueMicrotask(() => (callback as () => void)());
    return true;
  };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const plain = (s: string) => s.replace(/\x1b\[[0-9;?]*[A-Za-z]/g, '');

/** The watcher's reading once `test` holds of it (the next one it takes after `watcher.refresh()`, say). */
async function reading(watcher: AccountWatcher, test: (remaining: number) => boolean = () => true): Promise<number> {
  await until(() => watcher.snapshot.poll.data !== undefined && test(watcher.snapshot.poll.data.remaining), 'a reading');
  return watcher.snapshot.poll.data!.remaining;
}

async function until(test: () => boolean, what: string, timeoutMs = 8000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!test()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

describe('the monitor view', () => {
  it('draws the live figures inline, rings once per crossing, and leaves on q', async () => {
    const token = await sandbox.fundedUser(25);
    const client = sandbox.client(token);
    const stdout = new StreamStdout(100, 30);
    const stdin = new FakeStdin();
    const settings: MonitorSettings = { baseUrl: sandbox.url, profileName: 'test', intervalSeconds: 2, alertBelowUsd: 20, credentialLabel: 'session token (env)' };
    const watcher = new AccountWatcher({ connect: () => ({ client }), intervalMs: pollIntervalMs(settings.intervalSeconds), alertBelowUsd: settings.alertBelowUsd });
    watcher.start();
    const done = runMonitor({
      settings,
      watcher,
      stdout: stdout as unknown as NodeJS.WriteStream,
      stdin: stdin as unknown as NodeJS.ReadStream,
    });
    const output = () => plain(stdout.frames.join(''));
    const bells = () => stdout.frames.join('').split('\x07').length - 1;
    try {
      await until(() => output().includes('remaining $25.00'), 'the first figures');
      expect(output()).toContain('every 2 s');
      expect(output()).toContain('total top-ups $25.00');
      expect(bells()).toBe(0);
      await spend(sandbox, token, 10);
      stdin.write('r');
      await until(() => output().includes('remaining $15.00'), 'the balance after spending');
      expect(output()).toContain('LOW: below $20.00');
      expect(bells()).toBe(1);
      stdin.write('r');
      await sleep(300);
      await spend(sandbox, token, 1);
      stdin.write('r');
      await until(() => output().includes('remaining $14.00'), 'a later poll');
      expect(bells()).toBe(1);
    } finally {
      stdin.write('q');
    }
    expect(await done).toBe(0);
    await watcher.stop();
    // Inline: never the alternate screen.
    expect(stdout.frames.join('')).not.toContain('\x1b[?1049h');
    client.close();
  });
});

describe('keydeck monitor (command)', () => {
  const render = async () => 0;

  it('refuses a bad --interval or --alert-below, and a missing terminal, with exit 2 and nothing read', async () => {
    for (const [flags, text] of [
      [{ interval: '1' }, 'at least 2 seconds'],
      [{ interval: 'soon' }, 'number of seconds'],
      [{ alertBelow: 'ten' }, 'amount in USD'],
    ] as const) {
      const error = await monitorCommand({}, flags, { render, isTerminal: true }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(CommandFailure);
      expect((error as CommandFailure).exitCode).toBe(2);
      expect((error as Error).message).toContain(text);
    }
    const error = await monitorCommand({}, {}, { render, isTerminal: false }).catch((e: unknown) => e);
    expect((error as CommandFailure).exitCode).toBe(2);
    expect((error as Error).message).toContain('needs a terminal');
  });

  it('runs with the flags over the profile, the credential from KEYDECK_TOKEN, and a working client', async () => {
    const token = await sandbox.fundedUser(25);
    let seen: { settings: MonitorSettings; remaining: number } | undefined;
    const code = await monitorCommand(
      { baseUrl: sandbox.url },
      { interval: '5', alertBelow: '$12.50' },
      {
        isTerminal: true,
        session: { env: { KEYDECK_TOKEN: token, KEYDECK_CONFIG_DIR: configDir, KEYDECK_DATA_DIR: configDir } },
        render: async ({ settings, watcher }) => {
          seen = { settings, remaining: await reading(watcher) };
          return 0;
        },
      },
    );
    expect(code).toBe(0);
    expect(seen!.settings).toMatchObject({ intervalSeconds: 5, alertBelowUsd: 12.5, baseUrl: sandbox.url, credentialLabel: 'session token (env)' });
    expect(seen!.remaining).toBe(25);
    expect(JSON.stringify(seen!.settings)).not.toContain(token);
  });

  it('the built CLI exits 2 for --interval below 2 s and when not on a terminal', async () => {
    const env = { ...process.env, KEYDECK_CONFIG_DIR: configDir, KEYDECK_TOKEN: 'mk_testtesttest', KEYDECK_BASE_URL: sandbox.url };
    const bad = await runCli(['monitor', '--interval', '1'], { env, timeoutMs: 20_000 });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--interval must be at least 2 seconds');
    const noTty = await runCli(['monitor'], { env, timeoutMs: 20_000 });
    expect(noTty.code).toBe(2);
    expect(noTty.stderr).toContain('needs a terminal');
  });
});

describe('keydeck monitor --metrics', () => {
  it('serves the figures as Prometheus text on loopback: balance, keys, expiry, burn rates, last poll, errors by code', async () => {
    const token = await sandbox.fundedUser(25);
    const api = sandbox.client(token);
    await api.keys.createCredit({ name: 'ci' });
    let scraped = '';
    let notFound = 0;
    const code = await monitorCommand(
      { baseUrl: sandbox.url },
      { interval: '5', metrics: '127.0.0.1:0' },
      {
        isTerminal: true,
        session: { env: { KEYDECK_TOKEN: token, KEYDECK_CONFIG_DIR: configDir, KEYDECK_DATA_DIR: configDir } },
        render: async ({ watcher, metricsUrl }) => {
          await reading(watcher);
          await spend(sandbox, token, 2);
          watcher.refresh();
          await reading(watcher, (remaining) => remaining === 23);
          notFound = (await fetch(metricsUrl!.replace('/metrics', '/other'))).status;
          // The key list is read in the background: scrape until it is in.
          for (let i = 0; i < 50; i++) {
            scraped = await (await fetch(metricsUrl!)).text();
            if (/keydeck_active_keys\{[^}]*key_type="credit"\} 1/.test(scraped)) break;
            await sleep(100);
          }
          return 0;
        },
      },
    );
    expect(code).toBe(0);
    expect(notFound).toBe(404);
    const origin = new URL(sandbox.url).origin;
    const labels = `profile="default",origin="${origin}"`;
    expect(scraped).toContain(`keydeck_balance_remaining_usd{${labels}} 23`);
    expect(scraped).toContain(`keydeck_balance_total_top_up_usd{${labels}} 25`);
    expect(scraped).toContain(`keydeck_active_keys{${labels},key_type="credit"} 1`);
    expect(scraped).toContain(`keydeck_active_keys{${labels},key_type="subscription"} 0`);
    expect(scraped).toContain(`keydeck_up{${labels}} 1`);
    expect(scraped).toMatch(/keydeck_last_successful_poll_timestamp_seconds\{[^}]*\} \d{10}/);
    expect(scraped).toContain('# TYPE keydeck_poll_errors_total counter');
    expect(scraped).toContain('# TYPE keydeck_burn_rate_usd_per_second gauge');
    expect(scraped).toMatch(/^keydeck_build_info\{version="[^"]+",node_version="v\d+/m);
    // A bad address is refused before anything is read.
    const bad = await monitorCommand({ baseUrl: sandbox.url }, { metrics: 'localhost' }, { render: async () => 0, isTerminal: true }).catch((e: unknown) => e);
    expect((bad as CommandFailure).exitCode).toBe(2);
  });
});

describe('the monitor with a history on disk', () => {
  it('shows the burn rates and the run-out before its first read answers', async () => {
    const { BalanceHistoryStore } = await import('../../../src/billing/historyStore.js');
    const store = BalanceHistoryStore.open({ path: path.join(configDir, 'monitor-history.db') });
    const series = store.series('test', 'https://api.example.com');
    const now = Date.now();
    const readings = [];
    for (let t = now - 3 * 3_600_000; t < now; t += 15_000) readings.push({ t, remaining: Math.round((100 - (t - (now - 3 * 3_600_000)) / 3_600_000) * 1e6) / 1e6, totalTopUp: 100 });
    series.appendMany(readings);
    const stdout = new StreamStdout(100, 30);
    const stdin = new FakeStdin();
    const settings: MonitorSettings = { baseUrl: 'https://api.example.com', profileName: 'test', intervalSeconds: 60, credentialLabel: 'session token (env)' };
    // A read that never answers: whatever shows comes from the history.
    const silent = { billing: { credits: ({ signal }: { signal?: AbortSignal } = {}) => new Promise<never>((_, reject) => signal?.addEventListener('abort', () => reject(new Error('aborted')))) } };
    const watcher = new AccountWatcher({ connect: () => ({ client: silent }), intervalMs: pollIntervalMs(settings.intervalSeconds), history: (onError) => new HistoryRecorder({ series, onError }) });
    watcher.start();
    const done = runMonitor({
      settings,
      watcher,
      stdout: stdout as unknown as NodeJS.WriteStream,
      stdin: stdin as unknown as NodeJS.ReadStream,
    });
    const output = () => plain(stdout.frames.join(''));
    try {
      await until(() => /burn 15 min \$(0\.9\d|1\.00)\/h/.test(output()), 'the rates from the history');
      expect(output()).toContain('reading the balance…');
      expect(output()).toMatch(/runs out in \d d \d+ h .*\(last known balance\)/);
    } finally {
      stdin.write('q');
      await done;
      await watcher.stop();
      store.close();
    }
  });
});
