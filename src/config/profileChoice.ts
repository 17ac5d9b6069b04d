/**
 * Which profile applies, and why (docs/credentials.md "Which profile applies"). The first of:
 *
 * 1. `--profile NAME` (`flag`), or `--sandbox`'s own profile `sandbox` when it names none (`sandbox`);
 * 2. `KEYDECK_PROFILE` (`env`);
 * 3. a directory rule: a `.keydeck` file in the working directory or the nearest directory above
 *    it, whose first line is the profile's name (`file`), else the config file's `profileRules`,
 *    the longest `path` that holds the working directory (`profileRules`);
 * 4. the default: the config file's `currentProfile` (`currentProfile`), else `default` (`default`).
 *
 * A `.keydeck` file is trusted as the config file is (./trust.ts: a regular file of this user or
 * root, not writable by group or others, in directories only they may change, ./strictModes.ts),
 * read without blocking and at most {@link PROFILE_FILE_MAX_BYTES}; one that fails is refused with
 * a sentence, never skipped (the default would then apply where the file meant another account).
 * A directory rule only chooses among the profiles of the user's own config file: one naming a
 * profile the file does not have is refused (`no_such_profile`), so a `.keydeck` that came with a
 * shared repository can neither add a service nor make keydeck sign in anywhere.
 *
 * Nothing here writes: choosing a profile never changes the default (`currentProfile` is written
 * only by `keydeck profile use`, `profile add --use` and `profile remove` of the current one).
 */
