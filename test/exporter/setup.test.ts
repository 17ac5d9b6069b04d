/**
 * Whether an exporter would run clean, as an SRE asks before `systemctl start`: `keydeck
 * exporter --check-config` (offline, in log lines: 0 clean, 1 a profile would be down, 2 it would
 * not start) and `keydeck doctor --exporter` with the exporter's own flags (each profile's token file
 * by owner, mode and key shape, one authenticated read per profile, the history, the listen
 * address: exit 0 only when the exporter would run clean). The built CLI against a sandbox.
 */
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, type TempHome } from '../credentials/harness.js';
import { startTestSandbox, type TestSandbox } from '../sandbox/helpers.js';
import { exporterHome, writeConfig } from './rig.js';

let sandbox: TestSandbox;
const homes: TempHome[] = [];
beforeAll(async () => {
  sandbox = await startTestSandbox({ host: '127.0.0.1' });
});
afterAll(async () => {
  await sandbox?.close();
  for (const h of homes) h.remove();
});

/** A home whose token directory holds `files` (name → [token, mode]). */
function setup(files: Record<string, [string, number]>): { h: TempHome; dir: string; env: NodeJS.ProcessEnv } {
  const h = exporterHome();
  homes.push(h);
  const dir = path.join(h.home, 'tokens');
  mkdirSync(dir, { mode: 0o700 });
  for (const [name, [token, mode]] of Object.entries(files)) {
    writeFileSync(path.join(dir, name), `${token}\n`, { mode });
    chmodSync(path.join(dir, name), mode);
  }
  return { h, dir, env: h.env({ KEYDECK_DATA_DIR: path.join(h.home, 'data') }) };
}

async function managementKey(): Promise<string> {
  const session = await sandbox.fundedUser(25);
  return (await sandbox.call<{ apiKey: string }>('POST', '/api/keys/management', { token: session, body: { name: 'exporter' } })).body.apiKey;
}

describe('an exporter setup, checked before it runs', () => {
  it('clean: both checks pass and exit 0; doctor reads each profile once', { timeout: 30_000 }, async () => {
    const token = await managementKey();
    const { h, dir, env } = setup({ prod: [token, 0o600] });
    writeConfig(h, { prod: { baseUrl: sandbox.url } });
    const check = await runCli(['exporter', '--all-profiles', '--token-dir', dir, '--check-config'], { env });
    expect(check.code, check.stderr).toBe(0);
    expect(check.stdout).toBe('');
    expect(check.stderr).toMatch(/level=info event=check check="profile prod" status=ok msg=".*management key mk_\w{8}… from the token file .*tokens\/prod/);
    expect(check.stderr).toMatch(/event=check_done result=clean\n$/);
    const doctor = await runCli(['doctor', '--exporter', '--all-profiles', '--token-dir', dir, '--listen', '127.0.0.1:0'], { env });
    expect(doctor.code, doctor.stdout + doctor.stderr).toBe(0);
    expect(doctor.stdout).toMatch(/^ok +profile prod +.*: the balance reads \$25\.00$/m);
    expect(doctor.stdout).toMatch(/^ok +history /m);
    expect(doctor.stdout).toMatch(/^ok +listen +127\.0\.0\.1:0 can be listened on$/m);
    for (const out of [check.stdout, check.stderr, doctor.stdout, doctor.stderr]) expect(out).not.toContain(token);
  });

  it('what would leave a profile down: no service, no credential, a token file others can read, an sk_ key, a refused key', { timeout: 30_000 }, async () => {
    const { h, dir, env } = setup({ open: [await managementKey(), 0o644], sk: ['sk_AbCdEfGh1234567890abcdef', 0o600], refused: ['mk_NotARealKeyAtAll00000000', 0o600] });
    writeConfig(h, { nobase: {}, missing: { baseUrl: sandbox.url }, open: { baseUrl: sandbox.url }, sk: { baseUrl: sandbox.url }, refused: { baseUrl: sandbox.url } });
    const check = await runCli(['exporter', '--all-profiles', '--token-dir', dir, '--check-config', '--log-format', 'json'], { env });
    expect(check.code).toBe(1);
    const lines = check.stderr
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as { check?: string; status?: string; msg?: string; event: string; result?: string });
    const status = Object.fromEntries(lines.filter((l) => l.check).map((l) => [l.check, l.status]));
    // Offline: the refused key is not asked about.
    expect(status).toMatchObject({ config: 'ok', 'profile nobase': 'fail', 'profile missing': 'fail', 'profile open': 'fail', 'profile sk': 'fail', 'profile refused': 'ok' });
    expect(lines.at(-1)).toMatchObject({ event: 'check_done', result: 'profiles_down' });
    const doctor = await runCli(['doctor', '--exporter', '--all-profiles', '--token-dir', dir, '--listen', '127.0.0.1:0'], { env });
    expect(doctor.code).toBe(1);
    expect(doctor.stdout).toMatch(/^fail +profile nobase +names no service: set its baseUrl/m);
    expect(doctor.stdout).toMatch(
      new RegExp(`^fail +profile missing +no credential for profile "missing": put its token in ${dir.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}/missing \\(mode 0600\\)`, 'm'),
    );
    expect(doctor.stdout).toMatch(/^fail +profile open +the key file .*tokens\/open is readable by group or others \(mode 0644\).*chmod 600/m);
    expect(doctor.stdout).toMatch(/^fail +profile sk +.*consumption key \(sk_…\)/m);
    expect(doctor.stdout).toMatch(/^fail +profile refused +.*: the balance cannot be read \(/m);
    expect(doctor.stdout).not.toMatch(/AbCdEfGh1234567890|NotARealKeyAtAll/);
  });

  it('what would stop it at start: a --token-file for a profile not watched (exit 2 with "did you mean"); doctor\'s exporter flags need --exporter', async () => {
    const token = await managementKey();
    const { h, dir, env } = setup({ prod: [token, 0o600] });
    writeConfig(h, { prod: { baseUrl: sandbox.url } });
    const check = await runCli(['exporter', '--all-profiles', '--token-file', `prdo=${path.join(dir, 'prod')}`, '--check-config'], { env });
    expect(check.code).toBe(2);
    expect(check.stderr).toMatch(/level=error event=check check=token-file status=fail msg=".*did you mean \\"prod\\"\?"/);
    expect(check.stderr).toMatch(/event=check_done result=would_not_start\n$/);
    const doctor = await runCli(['doctor', '--exporter', '--all-profiles', '--token-file', `prdo=${path.join(dir, 'prod')}`, '--listen', '127.0.0.1:0'], { env });
    expect(doctor.code).toBe(1);
    expect(doctor.stdout).toMatch(/^fail +token-file +--token-file prdo=… names profile "prdo", which is not watched: did you mean "prod"\?$/m);
    const stray = await runCli(['doctor', '--all-profiles'], { env });
    expect(stray.code).toBe(2);
    expect(stray.stderr).toMatch(/^keydeck: the exporter’s flags .* add --exporter/);
  });
});
