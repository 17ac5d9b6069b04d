// Accounts view benchmark (not a test): the built app (`node dist/cli.js`, config and data in a temp
// dir) with four profiles: alpha and beta (read-only) on a sandbox, gamma (protected) on a second
// sandbox that is stopped, nokey with no stored credential (each credential stored by `keydeck auth
// login --token-stdin --insecure-storage`, as a user without a keychain does). Each round spawns it
// in a pseudo-terminal, presses `0` at its first frame, and times, from spawn:
//   - the app's own balance in the header (`$84.20 left`: the shown account's first read);
//   - every row of the Accounts pane: alpha and beta with figures, gamma down with its reason, nokey
//     "no key" (src/tui/accounts/: one watcher per profile, src/watcher/profileWatchers.ts).
// At 100×30 and at 80×24, median of 7 rounds (BENCH_QUICK=1: 3).
// Target: every row within 3 s of start (the done-when of the Accounts view), at both sizes.
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { atMost, benchEnv, CLI, median, QUICK, report, round, spawnTimed, startSandboxProcess } from './fixtures/harness.mjs';

const RUNS = QUICK ? 3 : 7;
const FRAME = (s) => /profile alpha/.test(s);
const OWN = (s) => s.includes('$84.20 left');
const ALL = (s) => /alpha .*\$84\.20/.test(s) && /beta RO .*\$84\.20/.test(s) && /gamma P .*down/.test(s) && /↳ offline since/.test(s) && /nokey .*no key/.test(s);

const dir = mkdtempSync(join(tmpdir(), 'keydeck-bench-accounts-'));
process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
const live = await startSandboxProcess(join(dir, 'a.db'));
const other = await startSandboxProcess(join(dir, 'b.db'));
const env = benchEnv(dir);
mkdirSync(env.KEYDECK_CONFIG_DIR, { recursive: true, mode: 0o700 });
chmodSync(env.KEYDECK_CONFIG_DIR, 0o700);
const configFile = join(env.KEYDECK_CONFIG_DIR, 'config.json');
const writeConfig = (readOnly) =>
  writeFileSync(
    configFile,
    JSON.stringify({
      version: 1,
      currentProfile: 'alpha',
      profiles: { alpha: { baseUrl: live.url }, beta: { baseUrl: live.url, readOnly }, gamma: { baseUrl: other.url, protected: true }, nokey: { baseUrl: other.url } },
    }),
    { mode: 0o600 },
  );
writeConfig(false);
for (const [profile, token] of [
  ['alpha', live.token],
  ['beta', live.token],
  ['gamma', other.token],
]) {
  const login = spawnSync(process.execPath, [CLI, '--profile', profile, '--insecure-storage', 'auth', 'login', '--token-stdin'], { env, input: `${token}\n`, encoding: 'utf8' });
  if (login.status !== 0) throw new Error(`auth login of ${profile} failed: ${login.stderr}`);
}
writeConfig(true);
await other.close();

const sizes = [
  [100, 30],
  [80, 24],
];
const times = new Map(sizes.map(([c, r]) => [`${c}x${r}`, { own: [], all: [] }]));
for (let round_ = 0; round_ <= RUNS; round_++) {
  for (const [columns, rows] of sizes) {
    const app = spawnTimed(CLI, [], { env, columns, rows });
    await app.waitForScreen(FRAME);
    app.write('0');
    const [own, all] = await Promise.all([app.waitForScreen(OWN), app.waitForScreen(ALL)]);
    await app.stop();
    // Round 0 warms the machine's caches; it is not counted.
    if (round_ === 0) continue;
    const t = times.get(`${columns}x${rows}`);
    t.own.push(own - app.spawnedAt);
    t.all.push(all - app.spawnedAt);
  }
}
await live.close();

const figures = [];
for (const [size, t] of times) {
  figures.push({ figure: `${size}: the shown account's balance in the header (median)`, value: round(median(t.own), 0), unit: 'ms' });
  figures.push(atMost(`${size}: every row of the Accounts pane, the stopped one down (median)`, round(median(t.all), 0), 3000, 'ms'));
}
report('accounts', `Accounts view: four profiles, one sandbox stopped, from spawn (median of ${RUNS})`, figures);
