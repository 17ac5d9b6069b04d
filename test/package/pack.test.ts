/**
 * The published package, as a user gets it: `npm run pack`, the tarball installed into a
 * temporary global prefix (`npm install -g --prefix`), then the installed `keydeck` run: its
 * `--version`, `keydeck sandbox` (its two lines, then SIGTERM) and one command against that
 * sandbox. The package must stay lean: a tarball of at most 1 MB, and an install of at most 10
 * packages and 10 MB (dist/ bundles every runtime dependency but keytar). A TypeScript consumer
 * with its own strict tsconfig type-checks against the shipped `.d.ts` without an error.
 *
 * The install reaches the npm registry (for keytar, an optional dependency): this suite is part of
 * CI, whose machines reach it.
 */
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MANUAL_TOPICS } from '../../src/commands/manualTopics.js';
import { REQUIRED_NODE } from '../../src/node-version.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const dir = mkdtempSync(path.join(tmpdir(), 'keydeck-pack-'));
const prefix = path.join(dir, 'prefix');
/** The environment of the installed keydeck: this Node first on PATH, nothing of the clone's. */
const env: NodeJS.ProcessEnv = {
  ...process.env,
  PATH: `${path.join(prefix, 'bin')}${path.delimiter}${path.dirname(process.execPath)}${path.delimiter}${process.env.PATH ?? ''}`,
  KEYDECK_CONFIG_DIR: path.join(dir, 'config'),
  KEYDECK_DATA_DIR: path.join(dir, 'data'),
  NO_COLOR: '1',
  npm_config_cache: process.env.npm_config_cache ?? path.join(process.env.HOME ?? dir, '.npm'),
};
for (const name of ['KEYDECK_TOKEN', 'KEYDECK_BASE_URL', 'KEYDECK_PROFILE', 'DBUS_SESSION_BUS_ADDRESS', 'DEV']) delete env[name];

let tarball = '';
const keydeck = path.join(prefix, 'bin', 'keydeck');

/** Total size in bytes of the regular files under `p`. */
function bytesUnder(p: string): number {
  let total = 0;
  for (const entry of readdirSync(p, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) total += statSync(path.join(entry.parentPath, entry.name)).size;
  }
  return total;
}

/** The package folders under a node_modules tree (scoped ones counted once each). */
function packagesUnder(nodeModules: string): string[] {
  const found: string[] = [];
  const walk = (nm: string) => {
    let names: string[];
    try {
      names = readdirSync(nm);
    } catch {
      return;
    }
    for (const name of names) {
      if (name.startsWith('.')) continue;
      const full = path.join(nm, name);
      if (name.startsWith('@')) {
        for (const sub of readdirSync(full)) {
          found.push(path.join(full, sub));
          walk(path.join(full, sub, 'node_modules'));
        }
      } else {
        found.push(full);
        walk(path.join(full, 'node_modules'));
      }
    }
  };
  walk(nodeModules);
  return found;
}

/** What `npm install -g` said on stderr (its warnings). */
let installWarnings = '';

