/**
 * The world of the key operations' crash walks (keys create, keys rotate, a pledge's key): a
 * sandbox user, a throwaway home and data dir, an application directory with a dotenv file that
 * already holds a line, and a destination command (a shell script standing in for `gh secret set`:
 * it keeps what it read on stdin, written atomically, and lists its pid). Readers give the truth
 * the invariants are checked against: the service's keys, what each destination holds, what is
 * left in keydeck's records and beside the file.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'dotenv';
import { makeTempHome, runCli, type CliResult, type TempHome } from '../credentials/harness.js';
import type { TestSandbox } from '../sandbox/helpers.js';

/** One world. */
export interface KeyWorld {
  readonly sb: TestSandbox;
  readonly token: string;
  readonly home: TempHome;
  readonly dataDir: string;
  readonly app: string;
  /** The dotenv destination. */
  readonly envFile: string;
  /** What it held before the operation. */
  readonly envBefore: string;
  /** The destination command (a script). */
  readonly take: string;
  /** Where the command keeps what it took. */
  readonly taken: string;
  /** The CLI's environment in this world. */
  readonly cliEnv: NodeJS.ProcessEnv;
  /** Output of the recovery (for the check that a kept key was named to the user). */
  said: string;
  /** Ids of the keys the account had before the operation (an old key the file held before). */
  existing: string[];
}

/**
 * Makes a world under `root` for `token`; `envBefore` is the dotenv file's content (written 0600).
 * `defaultDataDir`: no `KEYDECK_DATA_DIR` is given; keydeck's data dir is its default under the
 * world's home (`$XDG_DATA_HOME/keydeck`, src/config/paths.ts).
 */
export function makeKeyWorld(sb: TestSandbox, root: string, token: string, envBefore: string, options: { readonly defaultDataDir?: boolean } = {}): KeyWorld {
  const dir = mkdtempSync(path.join(root, 'world-'));
  const home = makeTempHome();
  const xdgData = path.join(home.home, '.local', 'share');
  const dataDir = options.defaultDataDir ? path.join(xdgData, 'keydeck') : path.join(dir, 'data');
  const app = path.join(dir, 'app');
  mkdirSync(app, { mode: 0o700 });
  const envFile = path.join(app, '.env');
  writeFileSync(envFile, envBefore, { mode: 0o600 });
  const taken = path.join(dir, 'taken');
  const take = path.join(dir, 'take.sh');
  writeFileSync(take, `#!/bin/sh\necho $$ >> "${dir}/pids"\ncat > "${taken}.tmp" && mv "${taken}.tmp" "${taken}"\n`, { mode: 0o755 });
  const cliEnv = home.env({ KEYDECK_BASE_URL: sb.url, KEYDECK_TOKEN: token, ...(options.defaultDataDir ? { XDG_DATA_HOME: xdgData } : { KEYDECK_DATA_DIR: dataDir }) });
  return { sb, token, home, dataDir, app, envFile, envBefore, take, taken, cliEnv, said: '', existing: [] };
}

/** Removes the world's files. */
export function disposeKeyWorld(w: KeyWorld): void {
  w.home.remove();
  rmSync(path.dirname(w.app), { recursive: true, force: true });
}

/**
 * Waits until every run of the destination command has ended (a command started by the killed
 * keydeck runs on in its own process group), at most 5 s, so that the world no longer moves.
 */
export async function settle(w: KeyWorld): Promise<void> {
  const file = path.join(path.dirname(w.app), 'pids');
  const deadline = Date.now() + 5000;
  for (;;) {
    const pids = existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter(Boolean) : [];
    // A run just spawned may not have written its pid yet (a busy machine): it is found by its command line too.
    if ((pids.every((p) => !existsSync(`/proc/${p}`)) && !commandRunning(w.take)) || Date.now() > deadline) return;
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** True while a process runs `script` (its path on its command line), as the killed keydeck's command may. */
function commandRunning(script: string): boolean {
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes(script)) return true;
    } catch {
      // The process ended while it was looked at.
    }
  }
  return false;
}

/** Runs a recovery (`keydeck …args`) in the test's thread after the world settled; keeps its output in `w.said`. */
export async function recover(w: KeyWorld, args: readonly string[]): Promise<CliResult> {
  await settle(w);
  const r = await runCli(args, { env: w.cliEnv });
  w.said = `${r.stdout}\n${r.stderr}`;
  return r;
}

/** The consumption keys of the world's account, as the sandbox has them. */
export async function keysOf(w: KeyWorld): Promise<Array<{ id: string; name: string; isActive: boolean; subscriptionId?: string }>> {
  const r = await w.sb.call('GET', '/api/keys', { token: w.token });
  if (r.status !== 200) throw new Error(`the sandbox refused the key list (${r.status}): I1 broken?`);
  // The newer pages' dialect wraps answers in { success, data }.
  return Array.isArray(r.body) ? r.body : r.body.data;
}

/** The key the dotenv file holds, undefined when none (or no file). */
export function fileKey(w: KeyWorld, variable = 'KEYDECK_API_KEY'): string | undefined {
  return existsSync(w.envFile) ? parse(readFileSync(w.envFile, 'utf8'))[variable] : undefined;
}

