/**
 * The build as it ships: every file of `dist/` loads, the `keydeck` executable
 * guards the Node.js version before anything that needs a newer one is loaded, and the build's
 * lazy stand-ins keep what they stand for unloaded.
 *
 * A bundling mistake (two declarations of one name in a chunk, a missing import) hides behind the
 * stubs of other suites: `open` and `clipboardy` lived in chunks that could not load, so `o` and
 * the clipboard fallback never worked. Here each module is imported as Node imports it.
 */
import { execFile, execFileSync, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { OLD_NODE_EXIT_CODE, REQUIRED_NODE, nodeIsRecentEnough, oldNodeSentence } from '../../src/node-version.js';
import { cliPath } from '../credentials/harness.js';
import { startTestSandbox } from '../sandbox/helpers.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
/** dist/ as test/global-setup.ts built it: the run's snapshot (a rebuild meanwhile cannot change it under the test). */
const CLI = cliPath();
const DIST = path.dirname(CLI);

/** Every JavaScript file of dist/ but the executable, main.js and complete.js (they run the command line, or a completion request, when loaded). */
function importableFiles(): string[] {
  const top = readdirSync(DIST)
    .filter((f) => f.endsWith('.js') && f !== 'cli.js' && f !== 'main.js' && f !== 'complete.js')
    .map((f) => path.join(DIST, f));
  const chunks = readdirSync(path.join(DIST, 'chunks'))
    .filter((f) => f.endsWith('.js'))
    .map((f) => path.join(DIST, 'chunks', f));
  return [...top, ...chunks];
}

/**
 * The Node.js binaries on PATH older than keydeck needs (the machine's own `node`, behind the
 * clone's node_modules/.bin that npm scripts put first), with their versions.
 */
function oldNodes(): { bin: string; version: string }[] {
  const found = new Map<string, string>();
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    const bin = path.join(dir, 'node');
    try {
      const real = execFileSync('readlink', ['-f', bin], { encoding: 'utf8' }).trim();
      if (found.has(real)) continue;
      const version = execFileSync(bin, ['-p', 'process.versions.node'], { encoding: 'utf8', timeout: 10_000 }).trim();
      found.set(real, version);
    } catch {
      // not there, or not runnable
    }
  }
  for (const bin of ['/usr/bin/node', '/usr/local/bin/node']) {
    try {
      if (![...found.keys()].includes(bin)) found.set(bin, execFileSync(bin, ['-p', 'process.versions.node'], { encoding: 'utf8', timeout: 10_000 }).trim());
    } catch {
      // not there
    }
  }
  return [...found].filter(([, v]) => !nodeIsRecentEnough(v)).map(([bin, version]) => ({ bin, version }));
}

