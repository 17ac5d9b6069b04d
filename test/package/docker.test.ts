/**
 * contrib/docker/Dockerfile: a Node.js 24 base (distroless, or slim), a non-root user,
 * and the flags of the systemd unit (but listening on the container's every interface), checked
 * here on every run. Where a container engine answers (docker or podman), the image is built from
 * the packed tarball and run against a sandbox on this machine's loopback (host network), scraped
 * until the profile is up, then stopped with SIGTERM (exit 0). Where none answers (this project's
 * machines and CI have no container engine running) that part is skipped, and says why: it is the
 * one part of the suites that may be skipped under CI.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, chownSync, copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseExporterFlags } from '../../src/exporter/options.js';
import { ROOT } from '../credentials/harness.js';
import { startTestSandbox } from '../sandbox/helpers.js';

const DOCKERFILE = path.join(ROOT, 'contrib', 'docker', 'Dockerfile');
const UNIT = path.join(ROOT, 'contrib', 'systemd', 'keydeck-exporter.service');
const text = readFileSync(DOCKERFILE, 'utf8');

/** The JSON array of a Dockerfile instruction (`ENTRYPOINT`, `CMD`). */
function execForm(instruction: string): string[] {
  const line = new RegExp(`^${instruction} (\\[.*\\])$`, 'm').exec(text);
  if (!line) throw new Error(`no ${instruction} in exec form`);
  return JSON.parse(line[1]!) as string[];
}

/** The value of each `--flag VALUE` in `args`. */
function flagsOf(args: readonly string[]): Map<string, string | true> {
  const out = new Map<string, string | true>();
  for (let i = 0; i < args.length; i++) {
    if (!args[i]!.startsWith('--')) continue;
    const next = args[i + 1];
    if (next !== undefined && !next.startsWith('--')) out.set(args[i]!, args[++i]!);
    else out.set(args[i]!, true);
  }
  return out;
}

/** The first container engine that answers, or why none does. */
function engine(): { bin: string } | { why: string } {
  const why: string[] = [];
  for (const bin of ['docker', 'podman']) {
    const r = spawnSync(bin, bin === 'docker' ? ['version', '--format', '{{.Server.Version}}'] : ['info', '--format', '{{.Host.Arch}}'], { encoding: 'utf8', timeout: 10_000 });
    if (r.error) why.push(`${bin}: not installed`);
    else if (r.status === 0) return { bin };
    else why.push(`${bin}: ${`${r.stderr}${r.stdout}`.trim().split('\n').at(-1)}`);
  }
  return { why: why.join('; ') };
}

