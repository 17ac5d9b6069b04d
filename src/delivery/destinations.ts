/**
 * Where a new key goes instead of the screen: a dotenv file (`--to-file PATH[:VAR]`)
 * or a command that reads it on its standard input (`--to-command 'CMD ARGS'`). This module
 * parses what the user typed into a {@link Destination} and describes one in words; the writers
 * are ./fileTarget.ts and ./command.ts. Nothing here touches the disk or runs anything.
 *
 * The command line is split into argv as a POSIX shell would (the `shell-quote` package: quotes,
 * backslashes, `$VAR` from keydeck's environment), but no shell ever runs: a pipe, a redirection,
 * `;`, `&&`, a glob or a command substitution is refused with what to do instead, and so is a
 * line naming keydeck's secrets (`$KEYDECK_TOKEN…`, `$KEYDECK_SK…`) or holding a key value
 * (argv is visible in `ps`).
 */
import os from 'node:os';
import path from 'node:path';
import { parse as shellParse } from 'shell-quote';
import { visible } from '../terminal/sanitize.js';
import { holdsKeyValue, isSecretVariable } from '../terminal/secretEnv.js';
import { VARIABLE_NAME } from './dotenv.js';
import { KeydeckError } from '../errors/index.js';

/** The variable `--to-file PATH` writes when no `:VAR` is given. */
export const DEFAULT_VARIABLE = 'KEYDECK_API_KEY';

/** One place a key is delivered to. */
export type Destination =
  | {
      readonly kind: 'file';
      /** Absolute path of the dotenv file. */
      readonly path: string;
      /** The variable set in it (default {@link DEFAULT_VARIABLE}). */
      readonly variable: string;
      /** The path as the user typed it (for messages). */
      readonly given: string;
    }
  | {
      readonly kind: 'command';
      /** Program and arguments (no shell). */
      readonly argv: readonly string[];
      /** The command line as the user typed it (for messages). */
      readonly given: string;
    };

/** Stable codes of {@link DeliveryError}. */
export type DeliveryErrorCode =
  /** A destination as typed cannot be used (syntax, variable name, a shell operator): bad usage. */
  | 'invalid_destination'
  /** The file or its directory is not trusted, or the program is not found: nothing was created. */
  | 'destination_refused'
  /** Writing the file or running the command failed after the key existed. */
  | 'delivery_failed';

/** A destination problem: one sentence without any secret. */
export class DeliveryError extends KeydeckError {
  override readonly name = 'DeliveryError';
  override readonly code: DeliveryErrorCode;
  constructor(code: DeliveryErrorCode, message: string) {
    super(code, message);
    this.code = code;
  }
}

/** `~/x` → `$HOME/x` (a shell does it before keydeck sees the word, except after `--to-file=`). */
function expandHome(p: string, env: NodeJS.ProcessEnv): string {
  if (p === '~' || p.startsWith('~/')) return path.join(env.HOME ?? os.homedir(), p.slice(1));
  return p;
}

/**
 * Parses `--to-file PATH[:VAR]`: the part after the last `:` is the variable when it is a variable
 * name (`./a:b:KEY` writes KEY into `./a:b`), else the whole text is the path. A relative path is
 * taken from `cwd`.
 * @throws DeliveryError `invalid_destination` for an empty path or a bad variable name.
 */
export function parseFileDestination(spec: string, options: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): Destination {
  const colon = spec.lastIndexOf(':');
  const tail = colon === -1 ? '' : spec.slice(colon + 1);
  const named = colon > 0 && VARIABLE_NAME.test(tail);
  const given = named ? spec.slice(0, colon) : spec;
  if (colon === spec.length - 1 && colon > 0) {
    throw new DeliveryError('invalid_destination', `--to-file ${spec}: nothing after the ":" (give a variable name, e.g. ${spec}${DEFAULT_VARIABLE}, or leave out the ":")`);
  }
  if (given.trim() === '') throw new DeliveryError('invalid_destination', '--to-file needs a path (PATH or PATH:VARIABLE)');
  // `.env:MY-KEY`: meant as a variable, surely (a path part after a colon would hold a slash).
  if (colon > 0 && !named && !/[/\\]/.test(tail)) {
    throw new DeliveryError('invalid_destination', `--to-file ${spec}: "${tail}" is not a variable name (a letter or _, then letters, digits, _)`);
  }
  const env = options.env ?? process.env;
  const absolute = path.resolve(options.cwd ?? process.cwd(), expandHome(given, env));
  return { kind: 'file', path: absolute, variable: named ? tail : DEFAULT_VARIABLE, given };
}

