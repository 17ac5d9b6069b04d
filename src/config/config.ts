/**
 * The config file `<configDir>/config.json`: profiles (base URL and display settings) and the
 * current profile, validated by zod. It never holds a secret. A field keydeck does not know (one a
 * newer keydeck wrote, a typo such as `baseURL`, a pasted token) is taken out, said by name (never
 * by value) and kept on the next write (./unknownFields.ts): an upgrade of one keydeck never stops
 * another sharing the file. A known field with a value keydeck refuses is an error naming the file
 * and the field.
 *
 * Format:
 * ```json
 * { "version": 1, "currentProfile": "default",
 *   "profileRules": [{ "path": "~/clients/acme", "profile": "acme" }],
 *   "profiles": { "default": { "baseUrl": "https://…", "pollIntervalSeconds": 15, "alertBelowUsd": 5, "confirmAboveUsd": 500,
 *     "runawayFactor": 5, "runawayFloorUsdPerHour": 1, "chainRpc": "https://mainnet.base.org", "chainChecks": true,
 *     "topUpMethods": { "card_checkout": "stripe", "card_direct": "stripe_direct" },
 *     "autoTopUp": { "belowUsd": 20, "amountUsd": 30, "maxPerDayUsd": 60, "maxPerMonthUsd": 300, "since": "…" },
 *     "guardrails": { "appliedAt": "…", "rules": [{ "name": "web", "budget": { "limitUsd": 5, "period": "day", "action": "disable" } }] } } } }
 * ```
 * A broken file is never overwritten without a backup (`config.json.bak-<timestamp>`).
 */
import { baseUrlProblem, normalizeBaseUrl as normalizeUrl } from '../api/baseUrl.js';
import { chainRpcProblem } from '../api/chain/rpcUrl.js';
import { TopUpMethodNameSchema } from '../api/methodName.js';
import { mkdir, rename } from 'node:fs/promises';
import path from 'node:path';
import { z } from '../api/zod.js';
import { UnsafePathError, writeFileAtomically } from './atomic.js';
import { AutoTopUpPolicySchema, type AutoTopUpPolicy } from './autoTopUp.js';
import { GuardrailsSchema } from './guardrailRules.js';
import { describeJsonSyntaxError } from './json.js';
import { withConfigLock } from './lock.js';
import { PROFILE_NAME } from './profileNames.js';
import { checkTrustedDir, readTrustedFileSync } from './trust.js';
import { NO_UNKNOWN_FIELDS, stripUnknownFields, withUnknownFields, type UnknownFields } from './unknownFields.js';
import { KeydeckError } from '../errors/index.js';

/** Default seconds between balance polls of a profile. */
export const DEFAULT_POLL_INTERVAL_SECONDS = 15;
/** Smallest poll interval a profile may set, in seconds. */
export const MIN_POLL_INTERVAL_SECONDS = 2;
/** Longest balance poll interval, seconds (one day). */
export const MAX_POLL_INTERVAL_SECONDS = 86_400;
/**
 * Default per-profile ceiling for top-ups, USD: an amount above it must be typed again to
 * confirm. A profile sets its own with `confirmAboveUsd`.
 */
export const DEFAULT_CONFIRM_ABOVE_USD = 500;

/** Default of a profile's `runawayFactor`: a key spending 5× its own 7-day median is a runaway. */
export const DEFAULT_RUNAWAY_FACTOR = 5;
/** Default of a profile's `runawayFloorUsdPerHour`: below $1/h nothing is a runaway. */
export const DEFAULT_RUNAWAY_FLOOR_USD_PER_HOUR = 1;

/** A profile name: 1–64 of letters, digits, `.`, `_`, `-`, starting with a letter or digit. */
export const ProfileNameSchema = z.string().regex(PROFILE_NAME, 'a profile name is 1–64 letters, digits, ".", "_" or "-", starting with a letter or digit');

