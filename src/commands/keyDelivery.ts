/**
 * The command line's face of key delivery (issue 26, src/delivery/): the `--to-file`,
 * `--to-command` and `--command-timeout` flags of `keys create` and `keys rotate` turned into
 * destinations and checked before any key exists; each outcome said in one line (a command's
 * output under it, sanitised, or withheld when it held the key); and what happens when a key was
 * created but a destination failed: the key is printed only when stdout is a terminal (so it is
 * not lost), the destinations that already hold it are named, and deleting it is offered on a
 * terminal (else the command that deletes it is named). Never an orphan without a word.
 */
import type { KeydeckClient } from '../api/client.js';
import { dataDir } from '../config/paths.js';
import { checkDestinations, deliverKey, type DeliveryOutcome } from '../delivery/deliver.js';
import { DeliveryError, describeDestination, parseDestinations, type Destination } from '../delivery/destinations.js';
import { DEFAULT_COMMAND_TIMEOUT_MS } from '../delivery/command.js';
import { visible } from '../terminal/sanitize.js';
import { DeliveryRecord } from '../delivery/deliveryRecord.js';
import { askLine, canPrompt, ExitCode, fail, printLine, sentenceOf, warn, type Session } from './output.js';

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
      fail(ExitCode.usage, `invalid_request: --command-timeout must be a number of seconds above 0 and at most 3600, not "${visible(flags.commandTimeout)}"`);
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

/**
 * Checks every destination before the key is created.
 * @throws CommandFailure exit 1 `destination_refused`, saying nothing was created
 */
export async function checkPlan(plan: DeliveryPlan): Promise<void> {
  try {
    await checkDestinations(plan.destinations, { env: plan.env });
  } catch (err) {
    if (err instanceof DeliveryError) fail(ExitCode.refused, `${err.code}: ${err.message.replace(/[.;]? nothing was created$/, '')}; no key was created`);
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

/** Delivers `key` by `plan`, says each outcome, and returns them. */
export async function deliverAndSay(key: string, plan: DeliveryPlan, json = false): Promise<DeliveryOutcome[]> {
  const outcomes = await deliverKey(key, plan.destinations, { lockDir: plan.lockDir, env: plan.env, commandTimeoutMs: plan.commandTimeoutMs });
  printOutcomes(outcomes, json);
  return outcomes;
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

/**
 * Remembers where the key `keyId` was delivered (the destinations that took it), so that rotating
 * it later goes to the same places (src/delivery/deliveryRecord.ts). A failure is a warning.
 */
export async function rememberDeliveries(session: Pick<Session, 'profile'>, keyId: string, outcomes: readonly DeliveryOutcome[], env: NodeJS.ProcessEnv = process.env): Promise<void> {
  const took = outcomes.filter((o) => o.ok).map((o) => o.destination);
  try {
    await new DeliveryRecord(dataDir(env)).remember({ profile: session.profile.name, origin: new URL(session.profile.baseUrl).origin, keyId }, took);
  } catch (err) {
    warn(`could not remember where the key went (for its rotation): ${(err as Error).message}`);
  }
}

/** The destinations of `outcomes` that hold the key, in words (empty when none). */
export function holders(outcomes: readonly DeliveryOutcome[]): string[] {
  return outcomes.filter((o) => o.ok).map((o) => describeDestination(o.destination));
}

/**
 * A key was created and at least one destination failed (see the module comment). Prints the key
 * when stdout is a terminal, offers to delete it on a terminal, and ends the command.
 * @throws CommandFailure exit 1 `delivery_failed` (always: the command did not do what was asked)
 */
export async function undelivered(
  created: { readonly id: string; readonly name: string; readonly apiKey: string },
  outcomes: readonly DeliveryOutcome[],
  client: { readonly keys: Pick<KeydeckClient['keys'], 'delete'> },
  options: { readonly what?: string; readonly keepOld?: string; readonly onDeleted?: () => Promise<unknown> } = {},
): Promise<never> {
  const label = `${options.what ?? 'the credit key'} "${visible(created.name)}" (id ${visible(created.id)})`;
  const failed = outcomes.filter((o) => !o.ok).map((o) => describeDestination(o.destination));
  const held = holders(outcomes);
  if (process.stdout.isTTY) {
    printLine('');
    printLine(`The key could not be delivered everywhere; so that it is not lost, here it is (the only time it is shown):`);
    printLine('');
    printLine(`  ${visible(created.apiKey)}`);
    printLine('');
  } else {
    warn('the key is not printed: stdout is not a terminal, and it cannot be shown again');
  }
  if (held.length > 0) warn(`${held.join(', ')} already ${held.length === 1 ? 'holds' : 'hold'} the new key`);
  let outcome = `kept; delete it with \`keydeck keys delete ${created.id}\` if it is not used`;
  if (canPrompt()) {
    const breaks = held.length > 0 ? ` Whatever reads ${held.join(', ')} then stops working.` : '';
    const answer = await askLine(`Delete ${label} now?${breaks} [y/N] `);
    if (/^y(es)?$/i.test(answer)) {
      try {
        await client.keys.delete(created.id);
        outcome = 'deleted again';
        await options.onDeleted?.();
      } catch (err) {
        outcome = `could not be deleted (${sentenceOf(err).replace(/\.$/, '')}); delete it with \`keydeck keys delete ${created.id}\``;
      }
    }
  }
  fail(
    ExitCode.refused,
    `delivery_failed: ${label} was created, but ${failed.join(', ')} did not take it; the key was ${outcome}${options.keepOld ? `; ${options.keepOld}` : ''}`,
  );
}