const found = engine();
const dir = mkdtempSync(path.join(tmpdir(), 'keydeck-docker-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('contrib/docker/Dockerfile', () => {
  it('runs the packed package on Node.js 24 as a non-root user, with the unit’s flags', () => {
    const from = [...text.matchAll(/^FROM (\S+)/gm)].map((m) => m[1]!);
    expect(from.length).toBeGreaterThanOrEqual(1);
    // Every stage on Node.js 24; the one that runs distroless (or slim).
    for (const image of from) expect(image).toMatch(/node(js)?:?24|nodejs24/);
    expect(from.at(-1)).toMatch(/^(gcr\.io\/distroless\/nodejs24-debian1\d(:nonroot)?|node:24(-[a-z]+)?-slim)@sha256:[0-9a-f]{64}$/);
    // Every base pinned by digest: a rebuild takes the same bytes.
    for (const image of from) expect(image).toMatch(/@sha256:[0-9a-f]{64}$/);
    // keytar left out for real: a local install (npm 11 installs optional dependencies globally whatever --omit says), checked in the build.
    expect(text).toMatch(/^RUN npm install --prefix \S+ --omit=optional /m);
    expect(text).toContain('test ! -e /opt/keydeck/node_modules/keytar');
    // A health check the distroless image can run (no shell): Node.js asks /healthz.
    expect(text).toMatch(/^HEALTHCHECK .*\\\n\s+CMD \["\/nodejs\/bin\/node", "-e", "fetch\('http:\/\/127\.0\.0\.1:9464\/healthz'\)/m);
    const user = [...text.matchAll(/^USER (\S+)/gm)].map((m) => m[1]!).at(-1);
    expect(user).toBeDefined();
    expect(['root', '0']).not.toContain(user);
    // From the tarball `npm run pack` makes, never from a registry at build time.
    expect(text).toMatch(/^COPY keydeck-\*\.tgz /m);
    const entrypoint = execForm('ENTRYPOINT');
    expect(entrypoint.slice(-2)).toEqual(['/usr/local/lib/keydeck/dist/cli.js', 'exporter']);
    const cmd = execForm('CMD');
    const unitArgs = /^ExecStart=\S+ \S+ exporter (.*)$/m.exec(readFileSync(UNIT, 'utf8'))![1]!.split(/\s+/);
    const mine = flagsOf(cmd);
    const unit = flagsOf(unitArgs);
    // The same flags as the unit, but --listen: a container's loopback is its own.
    expect([...mine.keys()].sort()).toEqual([...unit.keys()].sort());
    for (const [flag, value] of unit) if (flag !== '--listen') expect(mine.get(flag), flag).toBe(value);
    expect(mine.get('--listen')).toBe('0.0.0.0:9464');
    expect(text).toMatch(/^EXPOSE 9464$/m);
    const parsed = parseExporterFlags({ allProfiles: mine.has('--all-profiles'), listen: mine.get('--listen') as string, tokenDir: mine.get('--token-dir') as string });
    expect(parsed.ok).toBe(true);
    expect(text).not.toMatch(/(mk|sk)_[A-Za-z0-9]/);
    expect(text).toMatch(/^ENV KEYDECK_CONFIG_DIR=\/etc\/keydeck-exporter/m);
  });

  if ('why' in found) console.warn(`skipped: building and running the image: no container engine answers (${found.why})`);
  it.skipIf('why' in found)('builds from the packed tarball and serves a sandbox account as non-root; SIGTERM stops it with 0', { timeout: 600_000 }, async () => {
    const bin = (found as { bin: string }).bin;
    const ctx = path.join(dir, 'context');
    mkdirSync(ctx);
    execFileSync(process.execPath, [path.join(ROOT, 'scripts', 'pack.mjs'), '--no-build', '--pack-destination', ctx], { cwd: ROOT, encoding: 'utf8', timeout: 120_000 });
    copyFileSync(DOCKERFILE, path.join(ctx, 'Dockerfile'));
    const tag = `keydeck-exporter-test:${process.pid}`;
    execFileSync(bin, ['build', '-t', tag, ctx], { encoding: 'utf8', timeout: 540_000, stdio: ['ignore', 'ignore', 'pipe'] });
    const sandbox = await startTestSandbox({ host: '127.0.0.1' });
    const name = `keydeck-exporter-test-${process.pid}`;
    try {
      const session = await sandbox.fundedUser(25);
      const token = (await sandbox.call<{ apiKey: string }>('POST', '/api/keys/management', { token: session, body: { name: 'container' } })).body.apiKey;
      const etc = path.join(dir, 'etc');
      mkdirSync(path.join(etc, 'tokens'), { recursive: true });
      writeFileSync(path.join(etc, 'config.json'), JSON.stringify({ version: 1, profiles: { prod: { baseUrl: sandbox.url } } }), { mode: 0o644 });
      writeFileSync(path.join(etc, 'tokens', 'prod'), `${token}\n`, { mode: 0o600 });
      // The token files belong to the container's user (nonroot, uid 65532).
      chownSync(path.join(etc, 'tokens'), 65532, 65532);
      chmodSync(path.join(etc, 'tokens'), 0o700);
      chownSync(path.join(etc, 'tokens', 'prod'), 65532, 65532);
      const port = 20_000 + (process.pid % 10_000);
      execFileSync(
        bin,
        [
          'run',
          '-d',
          '--name',
          name,
          '--network',
          'host',
          '-v',
          `${etc}:/etc/keydeck-exporter:ro`,
          tag,
          '--all-profiles',
          '--listen',
          `127.0.0.1:${port}`,
          '--token-dir',
          '/etc/keydeck-exporter/tokens',
          '--interval',
          '2',
        ],
        { encoding: 'utf8', timeout: 60_000 },
      );
      const uid = execFileSync(bin, ['inspect', '--format', '{{.Config.User}}', name], { encoding: 'utf8' }).trim();
      expect(['', 'root', '0']).not.toContain(uid);
      let metrics = '';
      for (let i = 0; i < 300 && !/^keydeck_up\{profile="prod",[^}]*\} 1$/m.test(metrics); i++) {
        await new Promise((r) => setTimeout(r, 100));
        metrics = await fetch(`http://127.0.0.1:${port}/metrics`).then(
          (r) => r.text(),
          () => '',
        );
      }
      expect(metrics).toMatch(/^keydeck_balance_remaining_usd\{profile="prod",[^}]*\} 25$/m);
      expect((await fetch(`http://127.0.0.1:${port}/readyz`)).status).toBe(200);
      execFileSync(bin, ['stop', '--time', '20', name], { encoding: 'utf8', timeout: 60_000 });
      expect(execFileSync(bin, ['inspect', '--format', '{{.State.ExitCode}}', name], { encoding: 'utf8' }).trim()).toBe('0');
      const logs = spawnSync(bin, ['logs', name], { encoding: 'utf8' });
      expect(`${logs.stdout}${logs.stderr}`).not.toContain(token);
    } finally {
      spawnSync(bin, ['rm', '-f', name]);
      spawnSync(bin, ['rmi', '-f', tag]);
      await sandbox.close();
    }
  });
});
