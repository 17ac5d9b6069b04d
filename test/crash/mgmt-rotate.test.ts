/**
 * `mgmt-keys rotate` killed at every step (the machine of
 * src/operations/mgmtRotate.ts): the built CLI is killed with SIGKILL at each boundary it passes,
 * then taken up with `--finish`, `--undo` and a plain rerun, and the invariants are checked against
 * the sandbox and the files:
 *
 * - I1: the key in the place (keydeck's stored key; the token file) still works: an authenticated
 *   read with it is answered;
 * - the account holds exactly one management key, and it is that one (no extra key, none lost);
 * - no rotation is left recorded, no copy of the old key is left behind;
 * - an undo leaves the old key in place (unless it was deleted already); a rerun ends rotated;
 * - the token file keeps its mode and its final newline.
 *
 * The tables in docs/crash-safety.md are the walks' (./harness.ts syncDocBlock says how to write them again).
 */
import { chmodSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTempHome, runCli, type CliResult, type TempHome } from '../credentials/harness.js';
import { startTestSandbox, type TestSandbox } from '../sandbox/helpers.js';
import { crashTable, runUntilKilled, tracePoints, walkCrashPoints, type CrashOutcome, type CrashScenario, distinctWorlds, syncDocBlock, withoutStepTwins } from './harness.js';
import { inThread, walkStepPoints } from './steps.js';

let sb: TestSandbox;
beforeAll(async () => {
  sb = await startTestSandbox();
});
afterAll(async () => {
  await sb.close();
});

/** One world: a sandbox user whose management key is in a place keydeck rotates. */
interface World {
  readonly home: TempHome;
  readonly env: NodeJS.ProcessEnv;
  /** The user's session token (the sandbox's truth is read with it). */
  readonly session: string;
  /** The key before the rotation. */
  readonly original: string;
  /** The token file (the `--token-file` scenario). */
  readonly tokenFile?: string;
}

interface MgmtKey {
  readonly id: string;
  readonly name: string;
  readonly keyPrefix: string;
}

const keysOf = async (token: string): Promise<MgmtKey[]> => (await sb.call<MgmtKey[]>('GET', '/api/keys/management', { token })).body;
const dataDir = (w: World) => w.env.KEYDECK_DATA_DIR!;
const credentialsFile = (w: World) => path.join(w.home.configDir, 'credentials.json');

/** The key in the world's place now: the token file's, or the one keydeck stored (and its other entries). */
function inPlace(w: World): { key?: string; extras: string[] } {
  if (w.tokenFile) return existsSync(w.tokenFile) ? { key: readFileSync(w.tokenFile, 'utf8').trim(), extras: [] } : { extras: [] };
  if (!existsSync(credentialsFile(w))) return { extras: [] };
  const entries = JSON.parse(readFileSync(credentialsFile(w), 'utf8')) as Record<string, string>;
  const main = Object.keys(entries).find((k) => !k.includes('#'));
  return { ...(main && { key: entries[main] }), extras: Object.keys(entries).filter((k) => k !== main) };
}

async function freshWorld(tokenFile: boolean): Promise<World> {
  const home = makeTempHome();
  const env = home.env({ KEYDECK_BASE_URL: sb.url, KEYDECK_DATA_DIR: path.join(home.home, 'data') });
  const session = await sb.newUser();
  if (tokenFile) {
    const created = (await sb.call<{ apiKey: string }>('POST', '/api/keys/management', { token: session, body: { name: 'exporter' } })).body;
    const dir = path.join(home.home, 'etc');
    mkdirSync(dir, { mode: 0o700 });
    const file = path.join(dir, 'prod');
    writeFileSync(file, `${created.apiKey}\n`, { mode: 0o600 });
    chmodSync(file, 0o600);
    return { home, env, session, original: created.apiKey, tokenFile: file };
  }
  const login = await runCli(['auth', 'login', '--token-stdin', '--insecure-storage', '--name', 'cron'], { env, input: session });
  if (login.code !== 0) throw new Error(`login failed: ${login.stderr}`);
  const world: World = { home, env, session, original: '' };
  return { ...world, original: inPlace(world).key! };
}