describe('dist/', () => {
  it('every module loads in Node (chunks and library entries)', { timeout: 60_000 }, () => {
    const files = importableFiles();
    expect(files.length).toBeGreaterThan(10);
    const program = `
      const results = await Promise.allSettled(process.argv.slice(1).map((f) => import('file://' + f)));
      const failed = results.map((r, i) => [process.argv[1 + i], r]).filter(([, r]) => r.status === 'rejected')
        .map(([f, r]) => f + ': ' + String(r.reason).split('\\n')[0]);
      process.stdout.write(JSON.stringify(failed));
      process.exit(0);`;
    const out = execFileSync(process.execPath, ['--input-type=module', '-e', program, ...files], { cwd: ROOT, encoding: 'utf8', timeout: 60_000, env: { ...process.env, NO_COLOR: '1', DEV: '' } });
    expect(JSON.parse(out)).toEqual([]);
  });

  it('the built client reads the balance over HTTP/1.1 without loading node:http2 (got loads it only for HTTP/2, which keydeck never asks for)', { timeout: 60_000 }, async () => {
    const sandbox = await startTestSandbox();
    try {
      const token = await sandbox.fundedUser(25);
      const program = `
        const { KeydeckClient } = await import(${JSON.stringify(path.join(DIST, 'index.js'))});
        const client = new KeydeckClient({ baseUrl: process.env.SANDBOX_URL, token: process.env.SANDBOX_TOKEN });
        const credits = await client.billing.credits();
        process.stdout.write(JSON.stringify({ remaining: credits.remaining, http2: process.moduleLoadList.filter((m) => /http2/.test(m)) }));`;
      // Not execFileSync: the sandbox answers from this process's event loop.
      const { stdout } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', program], {
        cwd: ROOT,
        encoding: 'utf8',
        timeout: 30_000,
        env: { ...process.env, SANDBOX_URL: sandbox.url, SANDBOX_TOKEN: token },
      });
      expect(JSON.parse(stdout)).toEqual({ remaining: 25, http2: [] });
    } finally {
      await sandbox.close();
    }
  });

  it('the TUI draws its first frame before the API client, node:sqlite and the panes load (they come with the app, right after)', { timeout: 60_000 }, () => {
    // The chunk of src/tui/run.tsx and the one of src/tui/session.tsx, as the command line's chunk
    // (src/cli/tui.ts, with src/cli/main.ts) and it name them.
    // (The program is dist/program.js, which dist/main.js loads.)
    const names = ['program.js', ...readdirSync(path.join(DIST, 'chunks')).map((f) => path.join('chunks', f))];
    const runs = names.flatMap((f) => /importWithoutFetch\(\(\)=>import\("\.\/(?:chunks\/)?(run-[A-Z0-9]+\.js)"\)\)/.exec(readFileSync(path.join(DIST, f), 'utf8'))?.[1] ?? []);
    expect(runs).toHaveLength(1);
    const run = `chunks/${runs[0]}`;
    const session = /import\("\.\/(session-[A-Z0-9]+\.js)"\)/.exec(readFileSync(path.join(DIST, run), 'utf8'))?.[1];
    expect(session).toBeDefined();
    const program = `
      // As src/tui/withoutFetch.ts does while Ink loads: Node's fetch would load its HTTP stack.
      const fetch = Object.getOwnPropertyDescriptor(globalThis, 'fetch');
      delete globalThis.fetch;
      const loaded = () => process.moduleLoadList.filter((m) => /^NativeModule (sqlite|http|https|tls)$/.test(m)).map((m) => m.slice(13));
      const { runTui } = await import(${JSON.stringify('file://')} + process.argv[1]);
      const atFirstFrame = loaded();
      Object.defineProperty(globalThis, 'fetch', fetch);
      const { sessionApp } = await import(${JSON.stringify('file://')} + process.argv[2]);
      process.stdout.write(JSON.stringify({ atFirstFrame, withTheApp: loaded().sort(), exports: [typeof runTui, typeof sessionApp] }));
      process.exit(0);`;
    const out = execFileSync(process.execPath, ['--input-type=module', '-e', program, path.join(DIST, run), path.join(DIST, 'chunks', session!)], {
      cwd: ROOT,
      encoding: 'utf8',
      timeout: 60_000,
      env: { ...process.env, NO_COLOR: '1', DEV: '' },
    });
    expect(JSON.parse(out)).toEqual({ atFirstFrame: [], withTheApp: ['http', 'sqlite'], exports: ['function', 'function'] });
  });

  it('ships zod with its English messages only (the other languages are never used: scripts/build.mjs)', () => {
    const chunks = readdirSync(path.join(DIST, 'chunks')).map((f) => readFileSync(path.join(DIST, 'chunks', f), 'utf8'));
    const zod = chunks.filter((text) => text.includes('Invalid input: expected'));
    expect(zod.length).toBe(1);
    // German's and Japanese's "invalid input", as esbuild writes them (non-ASCII escaped).
    expect(chunks.filter((text) => /Ung\\xFCltige Eingabe|\\u7121\\u52B9\\u306A\\u5165\\u529B/.test(text))).toEqual([]);
  });

  it('gives the ES modules that import React one copy of its exports, not one each (scripts/reactOnce.mjs: ~1 MB of the TUI’s heap)', () => {
    const chunks = readdirSync(path.join(DIST, 'chunks')).map((f) => readFileSync(path.join(DIST, 'chunks', f), 'utf8'));
    // esbuild's interop object for a CommonJS module, made where an ES module imports it.
    const copies = (name: string) => chunks.reduce((n, text) => n + text.split(`__toESM(require_${name}(),1)`).length - 1, 0);
    expect(copies('react')).toBeLessThanOrEqual(1);
    expect(copies('jsx_runtime')).toBeLessThanOrEqual(1);
  });

  it('the executable keeps its executable bit after npm run build', () => {
    expect(statSync(path.join(DIST, 'cli.js')).mode & 0o755).toBe(0o755);
  });

  it('the executable loads the command line (main.js): --version and --help', () => {
    const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { version: string };
    const version = spawnSync(process.execPath, [CLI, '--version'], { encoding: 'utf8', timeout: 20_000 });
    expect(version.stdout.trim()).toBe(pkg.version);
    expect(version.status).toBe(0);
    const help = spawnSync(process.execPath, [CLI, '--help'], { encoding: 'utf8', timeout: 20_000 });
    expect(help.stdout).toMatch(/^USAGE\n {2}keydeck /m);
    expect(help.status).toBe(0);
  });

  it('the executable answers a lone --version or -V itself, loading nothing; with other words the command line answers', { timeout: 60_000 }, () => {
    const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { version: string };
    // Node's compile cache, which the executable turns on before it loads the command line, lives in
    // the OS temp dir: a temp dir of each run's own shows whether the run went past the answer.
    const run = (args: string[]) => {
      const temp = mkdtempSync(path.join(tmpdir(), 'keydeck-version-'));
      try {
        const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: temp, TMPDIR: temp };
        const r = spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8', timeout: 20_000, env, stdio: ['ignore', 'pipe', 'pipe'] });
        return { code: r.status, stdout: r.stdout, stderr: r.stderr, loaded: existsSync(path.join(temp, 'node-compile-cache')) };
      } finally {
        rmSync(temp, { recursive: true, force: true });
      }
    };
    for (const flag of ['--version', '-V']) expect(run([flag]), flag).toEqual({ code: 0, stdout: `${pkg.version}\n`, stderr: '', loaded: false });
    // The program's own `--version` (commander's), the same answer.
    expect(run(['--version', '--quiet'])).toEqual({ code: 0, stdout: `${pkg.version}\n`, stderr: '', loaded: true });
    expect(run(['--version', 'extra'])).toMatchObject({ loaded: true });
  });

  it('answers a completion request without the command line (dist/main.js) or the program (dist/program.js)', { timeout: 60_000 }, () => {
    const copy = mkdtempSync(path.join(tmpdir(), 'keydeck-complete-only-'));
    try {
      // The executable, the completion's entry, its command tree and the chunks, beside a package.json: no main.js, no program.js.
      cpSync(path.join(DIST, 'chunks'), path.join(copy, 'dist', 'chunks'), { recursive: true });
      for (const file of ['cli.js', 'complete.js', 'completion.json']) cpSync(path.join(DIST, file), path.join(copy, 'dist', file));
      writeFileSync(path.join(copy, 'package.json'), '{ "type": "module" }\n');
      const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: copy, TMPDIR: copy, KEYDECK_CONFIG_DIR: path.join(copy, 'config') };
      const complete = (words: string[]) => spawnSync(process.execPath, [path.join(copy, 'dist', 'cli.js'), '__complete', '--', ...words], { encoding: 'utf8', timeout: 20_000, env });
      expect(complete(['keys', ''])).toMatchObject({ status: 0, stdout: expect.stringMatching(/^list\n/m), stderr: '' });
      expect(complete(['--profile', ''])).toMatchObject({ status: 0, stdout: '', stderr: '' });
      // Anything else needs the command line, which this copy lacks.
      expect(spawnSync(process.execPath, [path.join(copy, 'dist', 'cli.js'), '--help'], { encoding: 'utf8', timeout: 20_000, env }).status).not.toBe(0);
      // Without the command tree, the command line answers from the program: the same candidates.
      const tree = complete(['keys', '']).stdout;
      for (const file of ['main.js', 'program.js']) cpSync(path.join(DIST, file), path.join(copy, 'dist', file));
      rmSync(path.join(copy, 'dist', 'completion.json'));
      expect(complete(['keys', ''])).toMatchObject({ status: 0, stdout: tree, stderr: '' });
    } finally {
      rmSync(copy, { recursive: true, force: true });
    }
  });

  it('keeps compiled code between runs for a command, not for the commands left open for hours (monitor, exporter)', { timeout: 60_000 }, () => {
    // Node's compile cache lives in the OS temp dir: a temp dir of each run's own shows whether it was used.
    const cacheUsedBy = (args: string[]): boolean => {
      const temp = mkdtempSync(path.join(tmpdir(), 'keydeck-compile-cache-'));
      try {
        const env: NodeJS.ProcessEnv = { ...process.env, TMPDIR: temp, NO_COLOR: '1' };
        delete env.NODE_COMPILE_CACHE;
        delete env.NODE_DISABLE_COMPILE_CACHE;
        const run = spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8', timeout: 20_000, env, stdio: ['ignore', 'pipe', 'pipe'] });
        expect(run.error).toBeUndefined();
        return existsSync(path.join(temp, 'node-compile-cache'));
      } finally {
        rmSync(temp, { recursive: true, force: true });
      }
    };
    expect(cacheUsedBy(['help', 'environment'])).toBe(true);
    // Without a terminal both stop with a usage error, after the decision (taken before any action).
    expect(cacheUsedBy(['monitor'])).toBe(false);
    expect(cacheUsedBy(['exporter', '--listen', 'nonsense:x'])).toBe(false);
    // A Tab after `keydeck monitor` is a completion request, which answers at once: it keeps its compiled code.
    expect(cacheUsedBy(['__complete', '--', 'monitor', ''])).toBe(true);
  });

  it('ships no source maps and no TypeScript source; the library entries have .d.ts', () => {
    const all = readdirSync(DIST, { recursive: true }).map(String);
    expect(all.filter((f) => f.endsWith('.map'))).toEqual([]);
    expect(all.filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts'))).toEqual([]);
    const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { exports: Record<string, { types: string }> };
    // Beside the snapshot's dist/, which the rest of this file checks (the paths are relative to the package).
    for (const entry of Object.values(pkg.exports)) expect(readFileSync(path.join(DIST, '..', entry.types), 'utf8')).toMatch(/export/);
  });
});