/** The dotenv file's text, or undefined. */
export function fileText(w: KeyWorld): string | undefined {
  return existsSync(w.envFile) ? readFileSync(w.envFile, 'utf8') : undefined;
}

/** What the command took, undefined when it never ran to its end (or took nothing). */
export function takenKey(w: KeyWorld): string | undefined {
  const v = existsSync(w.taken) ? readFileSync(w.taken, 'utf8') : '';
  return v === '' ? undefined : v;
}

/**
 * The listed key whose value is `value` when it works on the service (`GET /v1/usage` with it
 * answers, as for an active key: it names the key and its creation time), else undefined.
 * `listed`: the account's keys as just read (the world settled since), else read here.
 */
export async function keyIdOf(w: KeyWorld, value: string, listed?: Awaited<ReturnType<typeof keysOf>>): Promise<string | undefined> {
  const r = await w.sb.call('GET', '/v1/usage', { token: value });
  if (r.status !== 200) return undefined;
  const me = r.body?.key as { name?: string; created_at?: string } | undefined;
  const keys = listed ?? (await keysOf(w));
  return keys.find((k) => k.name === me?.name && (k as { createdAt?: string }).createdAt === me?.created_at && k.isActive)?.id;
}

/** The copies of previous content left beside the file. */
export function backupsLeft(w: KeyWorld): string[] {
  return readdirSync(w.app).filter((f) => f.includes('.keydeck-before'));
}

/** The unfinished entries of keydeck's records (operations.json, rotations.json). */
export function recordsLeft(w: KeyWorld): string[] {
  const left: string[] = [];
  for (const [file, field] of [
    ['operations.json', 'operations'],
    ['rotations.json', 'rotations'],
  ] as const) {
    const p = path.join(w.dataDir, file);
    if (!existsSync(p)) continue;
    const entries = (JSON.parse(readFileSync(p, 'utf8')) as Record<string, unknown[]>)[field] ?? [];
    for (const e of entries) left.push(`${file}: ${(e as { state?: string }).state ?? '?'}`);
  }
  return left;
}

/** The checks every key operation shares, after any recovery: one sentence per broken invariant. */
export async function commonInvariants(w: KeyWorld): Promise<string[]> {
  const broken: string[] = [];
  const keys = await keysOf(w).catch((err: Error) => {
    broken.push(`I1: ${err.message}`);
    return [];
  });
  // I3: every destination holds a key that works (or none). Each value is looked up once, against
  // the list just read: the world is settled (a recovery ended), so neither changes meanwhile.
  const inFile = fileKey(w);
  const fileId = inFile === undefined ? undefined : await keyIdOf(w, inFile, keys);
  if (inFile !== undefined && fileId === undefined) broken.push('I3: the file holds a key that does not work');
  const inCommand = takenKey(w);
  const commandId = inCommand === undefined ? undefined : await keyIdOf(w, inCommand, keys);
  if (inCommand !== undefined && commandId === undefined) broken.push('I3: the command holds a key that does not work');
  // I5: the file is whole: what it held before, or that with the key's line (and nothing else).
  const text = fileText(w);
  const withKey = /^KEYDECK_API_KEY=/m.test(w.envBefore) ? w.envBefore.replace(/^KEYDECK_API_KEY=.*$/m, `KEYDECK_API_KEY=${inFile}`) : `${w.envBefore}KEYDECK_API_KEY=${inFile}\n`;
  if (text !== undefined && text !== w.envBefore && text !== withKey) broken.push('I5: the file is neither as before nor as before with the key');
  // I2: every active key is held by a destination, or named to the user with what to do.
  for (const k of keys.filter((k) => k.isActive)) {
    const held = (fileId !== undefined && fileId === k.id) || (commandId !== undefined && commandId === k.id);
    if (!held && !w.said.includes(k.id) && !w.existing.includes(k.id)) broken.push(`I2: the key "${k.name}" is active, held by no destination and never named`);
  }
  if (recordsLeft(w).length > 0) broken.push(`the operation is still recorded (${recordsLeft(w).join(', ')})`);
  if (backupsLeft(w).length > 0) broken.push(`copies of previous content left: ${backupsLeft(w).join(', ')}`);
  return broken;
}

/**
 * The world after a recovery in a few words, the same for every run (names, never ids or values):
 * `exit 0 · keys: web · .env: new key · command: same key`.
 */
export async function worldSummary(w: KeyWorld, code: number | null): Promise<string> {
  const keys = await keysOf(w);
  const active = keys
    .filter((k) => k.isActive)
    .map((k) => k.name)
    .sort();
  const inFile = fileKey(w);
  const text = fileText(w);
  const file = text === w.envBefore ? 'as before' : inFile !== undefined && (await keyIdOf(w, inFile, keys)) !== undefined ? 'new key' : 'other';
  const inCommand = takenKey(w);
  const command = inCommand === undefined ? 'nothing' : inCommand === inFile ? 'same key' : (await keyIdOf(w, inCommand, keys)) !== undefined ? 'a working key' : 'a dead key';
  return `exit ${code} · keys: ${active.length > 0 ? active.join(', ') : 'none'} · .env: ${file} · command: ${command}`;
}
