/**
 * `keydeck profile list | show [NAME] | use NAME | add NAME --base-url URL | set NAME --read-only…
 * | remove NAME`: see, switch and mark profiles without editing `config.json`. Only
 * `use`, `add --use` and the removal of the current profile change the default (`currentProfile`). Every change is a
 * read-modify-write of the config file through `updateConfig` (atomic write; the file is never
 * overwritten while broken). Nothing here touches the service; `show` asks the credential store
 * where the profile's key is (never the key: its prefix at most).
 *
 * Exit codes: 0 done; 1 the profile does not exist / already exists; 2 bad usage (a bad name,
 * base URL, interval or threshold; an invalid config file).
 */
import { keyPrefixOf } from '../api/errors.js';
import { centsText, formatUsdCode } from '../api/money.js';
import { parseAlertBelow, parseIntervalSeconds } from '../billing/settings.js';
import {
  checkProfileName,
  chooseProfile,
  configFilePath,
  DEFAULT_POLL_INTERVAL_SECONDS,
  describeChoice,
  listProfiles,
  normalizeBaseUrl,
  readConfig,
  updateConfig,
  type KeydeckConfig,
} from '../config/index.js';
import { createCredentialStore } from '../credentials/index.js';
import type { CredentialStore } from '../credentials/store.js';
import { tokenKind } from '../credentials/token.js';
import { ExitCode, fail, printJson, printLine, warn, type ExitCodeValue } from './output.js';
import { colorEnabled, formatKeyValues, formatTable, type Cell } from './table.js';
import { accountWords } from './wordingAccount.js';

/** Dependencies of the profile commands (tests). */
export interface ProfileDeps {
  /** Default process.env (KEYDECK_CONFIG_DIR, KEYDECK_PROFILE). */
  readonly env?: NodeJS.ProcessEnv;
  /** Default createCredentialStore({ env }) (`show` only). */
  readonly store?: CredentialStore;
}

/** One profile as listed: its settings, and whether it is the current one. */
export interface ProfileSummary {
  readonly name: string;
  readonly current: boolean;
  readonly baseUrl?: string;
  /** Seconds between balance reads (the default, 15, when the profile sets none). */
  readonly pollIntervalSeconds: number;
  /** Low-balance threshold, USD. */
  readonly alertBelowUsd?: number;
  /** The service's origin (`https://host[:port]`), when the profile has a base URL. */
  readonly origin?: string;
  /** Marked read-only: keydeck changes nothing on this account (src/config/profileMarks.ts). */
  readonly readOnly: boolean;
  /** Marked protected: a delete or a deactivation asks for the key's name typed. */
  readonly protected: boolean;
}

/** The current profile's name as the config file says it (`currentProfile`, else `default`). */
function currentOf(config: KeydeckConfig): string {
  return config.currentProfile ?? 'default';
}

function summaries(config: KeydeckConfig): ProfileSummary[] {
  // Every profile with its origin and marks: src/config/profileMarks.ts's one listing.
  return listProfiles(config).map((listed) => {
    const p = config.profiles[listed.name]!;
    return {
      name: listed.name,
      current: listed.isDefault,
      ...(p.baseUrl !== undefined && { baseUrl: p.baseUrl }),
      ...(listed.origin !== undefined && { origin: listed.origin }),
      pollIntervalSeconds: p.pollIntervalSeconds ?? DEFAULT_POLL_INTERVAL_SECONDS,
      ...(p.alertBelowUsd !== undefined && { alertBelowUsd: p.alertBelowUsd }),
      readOnly: listed.readOnly,
      protected: listed.protected,
    };
  });
}

/** `read-only, protected`, `read-only`, …; `—` for neither. */
function marksText(p: Pick<ProfileSummary, 'readOnly' | 'protected'>): string {
  const marks = [...(p.readOnly ? ['read-only'] : []), ...(p.protected ? ['protected'] : [])];
  return marks.length > 0 ? marks.join(', ') : '—';
}

/** Says when KEYDECK_PROFILE overrides the file's current profile. */
function envOverrideNote(env: NodeJS.ProcessEnv): void {
  const chosen = env.KEYDECK_PROFILE?.trim();
  if (chosen) warn(`KEYDECK_PROFILE=${chosen} is set: it chooses the profile instead of the config file's current one`);
}