describe('the Node.js version guard', () => {
  it('REQUIRED_NODE is the published package.json engines.node; the clone’s is the Node that runs npm', async () => {
    const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { engines: { node: string } };
    // @ts-expect-error -- a script of the repository, without types
    const { publishedManifest } = (await import('../../scripts/pack.mjs')) as { publishedManifest: (m: unknown) => { engines: { node: string } } };
    expect(publishedManifest(pkg).engines.node).toBe(`>=${REQUIRED_NODE.replace(/\.0$/, '')}`);
    expect(pkg.engines.node).toBe('>=20');
  });

  it('compares major, minor and patch as numbers', () => {
    expect(nodeIsRecentEnough('22.13.0')).toBe(true);
    expect(nodeIsRecentEnough('22.12.9')).toBe(false);
    expect(nodeIsRecentEnough('22.9.0')).toBe(false);
    expect(nodeIsRecentEnough('20.20.2')).toBe(false);
    expect(nodeIsRecentEnough('24.0.0')).toBe(true);
    expect(nodeIsRecentEnough('100.0.0')).toBe(true);
  });

  const old = oldNodes();
  it.skipIf(old.length === 0)(
    `on an older Node (${old.map((o) => `${o.bin} ${o.version}`).join(', ') || 'none on this machine'}) keydeck says so in one line and exits 5, which a systemd unit does not restart on`,
    () => {
      expect(OLD_NODE_EXIT_CODE).toBe(5);
      for (const { bin, version } of old) {
        for (const args of [['--version'], ['--help'], ['--sandbox'], ['keys', 'list']]) {
          const r = spawnSync(bin, [CLI, ...args], { encoding: 'utf8', timeout: 20_000 });
          expect(r.status, `${bin} ${args.join(' ')}`).toBe(OLD_NODE_EXIT_CODE);
          expect(r.stdout).toBe('');
          expect(r.stderr).toBe(`${oldNodeSentence(version)}\n`);
          expect(r.stderr).toContain(`Node.js ${version}`);
          expect(r.stderr).toContain('22.13.0');
          expect(r.stderr).not.toMatch(/\n\s+at |SyntaxError|node:internal/);
        }
        // The exporter's line is a log line in its --log-format, as every line it writes.
        const logfmt = spawnSync(bin, [CLI, 'exporter', '--all-profiles'], { encoding: 'utf8', timeout: 20_000 });
        expect(logfmt.status).toBe(OLD_NODE_EXIT_CODE);
        expect(logfmt.stderr).toMatch(/^time=\S+ level=error event=node_too_old msg="keydeck needs Node\.js 22\.13\.0 or newer, .*"\n$/);
        const json = spawnSync(bin, [CLI, 'exporter', '--log-format', 'json'], { encoding: 'utf8', timeout: 20_000 });
        expect(json.status).toBe(OLD_NODE_EXIT_CODE);
        expect(JSON.parse(json.stderr)).toMatchObject({ level: 'error', event: 'node_too_old', msg: oldNodeSentence(version) });
      }
    },
  );
  if (old.length === 0) console.log('the old-Node guard test is skipped: no Node.js older than 22.13 on this machine');
});
