/**
 * The command line's face of key delivery and of the key operations' events (src/delivery/,
 * src/operations/): the `--to-file`, `--to-command` and `--command-timeout` flags of `keys create`
 * and `keys rotate` turned into destinations (checked before any key exists by the operations),
 * each outcome said in one line (a command's output under it, sanitised, or withheld when it held
 * the key), every other event and failure of an operation said in the words of
 * src/operations/wording.ts. What happens when a destination fails is the operations' faces'
 * (./createKey.ts, ./keys-rotate.ts).
 */
import { dataDir } from '../config/paths.js';
import type { DeliveryOutcome } from '../delivery/deliver.js';
import { DeliveryError, parseDestinations, type Destination } from '../delivery/destinations.js';
import { DEFAULT_COMMAND_TIMEOUT_MS } from '../delivery/command.js';
import { eventPhrases, eventWords, failureLine, failureWords, OperationError, type OperationEvent } from '../operations/index.js';
import { visible } from '../terminal/sanitize.js';
import { ExitCode, fail, printLine, warn } from './output.js';
import { isRecordDamaged } from '../config/recordDamage.js';
import { keyWords } from './wordingKeys.js';

/** The delivery flags as commander gives them. */
export interface DeliveryFlags {
  /** `--to-file PATH[:VAR]`, repeatable. */
  readonly toFile?: readonly string[];
  /** `--to-command 'CMD ARGS'`, repeatable. */
  readonly toCommand?: readonly string[];
  /** `--command-timeout SECONDS` (default 30). */
  readonly commandTimeout?: string;
}

/** The destinations and their options, parsed from {@link DeliveryFlags}. */
export interface DeliveryPlan {
  readonly destinations: readonly Destination[];
  readonly commandTimeoutMs: number;
  readonly lockDir: string;
  readonly env: NodeJS.ProcessEnv;
}

/**
 * Parses the flags (nothing is checked on disk yet).
 * @throws CommandFailure exit 2 `invalid_destination` for a destination that cannot be used as typed
 */
export function deliveryPlanOf(flags: DeliveryFlags, env: NodeJS.ProcessEnv = process.env): DeliveryPlan {
  let commandTimeoutMs = DEFAULT_COMMAND_TIMEOUT_MS;
  if (flags.commandTimeout !== undefined) {
    const seconds = Number(flags.commandTimeout);
    if (!/^\d+(\.\d+)?$/.test(flags.commandTimeout.trim()) || !(seconds > 0) || seconds > 3600) {
      fail(ExitCode.usage, keyWords.invalidRequestCommandTimeoutMust, { commandTimeout: flags.commandTimeout });
    }
    commandTimeoutMs = Math.round(seconds * 1000);
  }
  try {
    return { destinations: parseDestinations(flags, { env }), commandTimeoutMs, lockDir: dataDir(env), env };
  } catch (err) {
    if (err instanceof DeliveryError) fail(ExitCode.usage, `${err.code}: ${err.message}`);
    throw err;
  }
}

/** Writes one line on stdout, or on stderr when stdout carries JSON. */
export function say(text: string, json: boolean): void {
  if (json) process.stderr.write(`${visible(text, { newlines: true })}\n`);
  else printLine(text);
}

/** Says each outcome: `delivered: …` / `FAILED: …`, with the command's output indented under it. */
export function printOutcomes(outcomes: readonly DeliveryOutcome[], json = false): void {
  for (const o of outcomes) {
    say(`${o.ok ? 'delivered' : 'FAILED'}: ${o.sentence}`, json);
    const c = o.command;
    if (!c) continue;
    if (c.outputHidden) say('    (its output is not shown: it held the key)', json);
    else if (c.output.trim() !== '') {
      const shown = c.output.replace(/\r\n/g, '\n').replace(/\n+$/, '').split('\n');
      for (const line of shown) say(`    ${line}`, json);
      if (c.truncated) say('    (output cut)', json);
    }
  }
}

/**
 * One outcome in `--json` output: `{ "kind": "file", "path", "variable", "ok", "sentence" }` or
 * `{ "kind": "command", "command", "ok", "sentence", "exitCode", "timedOut", "output" }` (output
 * null when it held the key).
 */
export function deliveryJson(o: DeliveryOutcome): Record<string, unknown> {
  const d = o.destination;
  const where = d.kind === 'file' ? { kind: 'file', path: d.path, variable: d.variable } : { kind: 'command', command: d.given };
  const c = o.command;
  return {
    ...where,
    ok: o.ok,
    sentence: o.sentence,
    ...(c && { exitCode: c.exitCode, timedOut: c.timedOut, output: c.outputHidden ? null : c.output }),
  };
}

/** Says one event of an operation (src/operations/events.ts): a warning on stderr, or lines (stderr under `--json`). */
export function renderEvent(event: OperationEvent, json: boolean): void {
  if (event.type === 'delivery') return printOutcomes([event.outcome], json);
  if (event.type === 'salvaged') {
    for (const phrase of eventPhrases(event, 'cli')) warn(visible(phrase));
    return;
  }
  for (const line of eventWords(event, 'cli')) say(visible(line), json);
}

/**
 * An operation's failure as the command's end: exit 1 (2 for a usage error) with the wording
 * table's code and words; any other error is thrown again.
 * @throws CommandFailure
 */
export function operationFailure(err: unknown): never {
  if (err instanceof OperationError) {
    const w = failureWords(err.failure, 'cli');
    // A record that cannot be read (src/config/recordFile.ts) fails closed: exit 3, as every record keydeck trusts.
    fail(isRecordDamaged(err) ? ExitCode.recordDamaged : w.usage ? ExitCode.usage : ExitCode.refused, visible(`${w.code}: ${failureLine(err.failure, 'cli')}`));
  }
  throw err;
}