beforeAll(() => {
  // `npm run pack` as a release does (scripts/pack.mjs), from dist/ as test/global-setup.ts built
  // it (with types): --no-build, no second build meanwhile.
  tarball = execFileSync(process.execPath, [path.join(ROOT, 'scripts', 'pack.mjs'), '--no-build', '--pack-destination', dir], { cwd: ROOT, encoding: 'utf8', env, timeout: 120_000 }).trim();
  const install = spawnSync('npm', ['install', '-g', '--prefix', prefix, '--no-audit', '--no-fund', tarball], { cwd: dir, encoding: 'utf8', env, timeout: 240_000 });
  if (install.status !== 0) throw new Error(`npm install -g failed: ${install.stderr}`);
  installWarnings = install.stderr;
}, 300_000);

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the packed package', () => {
  it('is a tarball of at most 1.4 MB with dist/, README and LICENSE, no src/ and no source maps', () => {
    // 1 MB until the USDC step on chain: the chain reader (viem, with its tree-shakable actions only) adds about
    // 110 KB compressed, in chunks loaded only on the USDC paths. 1.15 MB until (the
    // operations, keys show, billing cancel, auto top-up, the shared sandbox, the manual's new
    // pages): 1.153 MB measured after them. 1.25 MB until the guardrails: the policy file's YAML
    // parser (the yaml package, 45 KB compressed, in a chunk only plan and apply load) and their
    // code (about 9 KB) took it to 1.293 MB. 1.3 MB until the read-only and protected profiles
    // and the profile rules joined them: 1.304 MB measured with both. 1.35 MB until the app's exit
    // waited for the work handed over (its record writes, deliveries): 1.352 MB measured with it.
    expect(statSync(tarball).size).toBeLessThanOrEqual(1_400_000);
    const files = execFileSync('tar', ['-tzf', tarball], { encoding: 'utf8' }).split('\n').filter(Boolean);
    expect(files).toContain('package/dist/cli.js');
    // The executable keeps its bit (`npx keydeck` said Permission denied).
    const listing = execFileSync('tar', ['-tvzf', tarball], { encoding: 'utf8' }).split('\n');
    expect(listing.find((l) => l.endsWith(' package/dist/cli.js'))).toMatch(/^-rwxr-xr-x /);
    expect(files).toContain('package/dist/main.js');
    expect(files).toContain('package/LICENSE');
    expect(files).toContain('package/README.md');
    expect(files).toContain('package/dist/types/index.d.ts');
    expect(files.filter((f) => f.startsWith('package/src/'))).toEqual([]);
    expect(files.filter((f) => f.endsWith('.map'))).toEqual([]);
    // The manual, which `keydeck help TOPIC` reads (its pages only, not the screen captures).
    expect(files.filter((f) => f.startsWith('package/docs/')).sort()).toEqual(MANUAL_TOPICS.map((t) => `package/docs/${t.name}.md`).sort());
  });

  it('installs without asking to allow keydeck’s own scripts: the packed package.json has no scripts and no devDependencies', () => {
    // npm lists the install scripts it skipped for a tarball, `prepare` among them: the clone's build, which could not run there.
    expect(installWarnings).not.toMatch(/keydeck@[\d.]+ \(prepare/);
    expect(installWarnings).not.toContain('prepare');
    const manifest = JSON.parse(execFileSync('tar', ['-xzOf', tarball, 'package/package.json'], { encoding: 'utf8' })) as Record<string, unknown>;
    expect(Object.keys(manifest)).not.toContain('scripts');
    expect(Object.keys(manifest)).not.toContain('devDependencies');
    expect(Object.keys(manifest)).not.toContain('allowScripts');
    const own = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as Record<string, unknown>;
    for (const field of ['name', 'version', 'bin', 'exports', 'optionalDependencies', 'peerDependencies']) expect(manifest[field], field).toEqual(own[field]);
    // The Node an installed keydeck needs (the clone's own engines is the Node that runs npm).
    expect(manifest.engines).toEqual({ node: `>=${REQUIRED_NODE.replace(/\.0$/, '')}` });
  });

  it('the installed keydeck prints a page of the manual: keydeck help commands', () => {
    const page = execFileSync(keydeck, ['help', 'commands'], { env, encoding: 'utf8', timeout: 20_000 });
    expect(page).toMatch(/^Commands\n=+\n/);
    expect(page).toContain('keydeck keys create');
  });

  it('installed as the unit and the Dockerfile install it (npm install --prefix DIR --omit=optional), keytar is left out', { timeout: 240_000 }, () => {
    // npm 11 installs optional dependencies with -g whatever --omit says; a local install honours it.
    const local = path.join(dir, 'opt-keydeck');
    const install = spawnSync('npm', ['install', '--prefix', local, '--omit=optional', '--no-audit', '--no-fund', tarball], { cwd: dir, encoding: 'utf8', env, timeout: 200_000 });
    expect(install.status, install.stderr).toBe(0);
    expect(readdirSync(path.join(local, 'node_modules')).filter((n) => !n.startsWith('.'))).toEqual(['keydeck']);
    expect(execFileSync(process.execPath, [path.join(local, 'node_modules', 'keydeck', 'dist', 'cli.js'), '--version'], { env, encoding: 'utf8', timeout: 20_000 }).trim()).toMatch(/^\d+\.\d+\.\d+$/);
  });

  it('installs at most 10 packages and 10 MB', () => {
    const nodeModules = path.join(prefix, 'lib', 'node_modules');
    const packages = packagesUnder(nodeModules);
    const bytes = bytesUnder(nodeModules);
    console.log(`installed: ${packages.length} packages (${packages.map((p) => path.relative(nodeModules, p)).join(', ')}), ${(bytes / 1e6).toFixed(1)} MB`);
    expect(packages.length).toBeLessThanOrEqual(10);
    expect(bytes).toBeLessThanOrEqual(10_000_000);
  });

  it('the installed keydeck runs: --version, the sandbox and a command against it', { timeout: 60_000 }, async () => {
    expect(execFileSync(keydeck, ['--version'], { env, encoding: 'utf8', timeout: 20_000 }).trim()).toMatch(/^\d+\.\d+\.\d+$/);

    const sandbox = spawn(keydeck, ['sandbox', '--port', '0', '--db', path.join(dir, 'sandbox.db')], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    const lines: string[] = [];
    createInterface({ input: sandbox.stdout }).on('line', (l) => lines.push(l));
    let stderr = '';
    sandbox.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const exited = new Promise<number | null>((resolve) => sandbox.on('exit', (code) => resolve(code)));
    const deadline = Date.now() + 20_000;
    while (lines.length < 2 && Date.now() < deadline && sandbox.exitCode === null) await new Promise((r) => setTimeout(r, 20));
    expect(lines.length, stderr).toBe(2);
    const url = /^sandbox listening on (http:\/\/127\.0\.0\.1:\d+)$/.exec(lines[0]!)?.[1];
    const token = /^session token: (\S+)$/.exec(lines[1]!)?.[1];
    expect(url, lines[0]).toBeDefined();
    expect(token, lines[1]).toBeDefined();
    try {
      const credits = JSON.parse(
        execFileSync(keydeck, ['billing', 'credits', '--json'], {
          env: { ...env, KEYDECK_BASE_URL: url, KEYDECK_TOKEN: token },
          encoding: 'utf8',
          timeout: 20_000,
        }),
      ) as { totalTopUp: unknown; remaining: unknown };
      expect(credits).toHaveProperty('remaining');
      expect(credits).toHaveProperty('totalTopUp');
    } finally {
      sandbox.kill('SIGTERM');
    }
    expect(await exited).toBe(0);
  });

  it('a TypeScript consumer with its own strict tsconfig type-checks against the shipped .d.ts', { timeout: 60_000 }, () => {
    const consumer = path.join(dir, 'consumer');
    mkdirSync(path.join(consumer, 'node_modules', '@types'), { recursive: true });
    // keydeck as the consumer's own dependency (a copy of the installed one: types resolve from it).
    cpSync(path.join(prefix, 'lib', 'node_modules', 'keydeck'), path.join(consumer, 'node_modules', 'keydeck'), { recursive: true });
    // The optional peer dependencies a consumer installs to use the types, and Node's types.
    for (const name of [
      'zod',
      'got',
      'fastify',
      'pino',
      '@fastify',
      'light-my-request',
      'avvio',
      'find-my-way',
      'fast-json-stringify',
      'type-fest',
      'form-data-encoder',
      'pino-std-serializers',
      'sonic-boom',
      'thread-stream',
      'pino-abstract-transport',
    ]) {
      try {
        symlinkSync(path.join(ROOT, 'node_modules', name), path.join(consumer, 'node_modules', name), 'dir');
      } catch {
        // not a dependency of this clone
      }
    }
    symlinkSync(path.join(ROOT, 'node_modules', '@types', 'node'), path.join(consumer, 'node_modules', '@types', 'node'), 'dir');
    writeFileSync(path.join(consumer, 'package.json'), JSON.stringify({ name: 'consumer', type: 'module', private: true }));
    writeFileSync(
      path.join(consumer, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          target: 'ES2022',
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          strict: true,
          skipLibCheck: false,
          noEmit: true,
          types: ['node'],
          exactOptionalPropertyTypes: true,
          noUncheckedIndexedAccess: true,
        },
        files: ['index.ts'],
      }),
    );
    writeFileSync(
      path.join(consumer, 'index.ts'),
      [
        "import { KeydeckClient, KeydeckApiError, type ConsumptionKey } from 'keydeck';",
        "import { startSandbox } from 'keydeck/sandbox';",
        'const sandbox = await startSandbox({ port: 0 });',
        "const client = new KeydeckClient({ baseUrl: sandbox.url, token: 'x' });",
        'const keys: ConsumptionKey[] = await client.keys.list().catch((e: unknown) => { if (e instanceof KeydeckApiError) return []; throw e; });',
        'console.log(keys.length);',
        'await sandbox.close();',
        '',
      ].join('\n'),
    );
    const require = (id: string) => path.join(ROOT, 'node_modules', id);
    try {
      execFileSync(process.execPath, [path.join(require('typescript7'), 'bin', 'tsc'), '-p', consumer], { encoding: 'utf8', timeout: 60_000 });
    } catch (e) {
      throw new Error(`tsc found errors:\n${(e as { stdout?: string }).stdout ?? String(e)}`, { cause: e });
    }
  });
});