/** What a recovery said, in a few words (the sentences of src/operations/mgmtRotate.ts). */
function said(r: CliResult): string {
  if (r.code !== 0)
    return `exit ${r.code}: ${
      r.stderr
        .split('\n')
        .find((l) => l.startsWith('keydeck:'))
        ?.slice(0, 120) ?? ''
    }`;
  const out = r.stdout;
  if (/^No unfinished rotation/m.test(out)) return 'nothing to take up';
  if (/^Nothing to undo/m.test(out)) return 'nothing to undo: the old key was deleted already';
  if (/^Undone: .* holds the old key .* again/m.test(out)) return 'undone: the old key put back, the new one deleted';
  if (/^Undone: the new key .* never stored, is deleted/m.test(out)) return 'undone: the new key, never stored, deleted';
  if (/^Undone: no new key was made/m.test(out)) return 'undone: no new key had been made';
  const resumed = /interrupted/.test(out) ? 'finished' : 'rotated';
  if (/before the new key was stored: the new key .* is deleted/m.test(out)) return `${resumed}: the lost new key deleted, another made`;
  if (/before the new key was stored: no new key was made/m.test(out)) return `${resumed}: rotated from the start`;
  if (/took the new key/m.test(out) && /^Deleted the old management key/m.test(out)) return `${resumed}: the new key checked, the old one deleted`;
  if (/^Deleted the old management key/m.test(out)) return 'rotated afresh';
  return out.trim().split('\n')[0] ?? '';
}

