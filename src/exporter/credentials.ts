/**
 * Where the exporter finds each profile's credential, first found wins:
 * 1. `--token-file PROFILE=PATH`: a file holding the token (a session token or `mk_` key), for
 *    systemd's `LoadCredential=` (`--token-file prod=%d/prod`). A file inside
 *    `$CREDENTIALS_DIRECTORY` is trusted as systemd hands it over (only the unit's user and root
 *    can read it); anywhere else it must be trusted as ssh trusts its own (this user's or root's,
 *    no access for group or others: src/config/trust.ts).
 * 1b. `--token-dir DIR`: the file `DIR/<profile>` (the profile's name as it is), when it exists,
 *    trusted the same way. It is read at each lookup (before the first poll, on SIGHUP, after a
 *    refusal), so a profile added to the config, or a token file rewritten in place
 *    (`mgmt-keys rotate --token-file PATH`), is taken up by a reload without a restart.
 * 2. The environment variable {@link tokenEnvVar} of the profile: `KEYDECK_TOKEN_<PROFILE>`, the
 *    name upper-cased with `.` and `-` as `_` (`prod-eu` → `KEYDECK_TOKEN_PROD_EU`).
 * 3. Where keydeck keeps it (src/credentials/): the OS keychain, then the 0600 file, under
 *    `<profile>@<origin>`.
 * Never from argv. `KEYDECK_TOKEN` is not used: it names no profile.
 */
import path from 'node:path';
import { readTrustedFile } from '../config/trust.js';
import { checkCredentialToken, originTarget, type CredentialStore } from '../credentials/index.js';

/** The prefix of the per-profile token variables. */
export const TOKEN_ENV_PREFIX = 'KEYDECK_TOKEN_';

/** The environment variable holding `profile`'s token: `KEYDECK_TOKEN_` + the name upper-cased, `.` and `-` as `_`. */
export function tokenEnvVar(profile: string): string {
  return `${TOKEN_ENV_PREFIX}${profile.toUpperCase().replace(/[.-]/g, '_')}`;
}

/** Where a credential was found (never the credential). */
export type CredentialPlace = 'token_file' | 'env' | 'keychain' | 'file';

/** A credential found, or why none was. */
export type FoundCredential = { readonly ok: true; readonly token: string; readonly place: CredentialPlace; readonly where: string } | { readonly ok: false; readonly sentence: string };

/** What {@link findCredential} looks in. */
export interface CredentialSources {
  /** `--token-file` by profile name. */
  readonly tokenFiles: ReadonlyMap<string, string>;
  /** `--token-dir`: each profile's token file is `<tokenDir>/<profile>`. */
  readonly tokenDir?: string | undefined;
  /** The environment (`KEYDECK_TOKEN_<PROFILE>`, `CREDENTIALS_DIRECTORY`). */
  readonly env: NodeJS.ProcessEnv;
  /** keydeck's credential store (keychain, file). */
  readonly store: CredentialStore;
  /** Variables more than one watched profile maps to: not used for any of them. */
  readonly ambiguousVars?: ReadonlySet<string>;
}

/** The variables two or more of `profiles` share (`a-b` and `a_b`, `Prod` and `prod`). */
export function ambiguousTokenVars(profiles: readonly string[]): Set<string> {
  const seen = new Map<string, number>();
  for (const p of new Set(profiles)) seen.set(tokenEnvVar(p), (seen.get(tokenEnvVar(p)) ?? 0) + 1);
  return new Set([...seen].filter(([, n]) => n > 1).map(([v]) => v));
}

/** True when `file` is inside `dir`. */
function inside(dir: string | undefined, file: string): boolean {
  if (!dir) return false;
  const rel = path.relative(path.resolve(dir), path.resolve(file));
  return rel !== '' && !rel.startsWith('..') && !path.isAbsolute(rel);
}

async function fromTokenFile(profile: string, file: string, env: NodeJS.ProcessEnv): Promise<FoundCredential> {
  let read;
  try {
    if (inside(env.CREDENTIALS_DIRECTORY, file)) {
      const { readFile } = await import('node:fs/promises');
      read = { kind: 'text' as const, text: await readFile(file, 'utf8') };
    } else {
      read = await readTrustedFile(file, 'key file');
    }
  } catch (error) {
    return { ok: false, sentence: `the token file of profile "${profile}" (${file}) cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})` };
  }
  if (read.kind === 'missing') return { ok: false, sentence: `the token file of profile "${profile}" (${file}) does not exist` };
  if (read.kind === 'refused') return { ok: false, sentence: read.problem.sentence };
  try {
    return { ok: true, token: checkCredentialToken(read.text, `the token file of profile "${profile}" (${file})`), place: 'token_file', where: file };
  } catch (error) {
    return { ok: false, sentence: (error as Error).message };
  }
}

/**
 * The credential of `profile` for the service at `baseUrl` (see the module comment). Never
 * throws: a source that cannot be used gives the sentence why (no secret in it).
 */
export async function findCredential(profile: string, baseUrl: string, savedBaseUrl: string | undefined, sources: CredentialSources): Promise<FoundCredential> {
  const file = sources.tokenFiles.get(profile);
  if (file !== undefined) return fromTokenFile(profile, file, sources.env);
  const inDir = tokenDirFile(sources.tokenDir, profile);
  if (inDir !== undefined && (await exists(inDir))) return fromTokenFile(profile, inDir, sources.env);
  const variable = tokenEnvVar(profile);
  const value = sources.env[variable];
  if (value !== undefined && value !== '') {
    if (sources.ambiguousVars?.has(variable)) {
      return { ok: false, sentence: `${variable} would serve more than one watched profile (names differing only in case, "." or "-"): use --token-file for them` };
    }
    try {
      return { ok: true, token: checkCredentialToken(value, variable), place: 'env', where: variable };
    } catch (error) {
      return { ok: false, sentence: (error as Error).message };
    }
  }
  try {
    const stored = await sources.store.get(profile, { ...originTarget(baseUrl, savedBaseUrl), ignoreEnv: true });
    if (stored) return { ok: true, token: stored.token, place: stored.source === 'file' ? 'file' : 'keychain', where: stored.path ?? 'keychain' };
  } catch (error) {
    return { ok: false, sentence: (error as Error).message };
  }
  const why = (await sources.store.keychainStatus()).reason;
  return {
    ok: false,
    sentence: `no credential for profile "${profile}": ${inDir !== undefined ? `put its token in ${inDir} (mode 0600), ` : ''}give --token-file ${profile}=PATH or ${variable}, or store one with keydeck --profile ${profile} auth login${why ? ` (keychain: ${why})` : ''}`,
  };
}

/** The token file of `profile` in `dir` (`dir/<profile>`), or undefined without a dir. */
export function tokenDirFile(dir: string | undefined, profile: string): string | undefined {
  return dir === undefined ? undefined : path.join(dir, profile);
}

/** True when something is at `file` (a dangling or unreadable entry too: reading it then says why). */
async function exists(file: string): Promise<boolean> {
  const { lstat } = await import('node:fs/promises');
  try {
    await lstat(file);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code !== 'ENOENT' && (error as NodeJS.ErrnoException).code !== 'ENOTDIR';
  }
}

/**
 * The names of the files in the token directory `dir` (hidden ones left out), to tell the
 * operator about a file no watched profile reads (a typo of a profile's name).
 * @throws Error with the errno `code` when the directory cannot be listed
 */
export async function tokenDirNames(dir: string): Promise<string[]> {
  const { readdir } = await import('node:fs/promises');
  return (await readdir(dir)).filter((name) => !name.startsWith('.')).sort();
}