/** One profile's settings. Every field is optional; none is secret. */
export const ProfileConfigSchema = z.strictObject({
  /** The service's base URL (http or https, no credentials in it). */
  baseUrl: z
    .string()
    .refine((value) => baseUrlProblem(value) === undefined, {
      message: 'must be an http:// or https:// URL without a user name, password, query or fragment',
    })
    .optional(),
  /** Seconds between balance polls in the TUI (≥ 2; default 15). */
  pollIntervalSeconds: z.number().min(MIN_POLL_INTERVAL_SECONDS).max(MAX_POLL_INTERVAL_SECONDS).optional(),
  /** Low-balance threshold in USD: the monitor warns when `remaining` drops below it. */
  alertBelowUsd: z.number().min(0).optional(),
  /** Top-up ceiling in USD: an amount above it must be typed again to confirm (default 500). */
  confirmAboveUsd: z.number().min(0).optional(),
  /** A key spending this many times its own 7-day median rate is a runaway (≥ 1; default 5). */
  runawayFactor: z.number().min(1).max(1000).optional(),
  /** The least rate that can be a runaway, USD per hour (default 1). */
  runawayFloorUsdPerHour: z.number().min(0).max(1_000_000).optional(),
  /**
   * The top-up method names this service expects, by kind (default the seed's: `card_checkout`,
   * `card_direct`, `usdc`). The real service's documentation pages name the card kinds `stripe`
   * and `stripe_direct`: `{ "card_checkout": "stripe", "card_direct": "stripe_direct" }`.
   */
  topUpMethods: z.strictObject({ card_checkout: TopUpMethodNameSchema.optional(), card_direct: TopUpMethodNameSchema.optional(), usdc: TopUpMethodNameSchema.optional() }).optional(),
  /** The JSON-RPC endpoint of Base that USDC transfers are checked on: https, or http to this machine only (default https://mainnet.base.org). */
  chainRpc: z
    .string()
    .refine((value) => chainRpcProblem(value) === undefined, {
      message: 'must be an https:// URL (plain http:// only to this machine) without a user name or password',
    })
    .optional(),
  /** false: never read the chain (no RPC learns the hash or the deposit address). Default true. */
  chainChecks: z.boolean().optional(),
  /** The auto top-up policy (./autoTopUp.ts): absent, none. */
  autoTopUp: AutoTopUpPolicySchema.optional(),
  /** true: keydeck changes nothing on this account (./profileMarks.ts): every create, change, delete, top-up and verify is refused. */
  readOnly: z.boolean().optional(),
  /** true: deleting or deactivating a key asks for its name to be typed (`--confirm-name NAME` with `--yes`). */
  protected: z.boolean().optional(),
  /** The per-key guardrails `keydeck apply` stored (./guardrailRules.ts): absent, none. */
  guardrails: GuardrailsSchema.optional(),
});
export type ProfileConfig = z.infer<typeof ProfileConfigSchema>;

/**
 * One rule of `profileRules` (./profileChoice.ts): below the directory `path` (absolute, or `~/…`),
 * keydeck uses `profile` unless `--profile`, `KEYDECK_PROFILE` or a `.keydeck` file says otherwise.
 */
export const ProfileRuleSchema = z.strictObject({
  path: z.string().refine((value) => value.startsWith('/') || value === '~' || value.startsWith('~/') || /^[A-Za-z]:[\\/]/.test(value), {
    message: 'must be an absolute directory (or start with ~/)',
  }),
  profile: ProfileNameSchema,
});
export type ProfileRule = z.infer<typeof ProfileRuleSchema>;

/** The whole file. `version` is 1; `currentProfile` defaults to `default` when absent. */
export const ConfigFileSchema = z.strictObject({
  version: z.literal(1),
  currentProfile: ProfileNameSchema.optional(),
  /** Which profile applies below which directory (./profileChoice.ts); the longest matching path wins. */
  profileRules: z.array(ProfileRuleSchema).max(1000).optional(),
  profiles: z.record(ProfileNameSchema, ProfileConfigSchema),
});
export type KeydeckConfig = z.infer<typeof ConfigFileSchema>;

/** The config used when no file exists yet. */
export function emptyConfig(): KeydeckConfig {
  return { version: 1, profiles: {} };
}

