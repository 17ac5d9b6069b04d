/**
 * `keydeck exporter` as an SRE runs it for months, the built CLI detached from any
 * terminal against sandboxes on loopback: restarted during an outage it still serves the profile's
 * last poll time and balance (restored from history.db, `keydeck_balance_restored 1`) while
 * `/readyz` says 503 until the first poll ends; a `--token-dir` is read again on SIGHUP (a profile
 * added with its token file, a key rotated in place, a stray file said with "did you mean"); its
 * own reload and poll-duration metrics; `--log-level debug`; and every line it writes, start-up
 * errors too, in the chosen `--log-format`, a mistyped `--token-file` refused at start.
 */
import { chmodSync, mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { createServer as createNetServer, type Socket } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, type TempHome } from '../credentials/harness.js';
import { startTestSandbox, type TestSandbox } from '../sandbox/helpers.js';
import { exporterHome, killAll, sample, startExporter, until, writeConfig, managementKey } from './rig.js';

let shared: TestSandbox;
const homes: TempHome[] = [];

beforeAll(async () => {
  shared = await startTestSandbox({ host: '127.0.0.1' });
});
afterAll(async () => {
  killAll();
  await shared?.close();
  for (const h of homes) h.remove();
});

function home(): TempHome {
  const h = exporterHome();
  homes.push(h);
  return h;
}

/** A token directory of `h` (0700) with `files` (name → token, 0600). */
function tokenDir(h: TempHome, files: Record<string, string>): string {
  const dir = path.join(h.home, 'tokens');
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  for (const [name, token] of Object.entries(files)) writeToken(dir, name, token);
  return dir;
}

/** Writes a token file as an operator does (a new file renamed over the old one). */
function writeToken(dir: string, name: string, token: string): void {
  const tmp = path.join(dir, `.${name}.new`);
  writeFileSync(tmp, `${token}\n`, { mode: 0o600 });
  chmodSync(tmp, 0o600);
  renameSync(tmp, path.join(dir, name));
}

