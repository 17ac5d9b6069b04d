/**
 * The exporter's log: one line per event on stderr, in logfmt
 * (`time=… level=info event=profile_down profile=prod reason=unreachable msg="…"`, as Prometheus'
 * own programs write) or JSON lines (`--log-format json`). Events are changes (a profile down or up
 * again, the config reloaded or refused, a profile added or removed), not every poll. Values are
 * sanitised (src/terminal/sanitize.ts: no control, bidi or invisible character from the service
 * reaches the journal raw) and bounded; nothing secret is ever passed in (messages of the client's
 * errors are already redacted).
 */
import { visible } from '../terminal/sanitize.js';

/** `--log-format`. */
export type LogFormat = 'logfmt' | 'json';
/** The log formats, for the flag's choices. */
export const LOG_FORMATS: readonly LogFormat[] = ['logfmt', 'json'];

/** `--log-level`: the least severe level written (`debug` adds one line per poll). */
export type LogLevel = 'debug' | 'info' | 'warn' | 'error';
/** The log levels, least severe first, for the flag's choices. */
export const LOG_LEVELS: readonly LogLevel[] = ['debug', 'info', 'warn', 'error'];

/** A field's value. */
export type LogValue = string | number | boolean | undefined;

/** Writes events. */
export interface Logger {
  debug(event: string, fields?: Record<string, LogValue>): void;
  info(event: string, fields?: Record<string, LogValue>): void;
  warn(event: string, fields?: Record<string, LogValue>): void;
  error(event: string, fields?: Record<string, LogValue>): void;
}

/** Longest value written, in characters (a longer one ends with `…`). */
const MAX_VALUE = 1024;

function logfmtValue(value: string | number | boolean): string {
  const text = String(value);
  if (text !== '' && /^[^\s"=\\]+$/.test(text)) return text;
  return `"${text.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
}

/** One line of `event` with `fields` in `format`, at epoch ms `now` (pure; no newline). */
export function formatLine(format: LogFormat, level: LogLevel, event: string, fields: Record<string, LogValue>, now: number): string {
  const entries: [string, string | number | boolean][] = [
    ['time', new Date(now).toISOString()],
    ['level', level],
    ['event', event],
  ];
  for (const [key, value] of Object.entries(fields)) {
    if (value === undefined) continue;
    entries.push([key, typeof value === 'string' ? visible(value, { maxLength: MAX_VALUE }) : value]);
  }
  if (format === 'json') return JSON.stringify(Object.fromEntries(entries));
  return entries.map(([k, v]) => `${k}=${logfmtValue(v)}`).join(' ');
}

/**
 * A logger writing to `write` (default stderr) in `format`, leaving out lines less severe than
 * `level` (default `info`).
 */
export function createLogger(format: LogFormat, write: (line: string) => void = (line) => process.stderr.write(line), now: () => number = Date.now, level: LogLevel = 'info'): Logger {
  const least = LOG_LEVELS.indexOf(level);
  const line = (at: LogLevel) =>
    LOG_LEVELS.indexOf(at) < least ? () => undefined : (event: string, fields: Record<string, LogValue> = {}) => write(`${formatLine(format, at, event, fields, now())}\n`);
  return { debug: line('debug'), info: line('info'), warn: line('warn'), error: line('error') };
}
