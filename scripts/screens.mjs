// Renders keydeck's panes into plain-text screen captures for README.md and docs/tui.md (`npm run screens`):
// docs/screens/keys.txt, management-keys.txt, billing.txt and usdc-topup.txt, at 100×30.
//
// 1. Builds dist/ (node scripts/build.mjs).
// 2. Runs `keydeck --sandbox` in a pseudo-terminal (@lydell/node-pty, read through @xterm/headless)
//    on a fresh data dir, exactly as `npm start` does for a new user: the embedded sandbox creates
//    its demo account (src/sandbox/demo.ts: three weeks of keys, spend and top-ups), which keydeck
//    signs in to by itself with the demo session token (no setup, no keychain),
//    and the first screen after it is the Keys capture; then Management keys and Billing, then the
//    USDC walk-through (usdc-topup.txt: the address step, a blank line, then the QR code view after `v`).
// 3. Checks that no full key value or session token is in any capture (only prefixes), and
//    writes the captures: the visible screen, one line per row, trailing spaces trimmed.
//
// Deterministic: the app and its embedded sandbox run on a fixed clock and seeded randomness
// (scripts/screens-determinism.mjs, loaded with NODE_OPTIONS=--import), so dates, key prefixes,
// ids, the deposit address and its QR code are the same on every run. Two texts still vary
// and are rewritten at the same width: the sandbox's port (shown as a fixed one) and the
// header's "updated N s ago" (shown as "updated just now"). The script fails when a screen
// does not settle or a text it waits for never shows.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { spawn as spawnPty } from '@lydell/node-pty';
import xtermHeadless from '@xterm/headless';

const { Terminal } = xtermHeadless;

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const OUT_DIR = path.join(ROOT, 'docs', 'screens');
const COLUMNS = 100;
const ROWS = 30;
/** The instant the captured session happens at (the clock of every process is set to it). */
const SESSION_AT = Date.UTC(2026, 2, 2, 9, 30, 0);
const SEED = 'keydeck-readme-screens';
/** The port shown instead of the sandbox's (same width: Linux picks 5-digit ephemeral ports). */
const SHOWN_PORT = '41827';

execFileSync(process.execPath, ['scripts/build.mjs'], { cwd: ROOT, stdio: 'inherit' });

/**
 * `node dist/cli.js …args` in a pty of `columns` × `rows`, its screen read as a terminal shows it
 * (as test/e2e/pty.ts does for the suites, without the suites' harness).
 */
function startApp({ args, env, columns, rows }) {
  const term = new Terminal({ cols: columns, rows, allowProposedApi: true });
  const pty = spawnPty(process.execPath, [path.join(ROOT, 'dist', 'cli.js'), ...args], { name: 'xterm-256color', cols: columns, rows, cwd: ROOT, env });
  pty.onData((d) => term.write(d));
  const screen = () => {
    const buf = term.buffer.active;
    return Array.from({ length: term.rows }, (_, i) => (buf.getLine(buf.viewportY + i)?.translateToString(true) ?? '').trimEnd());
  };
  return {
    screen,
    write: (d) => pty.write(d),
    kill: () => pty.kill(),
    async waitFor(text, timeoutMs = 15_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        await new Promise((r) => term.write('', r));
        const s = screen().join('\n');
        if (typeof text === 'string' ? s.includes(text) : typeof text === 'function' ? text(s) : text.test(s)) return;
        if (Date.now() > deadline) throw new Error(`timed out waiting for ${String(text)}; screen:\n${s}`);
        await new Promise((r) => setTimeout(r, 50));
      }
    },
  };
}

const work = mkdtempSync(path.join(tmpdir(), 'keydeck-screens-'));
const dataDir = path.join(work, 'data');
/** Every full secret seen: none may be in a capture. */
const secrets = [];

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

/** Starts `keydeck --sandbox` as a new user (fresh config and data dirs) with the fixed clock and seed of `run`. */
function start(run) {
  const env = { ...process.env };
  for (const name of ['DBUS_SESSION_BUS_ADDRESS', 'DISPLAY', 'WAYLAND_DISPLAY', 'CI', 'KEYDECK_TOKEN', 'KEYDECK_PROFILE', 'KEYDECK_BASE_URL', 'KEYDECK_SANDBOX_DB', 'NO_COLOR']) delete env[name];
  Object.assign(env, {
    KEYDECK_CONFIG_DIR: path.join(work, 'config'),
    KEYDECK_DATA_DIR: dataDir,
    HOME: path.join(work, 'home'),
    TZ: 'UTC',
    TERM: 'xterm-256color',
    NODE_OPTIONS: `--import=${pathToFileURL(path.join(ROOT, 'scripts', 'screens-determinism.mjs')).href}`,
    KEYDECK_SCREENS_NOW_MS: String(SESSION_AT),
    KEYDECK_SCREENS_SEED: `${SEED}:${run}`,
  });
  mkdirSync(env.HOME, { recursive: true });
  return startApp({ args: ['--sandbox'], env, columns: COLUMNS, rows: ROWS });
}

const captures = {};
let app;
try {
  // What a new user sees after `npm start`: the demo account, signed in by itself, Keys first.
  app = start('first-start');
  await app.waitFor('batch-jobs', 20_000);
  const state = JSON.parse(readFileSync(path.join(dataDir, 'sandbox.db.json'), 'utf8'));
  secrets.push(state.token);
  captures.keys = await settled(app, '▶1 Keys');
  app.write('2');
  captures['management-keys'] = await settled(app, 'ci-deploy');
  app.write('3');
  captures.billing = await settled(app, 'top spenders');

  // The USDC walk-through (docs/tui.md): the address step, then its QR code.
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
