/**
 * The built CLI over HTTPS, the way it reaches the real service (the other suites talk plain http
 * to a sandbox on loopback): a local TLS endpoint with a throwaway certificate for 127.0.0.1 (made
 * with openssl) in front of the sandbox. Trusted through NODE_EXTRA_CA_CERTS, reads and a create go
 * through got's HTTPS agent and come back whole; not trusted, keydeck refuses the connection,
 * says why, and sends nothing: not one request reaches the service behind it.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConsumptionKeyListSchema, CreatedConsumptionKeySchema, CreditBalanceSchema } from '../../src/api/schemas.js';
import { startTestSandbox, type TestSandbox } from '../sandbox/helpers.js';
import { scripted, type Scripted } from './scripted.js';
import { binary } from '../metrics/parts.js';
import { startApp } from '../e2e/pty.js';

const hasOpenssl = binary('openssl') !== undefined;
if (!hasOpenssl) {
  // CI must run this suite (.ci/run installs openssl).
  if (process.env.CI) throw new Error('CI must run the HTTPS suite: openssl not found');
  console.warn('skipped: the HTTPS suite needs openssl to make its certificate (apt install openssl)');
}

let sb: TestSandbox;
let dir: string;
let tlsServer: https.Server;
let url: string;
let cli: Scripted;
/** Requests the TLS endpoint handed to the sandbox. */
let forwarded = 0;

beforeAll(async () => {
  if (!hasOpenssl) return;
  sb = await startTestSandbox();
  dir = mkdtempSync(path.join(tmpdir(), 'keydeck-https-'));
  execFileSync(
    'openssl',
    ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '2', '-subj', '/CN=keydeck test', '-addext', 'subjectAltName=IP:127.0.0.1',
      '-keyout', path.join(dir, 'key.pem'), '-out', path.join(dir, 'cert.pem')],
    { stdio: 'ignore' },
  );
  const upstream = new URL(sb.url);
  tlsServer = https.createServer({ key: readFileSync(path.join(dir, 'key.pem')), cert: readFileSync(path.join(dir, 'cert.pem')) }, (req, res) => {
    forwarded++;
    const out = http.request({ host: upstream.hostname, port: upstream.port, path: req.url, method: req.method, headers: { ...req.headers, host: upstream.host } }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    out.on('error', () => res.destroy());
    req.pipe(out);
  });
  await new Promise<void>((resolve) => tlsServer.listen(0, '127.0.0.1', resolve));
  url = `https://127.0.0.1:${(tlsServer.address() as AddressInfo).port}`;
  cli = scripted(url);
});
afterAll(async () => {
  if (!hasOpenssl) return;
  cli.home.remove();
  await new Promise((resolve) => tlsServer.close(resolve));
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
    const before = forwarded;
    const [read, create] = await Promise.all([
      cli.run(user, ['billing', 'credits'], { NODE_EXTRA_CA_CERTS: undefined }),
      cli.run(user, ['keys', 'create', '--name', 'never'], { NODE_EXTRA_CA_CERTS: undefined }),
    ]);
    for (const r of [read, create]) {
      expect(r.code).not.toBe(0);
      expect(r.stdout).toBe('');
      expect(r.stderr).toMatch(/the TLS certificate of the service at https:\/\/127\.0\.0\.1:\d+ is not signed by an authority this machine trusts \(DEPTH_ZERO_SELF_SIGNED_CERT\), so keydeck did not connect: .*NODE_EXTRA_CA_CERTS=FILE/);
      expect(r.stderr).not.toMatch(/network connection|\n\s+at /);
    }
    // A create that never connected says so: no "unknown outcome", nothing to check first.
    expect(create.stderr).toMatch(/\(nothing was sent\)\.\n$/);
    expect(read.stderr).not.toMatch(/nothing was sent/);
    expect(forwarded - before).toBe(0);
    expect(await sb.credits(user)).toMatchObject({ creditKeyCount: 0, remaining: 25 });
  });

  it('the TUI with the certificate not trusted: its banner says so, with the reason and what to do', { timeout: 40_000 }, async () => {
    const user = await sb.fundedUser(25);
    const before = forwarded;
    // Without CI: Ink draws no live frame when it believes it runs in CI (is-in-ci).
    const env = cli.home.env({ KEYDECK_BASE_URL: url, KEYDECK_TOKEN: user, NODE_EXTRA_CA_CERTS: undefined, TERM: 'xterm-256color', CI: undefined });
    const app = startApp({ args: [], env, columns: 120, rows: 30 });
    try {
      await app.waitFor('Certificate not trusted');
      await app.waitFor((screen) => /not signed by an authority this machine trusts/.test(screen.replace(/\s+/g, ' ')));
      expect(app.screenText()).not.toMatch(/network connection/);
      expect(forwarded - before).toBe(0);
      app.write('q');
      expect((await app.exited).exitCode).toBe(0);
    } finally {
      app.kill();
    }
  });
});