describe.concurrent('keydeck exporter for months', () => {
  it('restarted during an outage: the last poll time and balance restored (marked), /readyz 503 until the first poll ends', { timeout: 60_000 }, async () => {
    const h = home();
    const own = await startTestSandbox({ host: '127.0.0.1' });
    const prod = await managementKey(own, 25);
    const port = Number(new URL(own.url).port);
    writeConfig(h, { prod: { baseUrl: own.url, alertBelowUsd: 30 } });
    const first = await startExporter(h, ['--profile', 'prod', '--listen', '127.0.0.1:0', '--interval', '2'], { KEYDECK_TOKEN_PROD: prod.token });
    const before = await until(async () => {
      const t = await first.scrape();
      return sample(t, 'keydeck_up', { profile: 'prod' }) === 1 ? t : undefined;
    }, 'the first exporter polled');
    expect(sample(before, 'keydeck_balance_restored', { profile: 'prod' })).toBeUndefined();
    first.signal('SIGTERM');
    expect(await first.exited).toBe(0);
    const lastPoll = (await import('../../src/billing/historyStore.js')).BalanceHistoryStore.open({ path: path.join(h.home, 'data', 'history.db') });
    const readings = lastPoll.series('prod', new URL(own.url).origin).load(0);
    lastPoll.close();
    expect(readings.length).toBeGreaterThan(0);
    const last = readings.at(-1)!;

    // The outage: the service's port accepts connections and never answers, until the test ends
    // the poll (`cut`: every connection reset, as a service falling over): what is checked before
    // that is checked while the poll is surely in flight, whatever the machine's load.
    await own.close();
    const sockets: Socket[] = [];
    let cut = false;
    const silent = createNetServer((s) => (cut ? s.destroy() : sockets.push(s)));
    await new Promise<void>((resolve) => silent.listen(port, '127.0.0.1', resolve));
    try {
      // A long interval and deadline (a call's deadline is at most the interval): the poll ends when
      // the test cuts it, never on its own before the first scrape, however busy the machine.
      const held = ['--profile', 'prod', '--listen', '127.0.0.1:0', '--interval', '60'];
      const second = await startExporter(h, held, { KEYDECK_TOKEN_PROD: prod.token, KEYDECK_TIMEOUT_MS: '60000' });
      const ready = second.url.replace('/metrics', '/readyz');
      // At once, before any poll of this run has ended: the figures of the last reading, marked as restored.
      const restored = await second.scrape();
      expect(sample(restored, 'keydeck_last_successful_poll_timestamp_seconds', { profile: 'prod' })).toBe(Math.floor(last.t / 1000));
      expect(sample(restored, 'keydeck_balance_remaining_usd', { profile: 'prod' })).toBe(last.remaining);
      expect(sample(restored, 'keydeck_balance_total_top_up_usd', { profile: 'prod' })).toBe(25);
      expect(sample(restored, 'keydeck_balance_restored', { profile: 'prod' })).toBe(1);
      // keydeck_up from the first scrape: the last known state (up), and when the exporter first set out to read prod.
      expect(sample(restored, 'keydeck_up', { profile: 'prod' })).toBe(1);
      const firstAttempt = sample(restored, 'keydeck_first_poll_attempt_timestamp_seconds', { profile: 'prod' })!;
      expect(firstAttempt).toBeLessThanOrEqual(Math.floor(last.t / 1000));
      const notYet = await fetch(ready);
      expect(notYet.status).toBe(503);
      expect(await notYet.text()).toBe('not ready: not yet polled: prod\n');
      expect((await fetch(second.url.replace('/metrics', '/healthz'))).status).toBe(200);
      await second.waitForLog(/event=figures_restored profile=prod .*last_poll=\S+ age_seconds=\d+/);
      // The poll is under way (held by the silent service) and still not ready; then it fails:
      // down, and the restored figures stay (the stale and low-balance alerts keep their series).
      await until(() => sockets.length > 0, 'the poll under way');
      expect((await fetch(ready)).status).toBe(503);
      cut = true;
      for (const s of sockets.splice(0)) s.destroy();
      const down = await until(async () => {
        const t = await second.scrape();
        return sample(t, 'keydeck_up', { profile: 'prod' }) === 0 ? t : undefined;
      }, 'the profile down');
      expect(down).toContain('reason="unreachable"');
      expect(sample(down, 'keydeck_last_successful_poll_timestamp_seconds', { profile: 'prod' })).toBe(Math.floor(last.t / 1000));
      expect(sample(down, 'keydeck_balance_remaining_usd', { profile: 'prod' })).toBe(last.remaining);
      expect(sample(down, 'keydeck_balance_restored', { profile: 'prod' })).toBe(1);
      expect(sample(down, 'keydeck_poll_duration_seconds_count', { profile: 'prod' })).toBeGreaterThanOrEqual(1);
      expect((await fetch(ready)).status).toBe(200);
      const since = sample(down, 'keydeck_down_since_timestamp_seconds', { profile: 'prod', reason: 'unreachable' })!;
      expect(since).toBeGreaterThan(Math.floor(last.t / 1000) - 1);
      second.signal('SIGTERM');
      expect(await second.exited).toBe(0);

      // Restarted again in the middle of the outage: the outage's start and the first attempt are
      // served from the first scrape, as they were (the alerts written on them fire on time).
      cut = false;
      const third = await startExporter(h, held, { KEYDECK_TOKEN_PROD: prod.token, KEYDECK_TIMEOUT_MS: '60000' });
      const again = await third.scrape();
      expect(again).toContain(`keydeck_up{profile="prod",origin="${new URL(own.url).origin}",reason="unreachable"} 0`);
      expect(sample(again, 'keydeck_down_since_timestamp_seconds', { profile: 'prod', reason: 'unreachable' })).toBe(since);
      expect(sample(again, 'keydeck_first_poll_attempt_timestamp_seconds', { profile: 'prod' })).toBe(firstAttempt);
      await third.waitForLog(/event=state_restored profile=prod .*reason=unreachable down_since=\S+/);
      third.signal('SIGTERM');
      expect(await third.exited).toBe(0);
    } finally {
      for (const s of sockets) s.destroy();
      silent.close();
    }
  });

  it('/readyz stays ready when a reload adds a profile not polled yet (a service that never answers)', { timeout: 30_000 }, async () => {
    const h = home();
    const prod = await managementKey(shared, 25);
    const sockets: Socket[] = [];
    const silent = createNetServer((s) => sockets.push(s));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const silentUrl = `http://127.0.0.1:${(silent.address() as { port: number }).port}`;
    try {
      writeConfig(h, { prod: { baseUrl: shared.url } });
      const exporter = await startExporter(h, ['--all-profiles', '--listen', '127.0.0.1:0', '--interval', '5'], { KEYDECK_TOKEN_PROD: prod.token, KEYDECK_TOKEN_SLOW: prod.token });
      const ready = exporter.url.replace('/metrics', '/readyz');
      await until(async () => (await fetch(ready)).status === 200, 'ready');
      writeConfig(h, { prod: { baseUrl: shared.url }, slow: { baseUrl: silentUrl } });
      exporter.signal('SIGHUP');
      await exporter.waitForLog(/event=config_reloaded profiles=2 added=slow/);
      const after = await fetch(ready);
      expect(after.status).toBe(200);
      expect(await after.text()).toBe('ready: 1 of 2 profiles polled; added by a reload, not yet: slow\n');
      exporter.signal('SIGTERM');
      expect(await exporter.exited).toBe(0);
    } finally {
      for (const s of sockets) s.destroy();
      silent.close();
    }
  });

  it(
    'a config file from a newer keydeck: unknown fields said and ignored, the exporter runs after a restart; an invalid value refused on reload, and at start only its profile down',
    { timeout: 60_000 },
    async () => {
      const h = home();
      const prod = await managementKey(shared, 25);
      const env = { KEYDECK_TOKEN_PROD: prod.token };
      const config = { version: 1, telemetry: { enabled: false }, profiles: { prod: { baseUrl: shared.url, alertBelowUsd: 5, quietHours: '22-07' } } };
      writeConfig(h, {}, JSON.stringify(config));
      const flags = ['--all-profiles', '--listen', '127.0.0.1:0', '--interval', '2'];
      const first = await startExporter(h, flags, env);
      await until(async () => sample(await first.scrape(), 'keydeck_up', { profile: 'prod' }) === 1, 'prod up');
      await first.waitForLog(/level=warn event=config_unknown_field field=telemetry msg=".*does not know, \\"telemetry\\": ignored/);
      await first.waitForLog(/event=config_unknown_field field=profiles\.prod\.quietHours /);
      expect(sample(await first.scrape(), 'keydeck_exporter_config_unknown_fields', {})).toBe(2);
      first.signal('SIGTERM');
      expect(await first.exited).toBe(0);

      // --check-config says them and exits 0; the restarted exporter runs (it used to exit 2 and stay down).
      const cliEnv = h.env({ KEYDECK_DATA_DIR: path.join(h.home, 'data'), ...env });
      const checked = await runCli(['exporter', '--check-config', '--all-profiles'], { env: cliEnv });
      expect(checked.code).toBe(0);
      expect(checked.stderr).toMatch(/level=warn event=check check=config status=warn msg=".*\\"telemetry\\" is a field this keydeck does not know: ignored/);
      const second = await startExporter(h, flags, env);
      await until(async () => sample(await second.scrape(), 'keydeck_up', { profile: 'prod' }) === 1, 'prod up after the restart');

      // A profile with a value keydeck refuses: the reload is refused whole, the last good config kept.
      writeConfig(h, {}, JSON.stringify({ ...config, profiles: { ...config.profiles, bad: { baseUrl: shared.url, alertBelowUsd: 'ten' } } }));
      second.signal('SIGHUP');
      await second.waitForLog(/level=error event=config_rejected msg=".*profiles\.bad\.alertBelowUsd.*The last good config stays in use\."/);
      expect(sample(await second.scrape(), 'keydeck_up', { profile: 'bad' })).toBeUndefined();
      second.signal('SIGTERM');
      expect(await second.exited).toBe(0);

      // Started with it: prod watched as usual, bad down as config_invalid with what it breaks named; --check-config exits 1.
      const third = await startExporter(h, flags, env);
      const text = await until(async () => {
        const t = await third.scrape();
        return sample(t, 'keydeck_up', { profile: 'prod' }) === 1 ? t : undefined;
      }, 'prod up beside the refused profile');
      expect(text).toContain(`keydeck_up{profile="bad",origin="",reason="config_invalid"} 0`);
      expect(sample(text, 'keydeck_exporter_config_invalid_profiles', {})).toBe(1);
      await third.waitForLog(
        /level=error event=config_invalid_profile profile=bad msg=".*profiles\.bad\.alertBelowUsd.*Profile \\"bad\\" is served as keydeck_up\{reason=\\"config_invalid\\"\} 0 .*the other profiles are watched\."/,
      );
      third.signal('SIGTERM');
      expect(await third.exited).toBe(0);
      const again = await runCli(['exporter', '--check-config', '--all-profiles'], { env: cliEnv });
      expect(again.code).toBe(1);
      expect(again.stderr).toMatch(/level=error event=check check="profile bad" status=fail msg=".*alertBelowUsd/);
    },
  );

  it('--token-dir is read again on SIGHUP: a profile added with its file, a key rotated in place; a stray file said', { timeout: 60_000 }, async () => {
    const h = home();
    const prod = await managementKey(shared, 25);
    const dev = await managementKey(shared, 40);
    writeConfig(h, { prod: { baseUrl: shared.url } });
    const dir = tokenDir(h, { prod: prod.token, prdo: prod.token });
    const exporter = await startExporter(h, ['--all-profiles', '--listen', '127.0.0.1:0', '--interval', '2', '--token-dir', dir, '--log-level', 'debug']);
    await until(async () => sample(await exporter.scrape(), 'keydeck_up', { profile: 'prod' }) === 1, 'prod up from its token file');
    await exporter.waitForLog(/level=warn event=token_dir_unused msg=".*prdo in .* is read by no watched profile: did you mean \\"prod\\"\?"/);
    await exporter.waitForLog(/level=debug event=poll profile=prod .*result=ok duration_ms=\d+/);

    // A profile added to the config, its token file beside the others: a reload, no restart.
    writeConfig(h, { prod: { baseUrl: shared.url }, dev: { baseUrl: shared.url } });
    writeToken(dir, 'dev', dev.token);
    exporter.signal('SIGHUP');
    await exporter.waitForLog(/event=config_reloaded profiles=2 added=dev/);
    const both = await until(async () => {
      const t = await exporter.scrape();
      return sample(t, 'keydeck_up', { profile: 'dev' }) === 1 ? t : undefined;
    }, 'dev up from its token file');
    expect(sample(both, 'keydeck_balance_remaining_usd', { profile: 'dev' })).toBe(40);
    expect(sample(both, 'keydeck_exporter_config_reloads_total', { result: 'success' })).toBe(1);
    expect(sample(both, 'keydeck_exporter_config_last_reload_successful', {})).toBe(1);

    // prod's key rotated in place: the new key written to its file, a reload, then the old key deleted.
    const next = await shared.call<{ apiKey: string }>('POST', '/api/keys/management', { token: prod.session, body: { name: 'exporter 2' } });
    writeToken(dir, 'prod', next.body.apiKey);
    exporter.signal('SIGHUP');
    await exporter.waitForLog(/event=config_reloaded profiles=2/, 1);
    expect((await shared.call('DELETE', `/api/keys/management/${prod.id}`, { token: prod.session })).status).toBe(200);
    const polled = sample(await exporter.scrape(), 'keydeck_last_successful_poll_timestamp_seconds', { profile: 'prod' })!;
    await until(async () => sample(await exporter.scrape(), 'keydeck_last_successful_poll_timestamp_seconds', { profile: 'prod' })! > polled + 2, 'two more polls of prod');
    expect(exporter.stderr()).not.toMatch(/event=profile_down profile=prod/);

    // A config edited to nonsense: the reload refused, counted, said by its metric.
    writeConfig(h, {}, '{"version": 1, "profiles": {');
    exporter.signal('SIGHUP');
    await exporter.waitForLog(/event=config_rejected/);
    const refused = await exporter.scrape();
    expect(sample(refused, 'keydeck_exporter_config_last_reload_successful', {})).toBe(0);
    expect(sample(refused, 'keydeck_exporter_config_reloads_total', { result: 'failure' })).toBe(1);
    exporter.signal('SIGTERM');
    expect(await exporter.exited).toBe(0);
    for (const secret of [prod.token, dev.token, next.body.apiKey]) expect(exporter.stderr()).not.toContain(secret);
  });

  it('start-up errors in the chosen log format; a --token-file for a profile not watched exits 2 with "did you mean"', { timeout: 30_000 }, async () => {
    const h = home();
    const prod = await managementKey(shared, 10);
    writeConfig(h, { prod: { baseUrl: shared.url } });
    const env = h.env({ KEYDECK_DATA_DIR: path.join(h.home, 'data') });
    const file = path.join(h.home, 'prod.token');
    writeFileSync(file, prod.token, { mode: 0o600 });

    const typo = await runCli(['exporter', '--all-profiles', '--token-file', `prdo=${file}`], { env });
    expect(typo.code).toBe(2);
    expect(typo.stderr).toMatch(/^time=\S+ level=error event=token_file_unwatched msg="--token-file prdo=… names profile \\"prdo\\", which is not watched: did you mean \\"prod\\"\?"\n$/);
    const typoJson = await runCli(['exporter', '--all-profiles', '--log-format', 'json', '--token-file', `prdo=${file}`], { env });
    expect(typoJson.code).toBe(2);
    expect(JSON.parse(typoJson.stderr)).toMatchObject({ level: 'error', event: 'token_file_unwatched', msg: expect.stringContaining('did you mean "prod"?') });

    // The port in use.
    const running = await startExporter(h, ['--profile', 'prod', '--listen', '127.0.0.1:0', '--interval', '2'], { KEYDECK_TOKEN_PROD: prod.token });
    const port = new URL(running.url).port;
    const taken = await runCli(['exporter', '--listen', `127.0.0.1:${port}`, '--log-format', 'json'], { env });
    expect(taken.code).toBe(2);
    expect(taken.stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(JSON.parse(taken.stderr)).toMatchObject({
      level: 'error',
      event: 'listen_failed',
      msg: `cannot listen on 127.0.0.1:${port}: the port is in use (another exporter?); choose another with --listen HOST:PORT`,
    });
    running.signal('SIGTERM');
    expect(await running.exited).toBe(0);

    // A bad flag once the format is known, and a config file that is not JSON: one line each, in JSON.
    const badFlag = await runCli(['exporter', '--log-format', 'json', '--interval', '1'], { env });
    expect(badFlag.code).toBe(2);
    expect(JSON.parse(badFlag.stderr)).toMatchObject({ level: 'error', event: 'usage', msg: '--interval must be at least 2 seconds' });
    writeConfig(h, {}, '{"version": 1, "profiles": {');
    const broken = await runCli(['exporter', '--all-profiles', '--log-format', 'json'], { env });
    expect(broken.code).toBe(2);
    expect(JSON.parse(broken.stderr)).toMatchObject({ level: 'error', event: 'config_invalid', msg: expect.stringContaining('is not valid JSON') });
    const brokenText = await runCli(['exporter', '--all-profiles'], { env });
    expect(brokenText.stderr).toMatch(/^time=\S+ level=error event=config_invalid msg=".*is not valid JSON.*"\n$/);
    // commander's own usage errors too: every line a log line.
    const unknown = await runCli(['exporter', '--log-format', 'json', '--bogus'], { env });
    expect(unknown.code).toBe(2);
    const lines = unknown.stderr
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as { level: string; event: string; msg: string });
    expect(lines[0]).toMatchObject({ level: 'error', event: 'usage', msg: "unknown option '--bogus'." });
    expect(lines[1]).toMatchObject({ level: 'error', event: 'usage', msg: "See 'keydeck exporter --help'." });
    const text = await runCli(['exporter', '--log-level', 'loud'], { env });
    expect(text.code).toBe(2);
    for (const line of text.stderr.trimEnd().split('\n')) expect(line).toMatch(/^time=\S+ level=error event=usage msg=".*"$/);
  });
});