/** `$NAME` or `${NAME}` references in a command line, quoted or not (a shell named in it would expand them). */
const VARIABLE_REFERENCE = /\$\{?([A-Za-z_][A-Za-z0-9_]*)/g;

/**
 * Parses `--to-command 'CMD ARGS'` into argv as a shell would split it (see the module comment).
 * Refused before any key exists: a command line that names one of keydeck's secrets
 * (src/terminal/secretEnv.ts `isSecretVariable`, even quoted, for the `sh -c` it may be handed to), that expands a
 * variable holding a key value, or that holds a key value itself: argv is visible to every user
 * of the machine (`ps`).
 * @throws DeliveryError `invalid_destination`: empty, a shell operator, a glob, a secret named.
 */
export function parseCommandDestination(line: string, options: { env?: NodeJS.ProcessEnv } = {}): Destination {
  const env = options.env ?? process.env;
  const named = [...line.matchAll(VARIABLE_REFERENCE)].map((m) => m[1]!).find(isSecretVariable);
  if (named !== undefined) {
    throw new DeliveryError('invalid_destination', `--to-command: $${named} is one of keydeck's secrets and is never put on a command line (nor in the command's environment); nothing was created`);
  }
  if (holdsKeyValue(line)) {
    throw new DeliveryError(
      'invalid_destination',
      '--to-command: the command line holds a key value, which every user of the machine could read (ps): the new key reaches the command on its standard input only; nothing was created',
    );
  }
  const keyVariables: string[] = [];
  const entries = shellParse(line, (name: string) => {
    const value = env[name] ?? '';
    if (holdsKeyValue(value)) keyVariables.push(name);
    return value;
  });
  if (keyVariables.length > 0) {
    throw new DeliveryError(
      'invalid_destination',
      `--to-command: $${keyVariables[0]} holds a key value, which would be on the command line for every user of the machine to read (ps); nothing was created`,
    );
  }
  const argv: string[] = [];
  for (const entry of entries) {
    if (typeof entry === 'string') {
      argv.push(entry);
      continue;
    }
    if ('comment' in entry) break;
    const op = 'op' in entry ? (entry.op === 'glob' ? (entry as { pattern: string }).pattern : entry.op) : '?';
    throw new DeliveryError(
      'invalid_destination',
      `--to-command: "${op}" needs a shell, and keydeck runs the command without one (the key goes to its standard input only); ` +
        "put the pipeline or redirection in a script and name the script, or write it out: sh -c '…'",
    );
  }
  if (argv.length === 0 || argv[0] === '') throw new DeliveryError('invalid_destination', "--to-command needs a command (e.g. --to-command 'gh secret set OPENAI_API_KEY')");
  return { kind: 'command', argv, given: line.trim() };
}

/**
 * A destination in words, for messages: `.env (KEYDECK_API_KEY)`, `` `gh secret set X` ``; the
 * path or command line escaped (src/terminal/sanitize.ts: a newline in it shows as `\\u000a`, so it
 * never splits a printed line).
 */
export function describeDestination(d: Destination): string {
  return d.kind === 'file' ? `${visible(d.given)} (${d.variable})` : `\`${visible(d.given)}\``;
}

/** The destinations of `--to-file` and `--to-command` flags, files first, each in the order given. */
export function parseDestinations(flags: { toFile?: readonly string[]; toCommand?: readonly string[] }, options: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): Destination[] {
  return [...(flags.toFile ?? []).map((s) => parseFileDestination(s, options)), ...(flags.toCommand ?? []).map((s) => parseCommandDestination(s, options))];
}

/** Two destination lists name the same places (the same files and variables, the same command lines), in the same order. */
export function samePlaces(a: readonly Destination[], b: readonly Destination[]): boolean {
  const place = (d: Destination) => (d.kind === 'file' ? `file\0${d.path}\0${d.variable}` : `command\0${d.argv.join('\0')}`);
  return a.length === b.length && a.every((d, i) => place(d) === place(b[i]!));
}