import { closeSync, constants, fstatSync, openSync, readSync, realpathSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { checkProfileName, ConfigError, type KeydeckConfig, type ProfileRule } from './config.js';
import { checkDirectoryChain, UnsafePathError } from './strictModes.js';
import { trustProblemOf } from './trust.js';

/** The file that names a directory's profile. */
export const PROFILE_FILE_NAME = '.keydeck';
/** Largest part of a `.keydeck` file read, bytes (its first line is a profile name of ≤ 64 characters). */
export const PROFILE_FILE_MAX_BYTES = 1024;

/** Why a profile applies: the rule that chose it (see the module comment). */
export type ProfileChoice =
  | { readonly rule: 'flag' }
  | { readonly rule: 'sandbox' }
  | { readonly rule: 'env' }
  /** `path`: the `.keydeck` file. */
  | { readonly rule: 'file'; readonly path: string }
  /** `path`: the rule's directory as written in the config file; `configPath`: that file. */
  | { readonly rule: 'profileRules'; readonly path: string; readonly configPath: string }
  | { readonly rule: 'currentProfile'; readonly configPath: string }
  | { readonly rule: 'default' };

/** Where `--profile` came from, as commander saw it (src/commands/output.ts `GlobalOptions`). */
export type ProfileSource = 'flag' | 'env' | 'sandbox';

/** What {@link chooseProfile} is given besides the config. */
export interface ChoiceInputs {
  /** `--profile` (or `KEYDECK_PROFILE` when commander filled it from there: `source` says). */
  readonly profile?: string | undefined;
  /** Where `profile` came from; default `flag`. */
  readonly source?: ProfileSource | undefined;
  /** The working directory the directory rules are looked up from (default `process.cwd()`). */
  readonly cwd?: string | undefined;
}

/**
 * The profile that applies and the rule that chose it.
 * @throws ConfigError `invalid_profile_name` (naming the `.keydeck` file when it is the one at
 *   fault), `config_untrusted` (a `.keydeck` file or a directory above it that others could
 *   change), `no_such_profile` (a directory rule naming a profile the config file does not have)
 */
export function chooseProfile(config: KeydeckConfig, configPath: string, inputs: ChoiceInputs = {}, env: NodeJS.ProcessEnv = process.env): { readonly name: string; readonly chosenBy: ProfileChoice } {
  const given = nonEmpty(inputs.profile);
  if (given !== undefined) return { name: checkProfileName(given), chosenBy: { rule: inputs.source ?? 'flag' } };
  const fromEnv = nonEmpty(env.KEYDECK_PROFILE);
  if (fromEnv !== undefined) return { name: checkProfileName(fromEnv), chosenBy: { rule: 'env' } };
  const cwd = inputs.cwd ?? safeCwd();
  if (cwd !== undefined) {
    const file = findProfileFile(cwd);
    if (file !== undefined) return { name: existing(config, configPath, file.name, `the file ${file.path}`), chosenBy: { rule: 'file', path: file.path } };
    const rule = matchingRule(config.profileRules ?? [], cwd, env);
    if (rule !== undefined) {
      return { name: existing(config, configPath, rule.profile, `the rule for ${rule.path} in profileRules of ${configPath}`), chosenBy: { rule: 'profileRules', path: rule.path, configPath } };
    }
  }
  if (config.currentProfile !== undefined) return { name: checkProfileName(config.currentProfile), chosenBy: { rule: 'currentProfile', configPath } };
  return { name: 'default', chosenBy: { rule: 'default' } };
}

/** The working directory, or undefined when it was removed under the process. */
function safeCwd(): string | undefined {
  try {
    return process.cwd();
  } catch {
    // the working directory is gone: no .keydeck file to look for
    return undefined;
  }
}

/**
 * A rule (`by`: `KEYDECK_PROFILE`, a `.keydeck` file, `profileRules`) chooses a profile the config
 * file does not have (`no_such_profile`). `message` is the facts; how to add it or choose another
 * is each face's to say (src/words/account.ts).
 */
export class ProfileMissingError extends ConfigError {
  /** The profile the rule chose. */
  readonly profile: string;
  /** The rule, in words ({@link describeChoice}'s). */
  readonly chosenBy: string;
  constructor(configPath: string, name: string, by: string) {
    super('no_such_profile', `${by} chooses the profile "${name}", which ${configPath} does not have`, { path: configPath });
    this.profile = name;
    this.chosenBy = by;
  }
}

/** `name` when the config file has that profile. @throws ProfileMissingError naming `by` */
function existing(config: KeydeckConfig, configPath: string, name: string, by: string): string {
  if (config.profiles[name] !== undefined) return name;
  throw new ProfileMissingError(configPath, name, by);
}

/**
 * In words, how the profile was chosen: `--profile`, `KEYDECK_PROFILE`, `the file /x/.keydeck`,
 * `profileRules in /c/config.json (/home/me/acme)`, `the default (currentProfile in /c/config.json)`,
 * `the default (no profile set)`, `--sandbox`.
 */
export function describeChoice(choice: ProfileChoice): string {
  switch (choice.rule) {
    case 'flag':
      return '--profile';
    case 'sandbox':
      return '--sandbox (its own profile, "sandbox")';
    case 'env':
      return 'KEYDECK_PROFILE';
    case 'file':
      return `the file ${choice.path}`;
    case 'profileRules':
      return `profileRules in ${choice.configPath} (${choice.path})`;
    case 'currentProfile':
      return `the default (currentProfile in ${choice.configPath})`;
    case 'default':
      return 'the default (no profile set, so "default")';
  }
}

/**
 * The nearest `.keydeck` file at or above `dir` (a directory named `.keydeck` is not one), and the
 * profile its first line names; undefined when there is none up to the root.
 * @throws ConfigError `config_untrusted` (the file or a directory above it could be changed by
 *   others, or it is not a regular file), `invalid_profile_name`
 */
export function findProfileFile(dir: string): { readonly path: string; readonly name: string } | undefined {
  let at = path.resolve(dir);
  for (;;) {
    const found = readProfileFile(path.join(at, PROFILE_FILE_NAME));
    if (found !== undefined) return found;
    const up = path.dirname(at);
    if (up === at) return undefined;
    at = up;
  }
}

/** The file at `file` as a profile file, or undefined when there is none (or a directory of that name). */
function readProfileFile(file: string): { readonly path: string; readonly name: string } | undefined {
  let fd: number;
  try {
    // Non-blocking: a FIFO in its place is refused below, never waited on.
    fd = openSync(file, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR' || code === 'EISDIR') return undefined;
    if (code === 'EACCES') throw new ConfigError('config_untrusted', `cannot read the profile file ${file} (EACCES): fix its permissions, or move it away.`, { path: file });
    throw error;
  }
  let text: string;
  try {
    const stats = fstatSync(fd);
    if (stats.isDirectory()) return undefined;
    const problem = trustProblemOf(file, 'profile file', stats);
    if (problem) throw new ConfigError('config_untrusted', `${problem.sentence}.`, { path: file });
    try {
      checkDirectoryChain(path.dirname(file));
    } catch (error) {
      if (error instanceof UnsafePathError) throw new ConfigError('config_untrusted', `keydeck does not use the profile file ${file}: ${error.message}.`, { path: error.path });
      throw error;
    }
    const buffer = Buffer.alloc(PROFILE_FILE_MAX_BYTES);
    const read = readSync(fd, buffer, 0, buffer.length, 0);
    text = buffer.subarray(0, read).toString('utf8');
  } finally {
    closeSync(fd);
  }
  const first = (text.replace(/^\uFEFF/, '').split(/\r?\n/, 1)[0] ?? '').trim();
  if (first === '') throw new ConfigError('invalid_profile_name', `the profile file ${file} names no profile on its first line: write the profile's name there, or remove the file.`, { path: file });
  try {
    return { path: file, name: checkProfileName(first) };
  } catch (error) {
    if (error instanceof ConfigError) throw new ConfigError('invalid_profile_name', `the profile file ${file}: ${error.message}`, { path: file });
    throw error;
  }
}

/** The rule of `rules` whose directory holds `cwd`, the longest one; undefined when none does. */
export function matchingRule(rules: readonly ProfileRule[], cwd: string, env: NodeJS.ProcessEnv = process.env): ProfileRule | undefined {
  const here = path.resolve(cwd);
  let best: { rule: ProfileRule; length: number } | undefined;
  for (const rule of rules) {
    for (const dir of ruleDirs(rule.path, env)) {
      if (here === dir || here.startsWith(dir.endsWith(path.sep) ? dir : `${dir}${path.sep}`)) {
        if (best === undefined || dir.length > best.length) best = { rule, length: dir.length };
      }
    }
  }
  return best?.rule;
}

/** A rule's directory as written (with `~` as the home dir) and, when it exists, its real path. */
function ruleDirs(written: string, env: NodeJS.ProcessEnv): string[] {
  const home = env.HOME?.trim() || os.homedir();
  const expanded = written === '~' ? home : written.startsWith('~/') ? path.join(home, written.slice(2)) : written;
  const dir = path.resolve(expanded);
  try {
    const real = realpathSync(dir);
    return real === dir ? [dir] : [dir, real];
  } catch {
    // no real path (gone): the directory as given
    return [dir];
  }
}

function nonEmpty(value: string | undefined): string | undefined {
  return value !== undefined && value.trim() !== '' ? value.trim() : undefined;
}