function scenario(tokenFile: boolean): CrashScenario<World> {
  const flags = (w: World) => (w.tokenFile ? ['--token-file', w.tokenFile] : []);
  const run = (w: World, extra: string[]) => runCli(['mgmt-keys', 'rotate', ...extra, ...flags(w)], { env: w.env });
  return {
    operation: tokenFile ? 'mgmt-keys rotate --token-file' : 'mgmt-keys rotate',
    prepare: () => freshWorld(tokenFile),
    dispose: (w) => w.home.remove(),
    run: (w) => ({ args: ['mgmt-keys', 'rotate', ...flags(w)], env: w.env }),
    recoveries: {
      '--finish': async (w) => said(await run(w, ['--finish'])),
      '--undo': async (w) => said(await run(w, ['--undo'])),
      rerun: async (w) => said(await run(w, [])),
    },
    // Every step of keydeck's own key, but before the first request and after the record's last
    // write (nothing to take up: the world of no rotation, or of one done); of a token file, the
    // steps that differ (its copy of the old key written, then the file itself). Those the walk of
    // the kit's steps below stops at too are walked there (withoutStepTwins).
    points: (traced, all) =>
      withoutStepTwins(
        distinctWorlds(traced, ['listManagementKeys'])
          .filter((p) => !p.startsWith('request:') && p !== traced.at(-1))
          .filter((p) => !tokenFile || /^file\.renamed:(prod|\.prod\.keydeck-previous)#/.test(p)),
        all,
      ),
    async invariants(w, recovery) {
      const broken: string[] = [];
      const { key, extras } = inPlace(w);
      if (key === undefined) return ['I1: the place holds no key'];
      const read = await sb.call('GET', '/api/keys/management', { token: key });
      if (read.status !== 200) broken.push(`I1: the key in the place is refused (${read.status})`);
      const keys = await keysOf(w.session);
      if (keys.length !== 1) broken.push(`${keys.length} management keys on the account (${keys.map((k) => k.name).join(', ')})`);
      else if (keys[0]!.keyPrefix !== key.slice(0, 11)) broken.push('the one key on the account is not the one in the place');
      const originalListed = keys.some((k) => k.keyPrefix === w.original.slice(0, 11));
      if (recovery === '--undo' && originalListed && key !== w.original) broken.push('undo left the new key in the place while the old one exists');
      if (recovery === 'rerun' && key === w.original) broken.push('a rerun did not rotate');
      if (extras.length > 0) broken.push(`the key file keeps ${extras.join(', ')}`);
      const record = path.join(dataDir(w), 'mgmt-rotations.json');
      if (existsSync(record) && (JSON.parse(readFileSync(record, 'utf8')) as { rotations: unknown[] }).rotations.length > 0) broken.push('a rotation is still recorded');
      if (w.tokenFile) {
        if ((statSync(w.tokenFile).mode & 0o777) !== 0o600) broken.push('the token file lost its mode');
        if (!readFileSync(w.tokenFile, 'utf8').endsWith('\n')) broken.push('the token file lost its final newline');
        if (existsSync(path.join(path.dirname(w.tokenFile), '.prod.keydeck-previous'))) broken.push('the copy of the old key is left beside the token file');
      }
      return broken;
    },
  };
}

/** The walk's table, checked against (or written to) docs/crash-safety.md. */
function tables(parts: ReadonlyArray<{ title: string; outcomes: readonly CrashOutcome[] }>): string {
  return parts.map((p) => `${p.title}\n\n${crashTable(p.outcomes)}`).join('\n\n');
}

describe('mgmt-keys rotate killed at every step', () => {
  it('keeps I1 and leaves one working key, whatever step is killed and however it is taken up; docs/crash-safety.md has the table', { timeout: 240_000 }, async () => {
    const [own, file] = await Promise.all([walkCrashPoints(scenario(false), { concurrency: 2 }), walkCrashPoints(scenario(true), { concurrency: 2 })]);
    const outcomes = [...own.outcomes, ...file.outcomes];
    expect(outcomes.filter((o) => o.violations.length > 0).map((o) => `${o.operation} at ${o.point}, ${o.recovery}: ${o.violations.join('; ')}`)).toEqual([]);
    const table = tables([
      { title: "**`keydeck mgmt-keys rotate`** (keydeck's own key, here in the plaintext key file):", outcomes: own.outcomes },
      { title: '**`keydeck mgmt-keys rotate --token-file PATH`** (a token file another program reads):', outcomes: file.outcomes },
    ]);
    expect(await syncDocBlock('mgmt-keys-rotate', table), 'the walk changed: KEYDECK_CRASH_DOCS=write npx vitest run test/crash (test/crash/harness.ts)').toBe(table);
  });
});

describe('mgmt-keys rotate stopped at every step of the kit, in process', () => {
  it('keeps I1 and leaves one working key, whatever step it stops at and however it is taken up; docs/crash-safety.md has the table', { timeout: 240_000 }, async () => {
    const [own, file] = await Promise.all([walkStepPoints(inThread(scenario(false)), { concurrency: 2 }), walkStepPoints(inThread(scenario(true)), { concurrency: 2 })]);
    const outcomes = [...own.outcomes, ...file.outcomes];
    expect(outcomes.filter((o) => o.violations.length > 0).map((o) => `${o.operation} at ${o.point}, ${o.recovery}: ${o.violations.join('; ')}`)).toEqual([]);
    const table = tables([
      { title: "**`keydeck mgmt-keys rotate`** (keydeck's own key, here in the plaintext key file):", outcomes: own.outcomes },
      { title: '**`keydeck mgmt-keys rotate --token-file PATH`** (a token file another program reads):', outcomes: file.outcomes },
    ]);
    expect(await syncDocBlock('mgmt-keys-rotate-steps', table), 'the walk changed: KEYDECK_CRASH_DOCS=write npx vitest run test/crash (test/crash/harness.ts)').toBe(table);
  });
});

describe('killed after the new key was stored, before its record said so', () => {
  /** The point after the new key was written to the store: the last store write of a traced rotation. */
  async function storedPoint(): Promise<string> {
    const w = await freshWorld(false);
    try {
      const { points } = await tracePoints(['mgmt-keys', 'rotate'], { env: w.env });
      return points.filter((p) => p.startsWith('store.written:')).at(-1)!;
    } finally {
      w.home.remove();
    }
  }

  it('--undo puts the old key back and leaves no extra management key; --finish keeps the stored key and ends with it', async () => {
    const point = await storedPoint();
    for (const recovery of ['--undo', '--finish']) {
      const w = await freshWorld(false);
      try {
        await runUntilKilled(point, ['mgmt-keys', 'rotate'], { env: w.env });
        const r = await runCli(['mgmt-keys', 'rotate', recovery], { env: w.env });
        expect(r.code, r.stderr).toBe(0);
        const key = inPlace(w).key!;
        // The stored key works (an authenticated read through keydeck itself), and it is the only key.
        const list = await runCli(['mgmt-keys', 'list', '--json'], { env: w.env });
        expect(list.code, list.stderr).toBe(0);
        const keys = await keysOf(w.session);
        expect(keys.map((k) => k.keyPrefix)).toEqual([key.slice(0, 11)]);
        if (recovery === '--undo') expect(key).toBe(w.original);
        else expect(key).not.toBe(w.original);
      } finally {
        w.home.remove();
      }
    }
  });
});
