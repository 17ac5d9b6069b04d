/**
 * The built CLI over HTTPS, the way it reaches the real service (the other suites talk plain http
 * to a sandbox on loopback): a local TLS endpoint with a throwaway certificate for 127.0.0.1 (made
 * with openssl) in front of the sandbox. Trusted through NODE_EXTRA_CA_CERTS, reads and a create go
 * through got's HTTPS agent and come back whole; not trusted, keydeck refuses the connection,
 * says why, and sends nothing: not one request reaches the service behind it.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConsumptionKeyListSchema, CreatedConsumptionKeySchema, CreditBalanceSchema } from '../../src/api/schemas.js';
import { startTestSandbox, type TestSandbox } from '../sandbox/helpers.js';
import { startFaultProxy, type FaultProxy } from '../resilience/fault-proxy.js';
import { skipUnless } from '../metrics/parts.js';
import { startApp } from '../e2e/pty.js';
import { scripted, type Scripted } from './scripted.js';

const hasOpenssl = skipUnless('openssl') === undefined;

let sb: TestSandbox;
let dir: string;
/** The TLS endpoint in front of the sandbox: a passing-through fault proxy; its `seen` are the requests that reached it. */
let endpoint: FaultProxy;
let cli: Scripted;

beforeAll(async () => {
  if (!hasOpenssl) return;
  sb = await startTestSandbox();
  dir = mkdtempSync(path.join(tmpdir(), 'keydeck-https-'));
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-days',
      '2',
      '-subj',
      '/CN=keydeck test',
      '-addext',
      'subjectAltName=IP:127.0.0.1',
      '-keyout',
      path.join(dir, 'key.pem'),
      '-out',
      path.join(dir, 'cert.pem'),
    ],
    { stdio: 'ignore' },
  );
  endpoint = await startFaultProxy(sb.url, { tls: { key: readFileSync(path.join(dir, 'key.pem')), cert: readFileSync(path.join(dir, 'cert.pem')) } });
  // Child processes: NODE_EXTRA_CA_CERTS is read when a process starts, so a run in the test's
  // thread would have the test process's authorities, not the ones each run names.
  cli = scripted(endpoint.url, { runner: 'process' });
});
afterAll(async () => {
  if (!hasOpenssl) return;
  cli.home.remove();
  await endpoint.close();
  await sb.close();
  rmSync(dir, { recursive: true, force: true });
});

describe.skipIf(!hasOpenssl)('the built CLI over HTTPS', () => {
  it('with the certificate trusted: reads the balance and the keys, creates a key, all as the service has them', async () => {
    const user = await sb.fundedUser(25);
    const trusted = { NODE_EXTRA_CA_CERTS: path.join(dir, 'cert.pem') };
    const credits = await cli.run(user, ['billing', 'credits', '--json'], trusted);
    expect(credits.code, credits.stderr).toBe(0);
    expect(CreditBalanceSchema.parse(JSON.parse(credits.stdout))).toEqual(await sb.credits(user));
    const created = await cli.run(user, ['keys', 'create', '--name', 'over-tls', '--json'], trusted);
    expect(created.code, created.stderr).toBe(0);
    const key = CreatedConsumptionKeySchema.parse(JSON.parse(created.stdout));
    const list = await cli.run(user, ['keys', 'list', '--json'], trusted);
    expect(list.code, list.stderr).toBe(0);
    expect(ConsumptionKeyListSchema.parse(JSON.parse(list.stdout)).map((k) => [k.id, k.name])).toEqual([[key.id, 'over-tls']]);
  });

  it('with the certificate not trusted: refuses the connection, says so, and no request reaches the service', async () => {
    const user = await sb.fundedUser(25);
    const before = endpoint.seen.length;
    const [read, create] = await Promise.all([
      cli.run(user, ['billing', 'credits'], { NODE_EXTRA_CA_CERTS: undefined }),
      cli.run(user, ['keys', 'create', '--name', 'never'], { NODE_EXTRA_CA_CERTS: undefined }),
    ]);
    for (const r of [read, create]) {
      expect(r.code).not.toBe(0);
      expect(r.stdout).toBe('');
      expect(r.stderr).toMatch(
        /the TLS certificate of the service at https:\/\/127\.0\.0\.1:\d+ is not signed by an authority this machine trusts \(DEPTH_ZERO_SELF_SIGNED_CERT\), so keydeck did not connect: .*NODE_EXTRA_CA_CERTS=FILE/,
      );
      expect(r.stderr).not.toMatch(/network connection|\n\s+at /);
    }
    // A create that never connected says so: no "unknown outcome", nothing to check first.
    expect(create.stderr).toMatch(/\(nothing was sent\)\.\n$/);
    expect(read.stderr).not.toMatch(/nothing was sent/);
    expect(endpoint.seen.length - before).toBe(0);
    expect(await sb.credits(user)).toMatchObject({ creditKeyCount: 0, remaining: 25 });
  });

  it('the TUI with the certificate not trusted: its banner says so, with the reason and what to do', { timeout: 40_000 }, async () => {
    const user = await sb.fundedUser(25);
    const before = endpoint.seen.length;
    const env = cli.home.env({ KEYDECK_BASE_URL: endpoint.url, KEYDECK_TOKEN: user, NODE_EXTRA_CA_CERTS: undefined, TERM: 'xterm-256color' });
    const app = startApp({ args: [], env, columns: 120, rows: 30 });
    try {
      await app.waitFor('Certificate not trusted');
      await app.waitFor((screen) => /not signed by an authority this machine trusts/.test(screen.replace(/\s+/g, ' ')));
      expect(app.screenText()).not.toMatch(/network connection/);
      expect(endpoint.seen.length - before).toBe(0);
      app.write('q');
      expect((await app.exited).exitCode).toBe(0);
    } finally {
      app.kill();
    }
  });
});