/** Stable codes of {@link ConfigError}. */
export type ConfigErrorCode =
  | 'config_unreadable'
  | 'config_not_json'
  | 'config_invalid'
  | 'invalid_profile_name'
  | 'invalid_base_url'
  | 'config_write_failed'
  /** The config dir or file is not what it claims, belongs to another user, or is writable by group or others (./trust.ts). */
  | 'config_untrusted'
  /** The data dir is not a directory, belongs to another user, or is writable by group or others (./trust.ts). */
  | 'data_untrusted'
  /** A `.keydeck` file or a `profileRules` entry names a profile the config file does not have (./profileChoice.ts). */
  | 'no_such_profile';

/**
 * A config problem. `message` is one sentence naming the file (and the field when there is one),
 * never a field's value. `path` is the file; `field` the dotted path of the field at fault.
 */
export class ConfigError extends KeydeckError {
  override readonly name = 'ConfigError';
  override readonly code: ConfigErrorCode;
  readonly path?: string;
  readonly field?: string;
  constructor(code: ConfigErrorCode, message: string, details: { path?: string; field?: string } = {}) {
    super(code, message, { exitClass: code === 'config_write_failed' || code === 'config_untrusted' || code === 'data_untrusted' ? 'refused' : 'usage' });
    this.code = code;
    if (details.path !== undefined) this.path = details.path;
    if (details.field !== undefined) this.field = details.field;
  }
}

/**
 * Returns `input` as a base URL keydeck stores and uses: trimmed, trailing slashes removed.
 * @throws ConfigError `invalid_base_url` when it is not an http(s) URL or carries credentials.
 */
export function normalizeBaseUrl(input: string): string {
  const problem = baseUrlProblem(input);
  if (problem) throw new ConfigError('invalid_base_url', `the base URL ${problem}: pass something like --base-url https://api.example.com.`);
  return normalizeUrl(input);
}

/**
 * Checks a profile name.
 * @throws ConfigError `invalid_profile_name`.
 */
export function checkProfileName(name: string): string {
  if (!ProfileNameSchema.safeParse(name).success) {
    throw new ConfigError('invalid_profile_name', `"${name.slice(0, 64)}" is not a valid profile name: use 1–64 letters, digits, ".", "_" or "-", starting with a letter or digit.`);
  }
  return name;
}

/** The result of {@link readConfig}. */
export interface ReadConfigResult {
  readonly config: KeydeckConfig;
  /** False when the file (or its directory) does not exist yet: `config` is then empty. */
  readonly exists: boolean;
  readonly path: string;
  /** The fields keydeck does not know, taken out (dotted paths: `profiles.prod.baseURL`), and their values to write back. */
  readonly unknown: UnknownFields;
}

/** What {@link readConfigProfiles} reads: the profiles keydeck accepts, and those it refuses, each with its error. */
export interface ReadConfigProfilesResult extends ReadConfigResult {
  /** The profiles whose entry has a value keydeck refuses (absent from `config`), in the file's order. */
  readonly invalid: ReadonlyMap<string, ConfigError>;
}

/**
 * Reads and validates the config file at `file`. A missing file or directory is an empty config.
 * @throws ConfigError `config_unreadable` (not readable), `config_not_json`, or `config_invalid`
 *   (names the field: unknown, wrong type, out of range).
 */
export async function readConfig(file: string): Promise<ReadConfigResult> {
  const read = await readConfigProfiles(file);
  const first = read.invalid.values().next();
  if (!first.done) throw first.value;
  return { config: read.config, exists: read.exists, path: read.path, unknown: read.unknown };
}

/**
 * Reads the config file at `file` as {@link readConfig} does, but a profile whose entry has a
 * value keydeck refuses is set aside with its error instead of refusing the whole file (the
 * exporter at start: the other profiles are watched).
 * @throws ConfigError `config_unreadable`, `config_untrusted`, `config_not_json`, or `config_invalid`
 *   for the top level (`version`, `currentProfile`, a profile name, `profiles` not an object).
 */
