// Renders keydeck's panes into plain-text screen captures for README.md and docs/tui.md (`npm run screens`):
// docs/screens/keys.txt, management-keys.txt, billing.txt and usdc-topup.txt, at 100×30.
//
// 1. Builds dist/ (node scripts/build.mjs).
// 2. Fills a sandbox database in a temp dir with a demo account seen over three weeks: the
//    sandbox's demo user (a $25 top-up and a standard subscription), a $100 USDC top-up,
//    credit keys with some spend (one deactivated), a pro subscription, three management keys.
//    This process's clock is moved back and forward while it does so (screens-determinism.mjs),
//    so the keys have different ages.
// 3. Runs `keydeck --sandbox` on that database in a pseudo-terminal (test/e2e/pty.ts, read
//    through @xterm/headless) with KEYDECK_TOKEN set to one of the management keys (nothing is
//    stored), twice: first the USDC walk-through (usdc-topup.txt: the address step, a blank
//    line, then the QR code view after `v`; the simulated transfer is then verified, so the
//    top-up journal has a credited entry), then a fresh start for the Billing, Keys and
//    Management keys panes.
// 4. Checks that no full key value or session token is in any capture (only prefixes), and
//    writes the captures: the visible screen, one line per row, trailing spaces trimmed.
//
// Deterministic: the app and the sandbox run on a fixed clock and seeded randomness
// (scripts/screens-determinism.mjs, loaded with NODE_OPTIONS=--import), so dates, key prefixes,
// ids, the deposit address and its QR code are the same on every run. Two texts still vary
// and are rewritten at the same width: the sandbox's port (shown as a fixed one) and the
// header's "updated N s ago" (shown as "updated just now"). The script fails when a screen
// does not settle or a text it waits for never shows. Needs Node with TypeScript type
// stripping (22.18+, 24) to load test/e2e/pty.ts.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { installDeterminism, now, setNow } from './screens-determinism.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const OUT_DIR = path.join(ROOT, 'docs', 'screens');
const COLUMNS = 100;
const ROWS = 30;
/** The instant the captured session happens at (the clock of every process is set to it). */
const SESSION_AT = Date.UTC(2026, 2, 2, 9, 30, 0);
const SEED = 'keydeck-readme-screens';
/** The port shown instead of the sandbox's (same width: Linux picks 5-digit ephemeral ports). */
const SHOWN_PORT = '41827';
const DAY = 86_400_000;
const HOUR = 3_600_000;

if (!process.features.typescript) {
  console.error('screens: this Node cannot load test/e2e/pty.ts (no TypeScript type stripping): use Node 22.18+ or 24');
  process.exit(1);
}
execFileSync(process.execPath, ['scripts/build.mjs'], { cwd: ROOT, stdio: 'inherit' });

installDeterminism({ nowMs: SESSION_AT - 21 * DAY, seed: `${SEED}:prepare` });
const { startSandbox } = await import(pathToFileURL(path.join(ROOT, 'dist', 'sandbox.js')).href);
const { startApp } = await import(pathToFileURL(path.join(ROOT, 'test', 'e2e', 'pty.ts')).href);

const work = mkdtempSync(path.join(tmpdir(), 'keydeck-screens-'));
const dbPath = path.join(work, 'sandbox.db');
/** Every full secret seen: none may be in a capture. */
const secrets = [];

