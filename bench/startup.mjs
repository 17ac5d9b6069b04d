// Startup benchmark (not a test): from spawn to the first complete frame in a 100×30
// pseudo-terminal, read through @xterm/headless, median of 10 (after one warm-up round), for
//   - the bare Ink "hello" app (bench/fixtures/hello.tsx), bundled the same way as keydeck
//     (scripts/build.mjs bundleOptions) and rendered with keydeck's own Ink options (read from
//     src/tui/run.tsx RENDER_OPTIONS, so the two cannot drift apart);
//   - the same bare app with Node's compile cache (NODE_COMPILE_CACHE, in a temp dir): keydeck
//     turns that cache on for itself (src/bin.ts, module.enableCompileCache), a bare app does
//     not, so the ratio is printed against both;
//   - keydeck (`node dist/cli.js`, config and data in a temp dir) with its key in KEYDECK_TOKEN
//     and KEYDECK_BASE_URL pointing at a sandbox started separately (a child process, in memory):
//     the frame is complete when the header (`keydeck  SANDBOX`, the badge of a sandbox; LIVE elsewhere) and the pane tabs (`1 Keys …
//     3 Billing`) are drawn; "time to data" is when the Keys table shows the demo user's key
//     (GET /api/keys answered and drawn);
//   - keydeck with its key in the OS keychain, the way a user runs it after `keydeck auth login`:
//     a private D-Bus session with gnome-keyring (bench/fixtures/keyring-session.mjs), the key
//     stored there by `keydeck auth login --token-stdin`, no KEYDECK_TOKEN. Its first frame and its
//     time to data include the keychain read (keytar's child process, a D-Bus round trip). Left
//     out, with the reason printed, when dbus-run-session or gnome-keyring-daemon is missing.
// Each round runs the four one after another, so all see the same machine load.
// Target: keydeck's first complete frame ≤ 1.15 × the bare Ink app's (medians, same run; was 1.3).
// BENCH_QUICK=1: 3 rounds.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { atMost, benchEnv, bundle, CLI, createManagementKey, keydeckRenderOptions, median, QUICK, report, ROOT, round, spawnTimed, startSandboxProcess } from './fixtures/harness.mjs';

const RUNS = QUICK ? 3 : 10;
const FRAME = (s) => /keydeck\s+(?:LIVE|SANDBOX)/.test(s) && /1 Keys/.test(s) && /3 Billing/.test(s);
const DATA = (s) => s.includes('Standard subscr'); // the demo user's subscription key, in the Keys table
const HELLO = (s) => s.includes('hello from a bare Ink app');

/**
 * Starts a private keychain (see the header); resolves with `{ bus, close() }`, or with
 * `{ skipped: reason }` when this machine cannot run one.
 */
async function startKeyring(home) {
  for (const tool of ['dbus-run-session', 'gnome-keyring-daemon']) {
    if (spawnSync('sh', ['-c', `command -v ${tool}`]).status !== 0) return { skipped: `${tool} is not installed` };
  }
  const child = spawn('dbus-run-session', ['--', process.execPath, join(ROOT, 'bench/fixtures/keyring-session.mjs'), home], { stdio: ['pipe', 'pipe', 'pipe'] });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  let stderr = ''; // shown only if the session fails (dbus-daemon also warns about fd limits)
  child.stderr.setEncoding('utf8').on('data', (d) => (stderr += d));
  try {
    const { bus } = await new Promise((resolve, reject) => {
      createInterface({ input: child.stdout }).once('line', (line) => resolve(JSON.parse(line)));
      child.once('exit', (code) => reject(new Error(`the keyring session exited (${code}): ${stderr.trim()}`)));
    });
    return {
      bus,
      async close() {
        child.stdin.end();
        await exited;
      },
    };
  } catch (error) {
    return { skipped: error instanceof Error ? error.message : String(error) };
  }
}

/** `keydeck auth login --token-stdin` (stores a new management key in the keychain). */
function authLogin(env, baseUrl, sessionToken) {
  const r = spawnSync(process.execPath, [CLI, 'auth', 'login', '--base-url', baseUrl, '--token-stdin', '--name', 'startup bench'], { env, input: sessionToken, encoding: 'utf8', timeout: 30_000 });
  if (r.status !== 0) throw new Error(`keydeck auth login failed (${r.status}): ${r.stderr}`);
  if (!/Secret Service|keychain/i.test(r.stdout)) throw new Error(`keydeck auth login did not use the keychain: ${r.stdout} ${r.stderr}`);
}