export async function readConfigProfiles(file: string): Promise<ReadConfigProfilesResult> {
  // Trusted as ssh trusts its own (./trust.ts): the dir and the file, before a byte is read.
  // Without waiting (./trust.ts readTrustedFileSync): a command that reads only its config starts no thread pool.
  const dirProblem = checkTrustedDir(path.dirname(file), 'config dir');
  if (dirProblem) throw new ConfigError('config_untrusted', `${dirProblem.sentence}.`, { path: dirProblem.path });
  let text: string;
  try {
    const read = readTrustedFileSync(file, 'config file');
    if (read.kind === 'missing') return { config: emptyConfig(), exists: false, path: file, unknown: NO_UNKNOWN_FIELDS, invalid: new Map() };
    if (read.kind === 'refused') throw new ConfigError('config_untrusted', `${read.problem.sentence}.`, { path: file });
    text = read.text;
  } catch (err) {
    if (err instanceof ConfigError) throw err;
    const code = (err as NodeJS.ErrnoException).code;
    throw new ConfigError('config_unreadable', `cannot read the config file ${file} (${code ?? 'error'}): check its permissions.`, { path: file });
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    throw new ConfigError('config_not_json', `the config file ${file} is not valid JSON (${describeJsonSyntaxError(err)}): fix it, or move it away to start over.`, { path: file });
  }
  const { data, unknown } = stripUnknownFields(raw, KNOWN_FIELDS);
  const top = ConfigFileSchema.extend({ profiles: z.record(ProfileNameSchema, z.unknown()) }).safeParse(data);
  if (!top.success) throw configInvalid(file, top.error.issues);
  const profiles: Record<string, ProfileConfig> = {};
  const invalid = new Map<string, ConfigError>();
  for (const [name, entry] of Object.entries(top.data.profiles)) {
    const parsed = ProfileConfigSchema.safeParse(entry);
    if (parsed.success) profiles[name] = parsed.data;
    else
      invalid.set(
        name,
        configInvalid(
          file,
          parsed.error.issues.map((i) => ({ ...i, path: ['profiles', name, ...i.path] })),
        ),
      );
  }
  return { config: { ...top.data, profiles }, exists: true, path: file, unknown, invalid };
}

const KNOWN_FIELDS = {
  top: Object.keys(ConfigFileSchema.shape),
  profile: Object.keys(ProfileConfigSchema.shape),
  topUpMethods: ['card_checkout', 'card_direct', 'usdc'],
} as const;

/** Builds the one-sentence error for the first zod issue: the file, the field, what is wrong. */
function configInvalid(file: string, issues: readonly z.core.$ZodIssue[]): ConfigError {
  const issue = issues[0];
  const at = (issue?.path ?? []).map(String);
  if (issue?.code === 'unrecognized_keys') {
    const field = [...at, issue.keys[0] ?? ''].join('.');
    const place = at.at(-1);
    const known = at.length === 0 ? KNOWN_FIELDS.top : place === 'autoTopUp' ? Object.keys(AutoTopUpPolicySchema.shape) : place === 'topUpMethods' ? KNOWN_FIELDS.topUpMethods : KNOWN_FIELDS.profile;
    return new ConfigError('config_invalid', `the config file ${file} has an unknown field "${field}" (known here: ${known?.join(', ')}): fix or remove it (keydeck's config never holds a key).`, {
      path: file,
      field,
    });
  }
  if (issue?.code === 'invalid_key') {
    const field = at.join('.');
    return new ConfigError('config_invalid', `the config file ${file} has an invalid profile name at "${field}": use 1–64 letters, digits, ".", "_" or "-".`, { path: file, field });
  }
  const field = at.length > 0 ? at.join('.') : '(top level)';
  const what = (issue?.message ?? 'invalid').replace(/^Invalid input: /, '');
  return new ConfigError('config_invalid', `the config file ${file} has an invalid field "${field}": ${what}.`, {
    path: file,
    field,
  });
}

/**
 * Writes `config` to `file` atomically, following no link (./atomic.ts), creating the directory (mode 0700).
 * @throws ConfigError `config_write_failed`.
 */
export async function writeConfig(file: string, config: KeydeckConfig, unknown: UnknownFields = NO_UNKNOWN_FIELDS): Promise<void> {
  const checked = withUnknownFields(ConfigFileSchema.parse(config), unknown);
  try {
    await mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
    await writeFileAtomically(file, `${JSON.stringify(checked, null, 2)}\n`, 0o644);
  } catch (err) {
    if (err instanceof UnsafePathError) throw new ConfigError('config_write_failed', `cannot write the config file ${file}: ${err.message}.`, { path: file });
    throw new ConfigError('config_write_failed', `cannot write the config file ${file} (${(err as NodeJS.ErrnoException).code ?? (err as Error).message}): check the directory's permissions.`, {
      path: file,
    });
  }
}