/** `keydeck profile list [--json]`: name (`*` current), base URL, interval, alert threshold. */
export async function profileList(flags: { json?: boolean } = {}, deps: ProfileDeps = {}): Promise<ExitCodeValue> {
  const env = deps.env ?? process.env;
  const file = configFilePath(env);
  const { config } = await readConfig(file);
  const list = summaries(config);
  if (flags.json) {
    printJson({ current: currentOf(config), configPath: file, profiles: list });
    return ExitCode.ok;
  }
  if (list.length === 0) {
    printLine(`no profiles yet (${file}): add one with keydeck profile add NAME --base-url URL, or sign in with keydeck auth login`);
    return ExitCode.ok;
  }
  const rows: Cell[][] = list.map((p) => [
    p.current ? { text: '*', style: 'green' } : '',
    p.name,
    p.baseUrl ?? '(none)',
    `${p.pollIntervalSeconds} s`,
    p.alertBelowUsd !== undefined ? formatUsdCode(p.alertBelowUsd) : '—',
    marksText(p),
  ]);
  printLine(formatTable(['', 'name', 'baseUrl', 'interval', 'alertBelow', 'marks'], rows, { color: colorEnabled() }));
  envOverrideNote(env);
  return ExitCode.ok;
}

/** `keydeck profile show [NAME] [--json]`: one profile's settings and where its key is stored (never the key). */
export async function profileShow(name: string | undefined, flags: { json?: boolean } = {}, deps: ProfileDeps = {}): Promise<ExitCodeValue> {
  const env = deps.env ?? process.env;
  const file = configFilePath(env);
  const { config } = await readConfig(file);
  // Without a name: the profile that applies here, by the same rules as every command (src/config/profileChoice.ts).
  const choice = name === undefined ? chooseProfile(config, file, {}, env) : undefined;
  const chosen = checkProfileName(name ?? choice!.name);
  const summary = summaries(config).find((p) => p.name === chosen);
  if (!summary && name !== undefined) fail(ExitCode.refused, accountWords.noSuchProfile, { name: chosen, names: Object.keys(config.profiles).sort() });
  const store = deps.store ?? createCredentialStore({ env });
  const stored = await store.get(chosen, { ignoreEnv: true });
  const key = stored
    ? { store: stored.source, ...(stored.path !== undefined && { path: stored.path }), ...(tokenKind(stored.token) === 'management' && { keyPrefix: keyPrefixOf(stored.token) }) }
    : undefined;
  const shown = summary ?? { name: chosen, current: chosen === currentOf(config), pollIntervalSeconds: DEFAULT_POLL_INTERVAL_SECONDS, readOnly: false, protected: false };
  if (flags.json) {
    printJson({ ...shown, inConfig: summary !== undefined, configPath: file, ...(choice && { chosenBy: choice.chosenBy }), key: key ?? null });
    return ExitCode.ok;
  }
  printLine(
    formatKeyValues(
      [
        ['profile', `${shown.name}${shown.current ? ' (current)' : ''}${summary ? '' : ' (not in the config file yet)'}`],
        ...(choice ? [['chosen by', describeChoice(choice.chosenBy)] as [string, string]] : []),
        ['baseUrl', shown.baseUrl ?? '(none: pass --base-url or run keydeck profile add)'],
        ['pollIntervalSeconds', String(shown.pollIntervalSeconds)],
        ['alertBelowUsd', shown.alertBelowUsd !== undefined ? centsText(shown.alertBelowUsd) : '(none)'],
        ['marks', marksText(shown)],
        ['key', key ? `${'keyPrefix' in key ? `${key.keyPrefix} ` : ''}in ${key.store}${key.path ? ` (${key.path})` : ''}` : '(none stored: keydeck auth login)'],
        ['config', file],
      ],
      { color: colorEnabled() },
    ),
  );
  return ExitCode.ok;
}

/** `keydeck profile use NAME`: makes NAME the current profile (it must exist). */
export async function profileUse(name: string, deps: ProfileDeps = {}): Promise<ExitCodeValue> {
  const env = deps.env ?? process.env;
  checkProfileName(name);
  const file = configFilePath(env);
  await updateConfig(file, (config) => {
    if (!config.profiles[name]) fail(ExitCode.refused, accountWords.noSuchProfile, { name: name, names: Object.keys(config.profiles).sort() });
    config.currentProfile = name;
  });
  printLine(`now using profile "${name}"`);
  envOverrideNote(env);
  return ExitCode.ok;
}

/** Flags of `profile add` (commander's strings). */
export interface ProfileAddFlags {
  readonly baseUrl: string;
  readonly interval?: string;
  readonly alertBelow?: string;
  /** Also make it the current profile. */
  readonly use?: boolean;
}

