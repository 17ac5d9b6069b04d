/**
 * The monitor's settings: the poll interval in seconds (`--interval`, profile
 * `pollIntervalSeconds`; never below 2) and the low-balance threshold in USD (`--alert-below`,
 * profile `alertBelowUsd`), parsed from command-line text with the reason in words. Pure.
 */

import { MAX_POLL_INTERVAL_SECONDS, MIN_POLL_INTERVAL_SECONDS } from '../config/config.js';

/** Shortest poll interval, seconds (the profile setting's bound, config.ts). */
export const MIN_INTERVAL_SECONDS = MIN_POLL_INTERVAL_SECONDS;
/** Longest poll interval accepted on the command line, seconds (one day). */
export const MAX_INTERVAL_SECONDS = MAX_POLL_INTERVAL_SECONDS;

/** A parse result: the value, or why the text was refused (one sentence). */
export type SettingParse = { ok: true; value: number } | { ok: false; reason: string };

/** Reads `--interval SECONDS`: a number from 2 to 86,400 (decimals allowed). */
export function parseIntervalSeconds(text: string): SettingParse {
  const value = Number(text.trim());
  if (text.trim() === '' || !Number.isFinite(value)) return { ok: false, reason: `--interval must be a number of seconds, such as 15` };
  if (value < MIN_INTERVAL_SECONDS) return { ok: false, reason: `--interval must be at least ${MIN_INTERVAL_SECONDS} seconds` };
  if (value > MAX_INTERVAL_SECONDS) return { ok: false, reason: `--interval must be at most ${MAX_INTERVAL_SECONDS} seconds (one day)` };
  return { ok: true, value };
}

/** Reads `--alert-below USD`: a number ≥ 0 with at most two decimals. */
export function parseAlertBelow(text: string): SettingParse {
  const t = text.trim().replace(/^\$/, '');
  if (!/^\d+(\.\d{1,2})?$/.test(t)) return { ok: false, reason: '--alert-below must be an amount in USD such as 5 or 12.50' };
  return { ok: true, value: Number(t) };
}

/** `--interval` and `--alert-below` as commander gives them (text), each optional. */
export interface WatchFlagText {
  readonly interval?: string | undefined;
  readonly alertBelow?: string | undefined;
}

/** The flags given, parsed: what overrides the profile's `pollIntervalSeconds` / `alertBelowUsd`. */
export interface WatchOverrides {
  /** Seconds between balance reads (≥ 2). */
  intervalSeconds?: number;
  /** Low-balance threshold, USD. */
  alertBelowUsd?: number;
}

/**
 * Parses `--interval` and `--alert-below` for the TUI, `keydeck monitor` and `billing watch`:
 * the overrides, or the first flag's reason for refusing (one sentence, no full stop).
 */
export function parseWatchFlags(flags: WatchFlagText): { ok: true; value: WatchOverrides } | { ok: false; reason: string } {
  const value: WatchOverrides = {};
  if (flags.interval !== undefined) {
    const interval = parseIntervalSeconds(flags.interval);
    if (!interval.ok) return interval;
    value.intervalSeconds = interval.value;
  }
  if (flags.alertBelow !== undefined) {
    const alert = parseAlertBelow(flags.alertBelow);
    if (!alert.ok) return alert;
    value.alertBelowUsd = alert.value;
  }
  return { ok: true, value };
}

/** What `keydeck monitor` runs with. */
export interface MonitorSettings {
  /** The service's base URL. */
  readonly baseUrl: string;
  /** The profile's name (shown). */
  readonly profileName: string;
  /** Seconds between polls (≥ 2). */
  readonly intervalSeconds: number;
  /** Low-balance threshold, USD. */
  readonly alertBelowUsd?: number;
  /** The credential in use, without its secret ("key mk_12345678 (keychain)"). */
  readonly credentialLabel: string;
}