/** One request to the sandbox; returns the parsed body, throws on a status other than 200. */
async function call(base, method, route, token, body) {
  const res = await fetch(`${base}${route}`, {
    method,
    headers: { ...(token && { authorization: `Bearer ${token}` }), ...(body !== undefined && { 'content-type': 'application/json' }) },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`${method} ${route}: HTTP ${res.status} ${text}`);
  return text ? JSON.parse(text) : undefined;
}

/** Fills the database; returns the management key keydeck is given (KEYDECK_TOKEN). */
async function prepare() {
  const sandbox = await startSandbox({ dbPath, host: '127.0.0.1', port: 0 });
  try {
    const base = sandbox.url;
    const demo = sandbox.token;
    secrets.push(demo);
    const at = async (msBeforeSession, fn) => {
      setNow(SESSION_AT - msBeforeSession);
      return fn();
    };
    const managementKey = async (name) => {
      const created = await call(base, 'POST', '/api/keys/management', demo, { name });
      secrets.push(created.apiKey);
      return created.apiKey;
    };
    const creditKey = async (name) => {
      const created = await call(base, 'POST', '/api/keys/credit', demo, { name });
      secrets.push(created.apiKey);
      return created;
    };
    const spend = async (apiKey, usd, times) => {
      for (let i = 0; i < times; i++) {
        await call(base, 'POST', '/v1/chat/completions', apiKey, { model: 'demo', messages: [{ role: 'user', content: 'hello' }], sandbox_cost_usd: usd });
      }
    };

    const used = await at(19 * DAY, () => managementKey('keydeck@workstation'));
    await at(16 * DAY, async () => {
      const { data } = await call(base, 'POST', '/api/billing/topup', demo, { amount: 100, method: 'usdc' });
      const { txHash } = await call(base, 'POST', '/sandbox/chain/transfers', undefined, { to: data.address, amount: '100' });
      await call(base, 'POST', '/api/billing/verify-topup', demo, { txHash, amount: 100 });
    });
    const prod = await at(15 * DAY, () => creditKey('prod-backend'));
    const ci = await at(11 * DAY, () => managementKey('ci-deploy'));
    await at(10 * DAY, () => managementKey('old-laptop'));
    const staging = await at(8 * DAY, () => creditKey('staging'));
    await at(6 * DAY, async () => {
      const sub = await call(base, 'POST', '/sandbox/subscriptions', demo, { plan: 'pro', blocks: ['asia', 'americas'] });
      secrets.push(sub.apiKey);
    });
    const batch = await at(3 * DAY, () => creditKey('batch-jobs'));
    await at(2 * DAY, async () => {
      await spend(prod.apiKey, 4.5, 6);
      await spend(staging.apiKey, 1.25, 2);
      await spend(batch.apiKey, 2.2, 3);
    });
    await at(1 * DAY, () => call(base, 'PUT', `/api/keys/${staging.id}`, demo, { isActive: false }));
    await at(2 * HOUR, () => call(base, 'GET', '/api/keys', ci));
    return used;
  } finally {
    await sandbox.close();
  }
}

/**
 * `line` with every match of `pattern` (a /g regex) replaced by `replacement`, keeping the
 * layout: the difference in width is taken from (or given to) the first run of 2+ spaces after
 * the match (text aligned right of it stays put), else, when the line reaches the right edge
 * (right-aligned text), the last run of 2+ spaces before it.
 */
function replaceKeepingWidth(line, pattern, replacement) {
  let out = line;
  for (const m of [...line.matchAll(pattern)].reverse()) {
    const delta = replacement.length - m[0].length;
    let head = out.slice(0, m.index);
    let tail = out.slice(m.index + m[0].length);
    const resize = (gap) => ' '.repeat(Math.max(1, gap.length - delta));
    if (delta !== 0 && / {2,}/.test(tail)) tail = tail.replace(/ {2,}/, resize);
    else if (delta !== 0 && out.length >= COLUMNS && / {2,}/.test(head)) head = head.replace(/ {2,}(?!.* {2})/, resize);
    out = head + replacement + tail;
  }
  return out;
}

/** The screen as text: the sandbox's port fixed, "updated N s ago" shown as "updated just now". */
function captureText(app) {
  return app
    .screen()
    .map((line) => {
      let out = replaceKeepingWidth(line, /127\.0\.0\.1:\d+/g, `127.0.0.1:${SHOWN_PORT}`);
      out = replaceKeepingWidth(out, /updated \d+ (s|min) ago/g, 'updated just now');
      return out.trimEnd();
    })
    .join('\n');
}

/** Waits until the screen shows `text` and has stopped changing; returns the capture. */
async function settled(app, text) {
  await app.waitFor(text, 20_000);
  let last = captureText(app);
  for (let i = 0; i < 100; i++) {
    await new Promise((r) => setTimeout(r, 250));
    await app.waitFor('', 1000);
    const next = captureText(app);
    if (next === last) return next;
    last = next;
  }
  throw new Error(`the screen did not settle after ${String(text)}:\n${last}`);
}

/** Starts keydeck on the prepared database with the fixed clock and seed of `run`. */
function start(used, run) {
  const env = { ...process.env };
  for (const name of ['DBUS_SESSION_BUS_ADDRESS', 'DISPLAY', 'WAYLAND_DISPLAY', 'CI', 'KEYDECK_PROFILE', 'KEYDECK_BASE_URL', 'NO_COLOR']) delete env[name];
  Object.assign(env, {
    KEYDECK_TOKEN: used,
    KEYDECK_CONFIG_DIR: path.join(work, 'config'),
    KEYDECK_DATA_DIR: path.join(work, 'data'),
    KEYDECK_SANDBOX_DB: dbPath,
    HOME: path.join(work, 'home'),
    TZ: 'UTC',
    TERM: 'xterm-256color',
    NODE_OPTIONS: `--import=${pathToFileURL(path.join(ROOT, 'scripts', 'screens-determinism.mjs')).href}`,
    KEYDECK_SCREENS_NOW_MS: String(now()),
    KEYDECK_SCREENS_SEED: `${SEED}:${run}`,
  });
  mkdirSync(env.HOME, { recursive: true });
  return startApp({ args: ['--sandbox'], env, columns: COLUMNS, rows: ROWS });
}

/** Quits with `q` and waits for the exit (killed after 5 s). */
async function quit(app) {
  app.write('q');
  const timer = setTimeout(() => app.kill(), 5000);
  const { exitCode } = await app.exited;
  clearTimeout(timer);
  if (exitCode !== 0) throw new Error(`keydeck exited with ${exitCode}:\n${app.screenText()}`);
}

const captures = {};
let app;
try {
  const used = await prepare();
  setNow(SESSION_AT);

  // Run 1: the USDC walk-through (address step, then its QR code), then the simulated transfer
  // is verified so that the top-up journal (shown on the Billing pane) has a credited entry.
  app = start(used, 'walk-through');
  await app.waitFor('batch-jobs', 20_000);
  app.write('3');
  await app.waitFor('t top up');
  app.write('t');
  await app.waitFor('amount USD');
  app.write('50');
  await app.waitFor('amount USD: 50');
  app.write('\r');
  await app.waitFor('USDC');
  app.write('u\r'); // select USDC, enter goes on (digits do nothing on the method step)
  const step = await settled(app, /To address +0x[0-9a-fA-F]{40}/);
  app.write('v');
  const qr = await settled(app, 'Scan with a wallet');
  captures['usdc-topup'] = `${step}\n\n${qr}`;
  app.write('v');
  await app.waitFor('s simulate');
  app.write('s');
  await app.waitFor('press enter to verify it');
  app.write('\r');
  await app.waitFor('enter closes', 20_000);
  app.write('\r');
  await app.waitFor('recent top-ups (1)');
  await quit(app);

  // Run 2: a fresh start, as a user opens keydeck: Billing first (its trend has one sample),
  // then Keys and Management keys.
  app = start(used, 'panes');
  await app.waitFor('batch-jobs', 20_000);
  app.write('3');
  captures.billing = await settled(app, 'recent top-ups (1)');
  app.write('1');
  captures.keys = await settled(app, '▶1 Keys');
  app.write('2');
  captures['management-keys'] = await settled(app, 'ci-deploy');
  await quit(app);
} finally {
  app?.kill();
  rmSync(work, { recursive: true, force: true });
}

// Only prefixes: no full value, no escape sequence.
for (const [name, text] of Object.entries(captures)) {
  for (const secret of secrets) {
    if (text.includes(secret)) throw new Error(`${name}: a full secret (${secret.slice(0, 6)}…) is on screen`);
  }
  const long = /\b(sk|mk)_[0-9A-Za-z]{9,}|sess_[0-9A-Za-z]{6,}/.exec(text);
  if (long) throw new Error(`${name}: more than a key prefix is on screen (${long[0].slice(0, 6)}…)`);
  if (/[\u0000-\u0008\u000b-\u001f\u007f]/.test(text)) throw new Error(`${name}: a control character is in the capture`);
}

mkdirSync(OUT_DIR, { recursive: true });
for (const [name, text] of Object.entries(captures)) {
  const file = path.join(OUT_DIR, `${name}.txt`);
  writeFileSync(file, `${text}\n`);
  console.log(`wrote ${path.relative(ROOT, file)}`);
}

// README.md and docs/tui.md show the captures between `<!-- screens:NAME -->` and
// `<!-- /screens:NAME -->` markers: each block is replaced by the new capture in a text fence.
// Every capture must have a block in one of them.
const pages = ['README.md', 'docs/tui.md'].map((file) => ({ file, path: path.join(ROOT, file), text: readFileSync(path.join(ROOT, file), 'utf8') }));
for (const [name, text] of Object.entries(captures)) {
  const block = new RegExp(`(<!-- screens:${name} -->\\n)[\\s\\S]*?(<!-- /screens:${name} -->)`);
  const pagesWithIt = pages.filter((p) => block.test(p.text));
  if (pagesWithIt.length === 0) throw new Error(`neither README.md nor docs/tui.md has a <!-- screens:${name} --> block`);
  for (const p of pagesWithIt) p.text = p.text.replace(block, (_, open, close) => `${open}\`\`\`text\n${text}\n\`\`\`\n${close}`);
}
for (const p of pages) {
  writeFileSync(p.path, p.text);
  console.log(`updated ${p.file}`);
}