/** `keydeck profile add NAME --base-url URL [--interval S] [--alert-below USD] [--use]`. */
export async function profileAdd(name: string, flags: ProfileAddFlags, deps: ProfileDeps = {}): Promise<ExitCodeValue> {
  const env = deps.env ?? process.env;
  checkProfileName(name);
  const baseUrl = normalizeBaseUrl(flags.baseUrl);
  let pollIntervalSeconds: number | undefined;
  let alertBelowUsd: number | undefined;
  if (flags.interval !== undefined) {
    const parsed = parseIntervalSeconds(flags.interval);
    if (!parsed.ok) fail(ExitCode.usage, parsed.reason, 'usage');
    pollIntervalSeconds = parsed.value;
  }
  if (flags.alertBelow !== undefined) {
    const parsed = parseAlertBelow(flags.alertBelow);
    if (!parsed.ok) fail(ExitCode.usage, parsed.reason, 'usage');
    alertBelowUsd = parsed.value;
  }
  await updateConfig(configFilePath(env), (config) => {
    if (config.profiles[name]) fail(ExitCode.refused, accountWords.profileExists, { name, baseUrl: config.profiles[name]!.baseUrl });
    config.profiles[name] = {
      baseUrl,
      ...(pollIntervalSeconds !== undefined && { pollIntervalSeconds }),
      ...(alertBelowUsd !== undefined && { alertBelowUsd }),
    };
    if (flags.use) config.currentProfile = name;
  });
  printLine(`added profile "${name}" (${baseUrl})${flags.use ? ', now the current one' : ''}; sign in with: keydeck --profile ${name} auth login`);
  return ExitCode.ok;
}

/** The marks `profile set` changes; an absent one stays as it is. */
export interface ProfileMarksFlags {
  readonly readOnly?: boolean;
  readonly protected?: boolean;
}

/**
 * `keydeck profile set NAME [--read-only | --no-read-only] [--protected | --no-protected]`: marks
 * the profile (src/config/profileMarks.ts) in the config file. A false mark is removed from the
 * file, not written as false. Nothing is sent.
 */
export async function profileSet(name: string, flags: ProfileMarksFlags, deps: ProfileDeps = {}): Promise<ExitCodeValue> {
  const env = deps.env ?? process.env;
  checkProfileName(name);
  if (flags.readOnly === undefined && flags.protected === undefined) {
    fail(ExitCode.usage, accountWords.usageProfileSetNeeds);
  }
  let marks = { readOnly: false, protected: false };
  await updateConfig(configFilePath(env), (config) => {
    const entry = config.profiles[name];
    if (!entry) fail(ExitCode.refused, accountWords.noSuchProfile, { name: name, names: Object.keys(config.profiles).sort() });
    for (const mark of ['readOnly', 'protected'] as const) {
      if (flags[mark] === true) entry[mark] = true;
      else if (flags[mark] === false) delete entry[mark];
    }
    marks = { readOnly: entry.readOnly === true, protected: entry.protected === true };
  });
  const said = marksText(marks);
  printLine(`profile "${name}" is ${said === '—' ? 'neither read-only nor protected' : said} now`);
  return ExitCode.ok;
}

/**
 * `keydeck profile remove NAME`: drops NAME from the config file (the current profile falls back
 * to `default`). A key stored for it stays where it is, and the command says how to forget it.
 */
export async function profileRemove(name: string, deps: ProfileDeps = {}): Promise<ExitCodeValue> {
  const env = deps.env ?? process.env;
  checkProfileName(name);
  let wasCurrent = false;
  await updateConfig(configFilePath(env), (config) => {
    if (!config.profiles[name]) fail(ExitCode.refused, accountWords.noSuchProfile, { name: name, names: Object.keys(config.profiles).sort() });
    delete config.profiles[name];
    if (config.currentProfile === name) {
      wasCurrent = true;
      delete config.currentProfile;
    }
  });
  printLine(`removed profile "${name}"${wasCurrent ? '; the current profile is "default" again' : ''}`);
  const store = deps.store ?? createCredentialStore({ env });
  try {
    const stored = await store.get(name, { ignoreEnv: true });
    if (stored) warn(`a key for "${name}" is still stored (${stored.source}): forget it with keydeck --profile ${name} auth logout`);
  } catch {
    // The store could not be asked: nothing more to say.
  }
  return ExitCode.ok;
}