/** One keydeck run: ms from spawn to the first complete frame and to the Keys table filled. */
async function keydeckRun(env) {
  const app = spawnTimed(CLI, [], { env });
  try {
    const frameAt = await app.waitForScreen(FRAME);
    const dataAt = await app.waitForScreen(DATA);
    return { frame: frameAt - app.spawnedAt, data: dataAt - app.spawnedAt };
  } finally {
    await app.stop();
  }
}

/** One bare Ink run: ms from spawn to the hello frame. */
async function helloRun(hello, env) {
  const app = spawnTimed(hello, [], { env });
  try {
    return (await app.waitForScreen(HELLO)) - app.spawnedAt;
  } finally {
    await app.stop();
  }
}

const options = keydeckRenderOptions();
const hello = await bundle(join(ROOT, 'bench/fixtures/hello.tsx'), 'hello', { define: { __KEYDECK_RENDER_OPTIONS__: JSON.stringify(options) } });
const sandbox = await startSandboxProcess();
const dir = mkdtempSync(join(tmpdir(), 'keydeck-bench-startup-'));
const tokenEnv = benchEnv(join(dir, 'token'), { KEYDECK_TOKEN: await createManagementKey(sandbox.url, sandbox.token, 'startup bench'), KEYDECK_BASE_URL: sandbox.url });
const keyring = await startKeyring(join(dir, 'keyring-home'));
let keychainEnv;
const helloCacheEnv = { ...tokenEnv, NODE_COMPILE_CACHE: join(dir, 'hello-compile-cache') };
const hellos = [];
const cachedHellos = [];
const token = { frame: [], data: [] };
const keychain = { frame: [], data: [] };
try {
  if (keyring.bus) {
    keychainEnv = benchEnv(join(dir, 'keychain'), { DBUS_SESSION_BUS_ADDRESS: keyring.bus });
    authLogin(keychainEnv, sandbox.url, sandbox.token);
  }
  for (let i = 0; i <= RUNS; i++) {
    const h = await helloRun(hello, tokenEnv);
    const hc = await helloRun(hello, helloCacheEnv);
    const t = await keydeckRun(tokenEnv);
    const k = keychainEnv ? await keydeckRun(keychainEnv) : undefined;
    if (i === 0) continue; // warm-up round: file cache, the pty helper's JIT
    hellos.push(h);
    cachedHellos.push(hc);
    token.frame.push(t.frame);
    token.data.push(t.data);
    if (k) {
      keychain.frame.push(k.frame);
      keychain.data.push(k.data);
    }
  }
} finally {
  await keyring.close?.();
  await sandbox.close();
  rmSync(dir, { recursive: true, force: true });
}

const spread = (values) => `median of ${values.length}, ${Math.round(Math.min(...values))}–${Math.round(Math.max(...values))} ms`;
const figure = (name, values) => ({ figure: `${name} (${spread(values)})`, value: round(median(values)), unit: 'ms' });
const ratio = median(token.frame) / median(hellos);
const cachedRatio = median(token.frame) / median(cachedHellos);
const figures = [
  figure('bare Ink app: spawn → first frame', hellos),
  figure('bare Ink app with the compile cache: spawn → first frame', cachedHellos),
  figure('keydeck: spawn → first complete frame (key in KEYDECK_TOKEN)', token.frame),
  atMost('keydeck first frame ÷ bare Ink first frame', round(ratio, 2), 1.15, '×'),
  { figure: 'keydeck first frame ÷ bare Ink first frame with the compile cache', value: round(cachedRatio, 2), unit: '×' },
  figure('keydeck: spawn → Keys table filled (KEYDECK_TOKEN)', token.data),
];
if (keychainEnv) {
  figures.push(figure('keydeck: spawn → first complete frame (key read from the keychain)', keychain.frame), figure('keydeck: spawn → Keys table filled (keychain read included)', keychain.data));
} else {
  figures.push({ figure: 'keydeck with the key in the keychain', value: `not measured: ${keyring.skipped}` });
}
report('startup', `startup: spawn → frame in a 100×30 pty, ${RUNS} rounds after a warm-up round`, figures);
