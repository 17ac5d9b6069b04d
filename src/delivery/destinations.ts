/**
 * Where a new key goes instead of the screen (issue 26): a dotenv file (`--to-file PATH[:VAR]`)
 * or a command that reads it on its standard input (`--to-command 'CMD ARGS'`). This module
 * parses what the user typed into a {@link Destination} and describes one in words; the writers
 * are ./fileTarget.ts and ./command.ts. Nothing here touches the disk or runs anything.
 *
 * The command line is split into argv as a POSIX shell would (the `shell-quote` package: quotes,
 * backslashes, `$VAR` from keydeck's environment), but no shell ever runs: a pipe, a redirection,
 * `;`, `&&`, a glob or a command substitution is refused with what to do instead, and so is
 * `$KEYDECK_TOKEN` (keydeck's own credential must not land in a child's argv).
 */
import os from 'node:os';
import path from 'node:path';
import { parse as shellParse } from 'shell-quote';
import { VARIABLE_NAME } from './dotenv.js';

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
export class DeliveryError extends Error {
  override readonly name = 'DeliveryError';
  readonly code: DeliveryErrorCode;
  constructor(code: DeliveryErrorCode, message: string) {
    super(message);
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

/** Environment variables never expanded into a child's argv: keydeck's own credential. */
const SECRET_VARIABLES: ReadonlySet<string> = new Set(['KEYDECK_TOKEN']);

/**
 * Parses `--to-command 'CMD ARGS'` into argv as a shell would split it (see the module comment).
 * @throws DeliveryError `invalid_destination`: empty, a shell operator, a glob, `$KEYDECK_TOKEN`.
 */
export function parseCommandDestination(line: string, options: { env?: NodeJS.ProcessEnv } = {}): Destination {
  const env = options.env ?? process.env;
  const secretsUsed: string[] = [];
  const entries = shellParse(line, (name: string) => {
    if (SECRET_VARIABLES.has(name)) {
      secretsUsed.push(name);
      return '';
    }
    return env[name] ?? '';
  });
  if (secretsUsed.length > 0) {
    throw new DeliveryError('invalid_destination', `--to-command: $${secretsUsed[0]} is keydeck's own credential and is never put on a command line`);
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
        'put the pipeline or redirection in a script and name the script, or write it out: sh -c \'…\'',
    );
  }
  if (argv.length === 0 || argv[0] === '') throw new DeliveryError('invalid_destination', '--to-command needs a command (e.g. --to-command \'gh secret set OPENAI_API_KEY\')');
  return { kind: 'command', argv, given: line.trim() };
}

/** A destination in words, for messages: `.env (KEYDECK_API_KEY)`, `` `gh secret set X` ``. */
export function describeDestination(d: Destination): string {
  return d.kind === 'file' ? `${d.given} (${d.variable})` : `\`${d.given}\``;
}

/** The destinations of `--to-file` and `--to-command` flags, files first, each in the order given. */
export function parseDestinations(flags: { toFile?: readonly string[]; toCommand?: readonly string[] }, options: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): Destination[] {
  return [...(flags.toFile ?? []).map((s) => parseFileDestination(s, options)), ...(flags.toCommand ?? []).map((s) => parseCommandDestination(s, options))];
}
