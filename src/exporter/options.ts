/**
 * The flags of `keydeck exporter`, checked before anything is read or listened on.
 * Every problem is one sentence for a usage error (exit 2), written in the chosen `--log-format`
 * when that flag itself is good (the answer carries it).
 */
import path from 'node:path';
import { checkProfileName } from '../config/config.js';
import { parseIntervalSeconds } from '../billing/settings.js';
import { parseMetricsAddress } from '../metrics/address.js';
import { LOG_FORMATS, LOG_LEVELS, type LogFormat, type LogLevel } from './log.js';
import { DEFAULT_EXPORTER_INTERVAL_SECONDS, DEFAULT_EXPORTER_PORT, type ExporterOptions } from './run.js';

/** The flags as commander gives them (strings). */
export interface ExporterFlags {
  readonly listen?: string | undefined;
  /** Every `--profile NAME` given (commander keeps only the last: src/cli/exporter.ts collects them). */
  readonly profiles?: readonly string[] | undefined;
  readonly allProfiles?: boolean | undefined;
  readonly interval?: string | undefined;
  readonly tokenFile?: readonly string[] | undefined;
  /** `--token-dir DIR`: each profile's token in `DIR/<profile>`, read at each lookup. */
  readonly tokenDir?: string | undefined;
  readonly logFormat?: string | undefined;
  readonly logLevel?: string | undefined;
  readonly allowInsecureHttp?: boolean | undefined;
  /** `KEYDECK_PROFILE`, when no `--profile` is given. */
  readonly envProfile?: string | undefined;
}

/** {@link parseExporterFlags}'s answer: the options, or the sentence of the usage error. */
export type ExporterFlagsResult =
  | { readonly ok: true; readonly options: Omit<ExporterOptions, 'version'> }
  | { readonly ok: false; readonly reason: string; /** The log format to say it in (absent when `--log-format` itself is wrong). */ readonly logFormat?: LogFormat };

/** Checks the flags (see the module comment); relative token paths are resolved against `cwd`. */
export function parseExporterFlags(flags: ExporterFlags, cwd = process.cwd()): ExporterFlagsResult {
  const logFormat = flags.logFormat ?? 'logfmt';
  if (!(LOG_FORMATS as readonly string[]).includes(logFormat)) return { ok: false, reason: `--log-format must be ${LOG_FORMATS.join(' or ')}` };
  const fail = (reason: string): ExporterFlagsResult => ({ ok: false, reason, logFormat: logFormat as LogFormat });
  const logLevel = flags.logLevel ?? 'info';
  if (!(LOG_LEVELS as readonly string[]).includes(logLevel)) return fail(`--log-level must be one of ${LOG_LEVELS.join(', ')}`);
  const listen = parseMetricsAddress(flags.listen ?? String(DEFAULT_EXPORTER_PORT));
  if (!listen) return fail(`--listen must be PORT, :PORT or HOST:PORT, such as 127.0.0.1:${DEFAULT_EXPORTER_PORT}`);
  let intervalSeconds = DEFAULT_EXPORTER_INTERVAL_SECONDS;
  if (flags.interval !== undefined) {
    const parsed = parseIntervalSeconds(flags.interval);
    if (!parsed.ok) return fail(parsed.reason);
    intervalSeconds = parsed.value;
  }
  const names = flags.profiles ?? [];
  if (flags.allProfiles && names.length > 0) return fail('give either --all-profiles or --profile NAME (repeatable), not both');
  for (const name of names) {
    try {
      checkProfileName(name);
    } catch (error) {
      return fail((error as Error).message);
    }
  }
  const tokenFiles = new Map<string, string>();
  for (const spec of flags.tokenFile ?? []) {
    const eq = spec.indexOf('=');
    const profile = eq > 0 ? spec.slice(0, eq) : '';
    const file = eq > 0 ? spec.slice(eq + 1) : '';
    if (profile === '' || file === '')
      return fail('--token-file must be PROFILE=PATH, such as prod=/run/credentials/keydeck-exporter.service/prod (the token itself is never given on the command line)');
    try {
      checkProfileName(profile);
    } catch (error) {
      return fail(`--token-file ${(error as Error).message}`);
    }
    if (/^(mk|sk)[_-]/.test(file)) return fail('--token-file takes the path of a file holding the token, never the token itself: put it in a file (mode 0600) or in KEYDECK_TOKEN_<PROFILE>');
    if (tokenFiles.has(profile)) return fail(`--token-file names profile "${profile}" twice`);
    tokenFiles.set(profile, path.resolve(cwd, file));
  }
  if (flags.tokenDir !== undefined && flags.tokenDir.trim() === '') return fail('--token-dir must name a directory, such as /etc/keydeck-exporter/tokens');
  if (flags.tokenDir !== undefined && /^(mk_|sk_)/.test(flags.tokenDir)) return fail('--token-dir takes the directory of the token files, never a token itself');
  return {
    ok: true,
    options: {
      listen,
      selection: flags.allProfiles ? { kind: 'all' } : names.length > 0 ? { kind: 'names', names } : { kind: 'current', envProfile: flags.envProfile },
      intervalSeconds,
      tokenFiles,
      ...(flags.tokenDir !== undefined && { tokenDir: path.resolve(cwd, flags.tokenDir) }),
      logFormat: logFormat as LogFormat,
      logLevel: logLevel as LogLevel,
      allowInsecureHttp: flags.allowInsecureHttp === true,
    },
  };
}