/** Options of {@link updateConfig}. */
export interface UpdateConfigOptions {
  /**
   * When the file on disk is broken (not JSON, or invalid): `'backup'` moves it to
   * `config.json.bak-<timestamp>` and starts from an empty config; `'throw'` (default) refuses.
   */
  readonly onBroken?: 'throw' | 'backup';
}

/** The result of {@link updateConfig}. */
export interface UpdateConfigResult {
  readonly config: KeydeckConfig;
  /** Where the broken file was moved, when it was. */
  readonly backupPath?: string;
  /** Why the moved file was broken (the {@link ConfigError} sentence). */
  readonly brokenReason?: string;
}

/**
 * Reads the file, applies `change` to a copy and writes the result, holding the config dir's
 * cross-process lock (./lock.ts) from the read to the write, so concurrent keydeck processes
 * never lose each other's changes. The file is never overwritten while broken unless it was
 * first moved to a backup (`onBroken: 'backup'`).
 * @throws ConfigError from {@link readConfig} (with `onBroken: 'throw'`) or {@link writeConfig};
 *   `config_write_failed` when the lock cannot be had.
 */
export async function updateConfig(file: string, change: (config: KeydeckConfig) => KeydeckConfig | void, options: UpdateConfigOptions = {}): Promise<UpdateConfigResult> {
  // The dir is checked before the lock file is created in it.
  const dirProblem = checkTrustedDir(path.dirname(file));
  if (dirProblem) throw new ConfigError('config_untrusted', `${dirProblem.sentence}.`, { path: dirProblem.path });
  try {
    return await withConfigLock(path.dirname(file), () => updateUnlocked(file, change, options));
  } catch (err) {
    if (err instanceof ConfigError) throw err;
    throw new ConfigError('config_write_failed', `cannot update the config file ${file}: ${(err as Error).message}.`, { path: file });
  }
}

async function updateUnlocked(file: string, change: (config: KeydeckConfig) => KeydeckConfig | void, options: UpdateConfigOptions): Promise<UpdateConfigResult> {
  let current: KeydeckConfig;
  let unknown = NO_UNKNOWN_FIELDS;
  let backupPath: string | undefined;
  let brokenReason: string | undefined;
  try {
    ({ config: current, unknown } = await readConfig(file));
  } catch (err) {
    const broken = err instanceof ConfigError && (err.code === 'config_not_json' || err.code === 'config_invalid');
    if (!broken || options.onBroken !== 'backup') throw err;
    backupPath = `${file}.bak-${new Date().toISOString().replace(/[:.]/g, '-')}`;
    brokenReason = err.message;
    await rename(file, backupPath);
    current = emptyConfig();
  }
  const copy = structuredClone(current);
  const next = change(copy) ?? copy;
  // The fields this keydeck does not know stay as they were (a newer keydeck's).
  await writeConfig(file, next, unknown);
  return { config: next, ...(backupPath && { backupPath, brokenReason }) };
}

/**
 * The auto top-up policy of profile `profile` in the config file `file`, read afresh (the
 * faces that act on it read it at each balance read, so `autotopup set`, `off` and `resume` in
 * another shell take effect at the next one). Undefined: none.
 * @throws ConfigError as {@link readConfig}
 */
export async function readAutoTopUpPolicy(file: string, profile: string): Promise<AutoTopUpPolicy | undefined> {
  return (await readConfig(file)).config.profiles[profile]?.autoTopUp;
}

/**
 * Pauses the auto top-up policy of profile `profile` in the config file `file` with `pause`
 * (auto top-up found another machine's charge for the same fall: docs/topups.md "Auto top-up"),
 * under the config's lock; nothing when the profile has no policy any more.
 * @throws ConfigError as {@link updateConfig}
 */
export async function pauseAutoTopUpPolicy(file: string, profile: string, pause: NonNullable<AutoTopUpPolicy['paused']>): Promise<void> {
  await updateConfig(file, (config) => {
    const entry = config.profiles[profile];
    if (entry?.autoTopUp) entry.autoTopUp = { ...entry.autoTopUp, paused: pause };
  });
}
