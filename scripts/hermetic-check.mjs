// Runs the suites from the shell of a user who has a keydeck of their own, and checks that they
// leave it untouched (test/global-setup.ts hermeticEnvironment, test/hermetic.test.ts).
// The user: HOME, XDG_CONFIG_HOME and XDG_DATA_HOME in a temp dir, KEYDECK_CONFIG_DIR and
// KEYDECK_DATA_DIR pointing at their keydeck there, KEYDECK_BASE_URL and KEYDECK_TOKEN set, a profile and a credential (--insecure-storage) in their config, and their
// sandbox running (`keydeck sandbox`, holding its data dir's lock, on port 8787, keydeck's
// default, when free). Then `vitest run` (arguments go to it: a file or two to try, none for the
// whole suite) in that environment. Afterwards every file of the user's keydeck must be as it was
// (size and SHA-256; the sandbox's own database and its journal files aside: the sandbox writes
// them itself; and vitest's own token file), the sandbox still running, and its account still the one it was.
// Usage: node scripts/hermetic-check.mjs [vitest args…], or `-- COMMAND…` to run that instead of
// vitest (`-- node scripts/count-assertions.mjs --json FILE`). Exit 0: the suite passed and nothing of
// the user's changed; 1 otherwise (what changed is printed).
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const cli = join(root, 'dist', 'cli.js');
const user = mkdtempSync(join(tmpdir(), 'keydeck-hermetic-user-'));
const home = join(user, 'home');
mkdirSync(home);
const keydeckEnv = {
  HOME: home,
  XDG_CONFIG_HOME: join(home, '.config'),
  XDG_DATA_HOME: join(home, '.local', 'share'),
  KEYDECK_CONFIG_DIR: join(home, '.config', 'keydeck'),
  KEYDECK_DATA_DIR: join(home, '.local', 'share', 'keydeck'),
  // The user's npm cache is npm's, not keydeck's: the packaging suites install from it.
  npm_config_cache: process.env.npm_config_cache ?? join(process.env.HOME ?? home, '.npm'),
};
const env = { ...process.env, ...keydeckEnv };

/** `keydeck …args` as the user; its stdout. Throws when it fails. */
function keydeck(args, input) {
  const r = spawnSync(process.execPath, [cli, ...args], { env, input, encoding: 'utf8', timeout: 60_000 });
  if (r.status !== 0) throw new Error(`keydeck ${args.join(' ')} exited ${r.status}: ${r.stderr}`);
  return r.stdout;
}

/** True when nothing listens on loopback `port`. */
function portFree(port) {
  return new Promise((resolve) => {
    const server = net.createServer().once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/** Every file under `dir`: relative path → `size sha256`. */
function snapshot(dir) {
  const files = new Map();
  const walk = (d) => {
    for (const name of readdirSync(d)) {
      const full = join(d, name);
      const st = statSync(full);
      if (st.isDirectory()) walk(full);
      else if (st.isFile()) files.set(relative(dir, full), `${st.size} ${createHash('sha256').update(readFileSync(full)).digest('hex')}`);
      else files.set(relative(dir, full), st.isSocket() ? 'socket' : 'other');
    }
  };
  walk(dir);
  return files;
}

// The user's keydeck: their sandbox, running; a profile with its key stored in the config dir.
const port = (await portFree(8787)) ? 8787 : 0;
const sandbox = spawn(process.execPath, [cli, 'sandbox', '--port', String(port)], { env, stdio: ['ignore', 'pipe', 'inherit'] });
const sandboxExited = new Promise((resolve) => sandbox.once('exit', resolve));
// It prints `sandbox listening on URL`, then `session token: sess_…`.
const { url, token } = await new Promise((resolve, reject) => {
  let listening;
  createInterface({ input: sandbox.stdout }).on('line', (line) => {
    listening ??= /listening on (https?:\/\/\S+)/.exec(line)?.[1];
    const session = /session token: (\S+)/.exec(line)?.[1];
    if (listening && session) resolve({ url: listening, token: session });
  });
  sandbox.once('exit', (code) => reject(new Error(`the user's sandbox exited (${code})`)));
});
const result = { ok: true, notes: [] };
try {
  keydeck(['auth', 'login', '--base-url', url, '--token-stdin', '--insecure-storage', '--name', 'the user’s own'], `${token}\n`);
  Object.assign(env, { KEYDECK_BASE_URL: url, KEYDECK_TOKEN: token });
  const accountBefore = keydeck(['keys', 'list', '--json']);
  const before = snapshot(user);
  console.log(`hermetic-check: the user's keydeck in ${user}, their sandbox at ${url}; running ${process.argv.slice(2).join(' ') || 'vitest run'}`);

  // `-- COMMAND…` runs that instead of vitest (e.g. `-- node scripts/count-assertions.mjs`), in the same environment.
  const args = process.argv.slice(2);
  const [command, ...rest] = args[0] === '--' ? args.slice(1) : [process.execPath, join(root, 'node_modules', 'vitest', 'vitest.mjs'), 'run', ...args];
  const suites = spawnSync(command, rest, { cwd: root, env, stdio: 'inherit' });
  if (suites.status !== 0) {
    result.ok = false;
    result.notes.push(`${args[0] === '--' ? args.slice(1).join(' ') : 'vitest'} exited ${suites.status}`);
  }

  const after = snapshot(user);
  // The sandbox's own database, and vitest's own token (written in the user's XDG data dir by
  // vitest itself as it starts, before the suites' set-up: not a test's doing).
  const ownWrites = /(^|\/)sandbox\.db(-wal|-shm|-journal)?$|^home\/\.local\/share\/vitest\//;
  for (const [file, was] of before)
    if (!ownWrites.test(file) && after.get(file) !== was) {
      result.ok = false;
      result.notes.push(`changed or removed: ${file}`);
    }
  for (const file of after.keys())
    if (!before.has(file) && !ownWrites.test(file)) {
      result.ok = false;
      result.notes.push(`added: ${file}`);
    }
  if (sandbox.exitCode !== null) {
    result.ok = false;
    result.notes.push(`the user's sandbox exited (${sandbox.exitCode})`);
  } else if (keydeck(['keys', 'list', '--json']) !== accountBefore) {
    result.ok = false;
    result.notes.push("the user's sandbox account changed");
  }
} finally {
  sandbox.kill('SIGTERM');
  await sandboxExited;
  if (result.ok) rmSync(user, { recursive: true, force: true });
}
console.log(result.ok ? 'hermetic-check: the suite passed and left the user’s keydeck as it was' : `hermetic-check: FAILED\n  ${result.notes.join('\n  ')}\n  (the user's dir is kept: ${user})`);
process.exit(result.ok ? 0 : 1);
