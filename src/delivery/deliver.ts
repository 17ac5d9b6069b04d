/**
 * Delivering one new key to every destination the user named, shared by
 * `keys create`, `keys rotate` and the TUI: {@link checkDestinations} before the key is created
 * (so no key is made that cannot be delivered), then {@link deliverKey} once it exists. Each
 * destination gets one {@link DeliveryOutcome}, in the order given; one failing does not stop
 * the others (the faces then say which failed, keep the key from being lost, and offer to delete it).
 *
 * No outcome, sentence or error holds the key. Command output is raw here: the faces show it
 * through src/terminal/sanitize.ts.
 */
import { checkCommandDestination, runKeyCommand, type CommandDelivery } from './command.js';
import { DeliveryError, describeDestination, type Destination } from './destinations.js';
import { checkFileDestination, writeKeyToFile, type FileDelivery } from './fileTarget.js';
import { visible } from '../terminal/sanitize.js';

/** Options of {@link deliverKey} and {@link checkDestinations}. */
export interface DeliveryOptions {
  /** keydeck's data dir: its lock guards file writes (src/config/paths.ts `dataDir`). */
  readonly lockDir: string;
  /** Environment of the commands (without keydeck's secrets: ./command.ts) and of PATH lookups; default `process.env`. */
  readonly env?: NodeJS.ProcessEnv;
  /** Bound of each command, ms (default 30 s). */
  readonly commandTimeoutMs?: number;
  /** Values no command's environment may hold (the credential keydeck signs in with). */
  readonly secrets?: readonly string[];
}

/** The outcome at one destination. */
export interface DeliveryOutcome {
  readonly destination: Destination;
  readonly ok: boolean;
  /** One sentence: `wrote KEYDECK_API_KEY into .env (created, mode 0600)`, `` `gh …` exited with 1 ``. */
  readonly sentence: string;
  /** The file's write, for a file destination that succeeded. */
  readonly file?: FileDelivery;
  /** The command's run, for a command destination that ran. */
  readonly command?: CommandDelivery;
}

/**
 * Checks every destination before a key is created (files: directory and file trust, a dotenv
 * the edit reads back; commands: the program exists).
 * @throws DeliveryError `destination_refused` for the first that cannot take a key
 */
export async function checkDestinations(destinations: readonly Destination[], options: Pick<DeliveryOptions, 'env'> = {}): Promise<void> {
  for (const d of destinations) {
    if (d.kind === 'file') await checkFileDestination(d);
    else await checkCommandDestination(d, options.env);
  }
}

function fileSentence(d: Extract<Destination, { kind: 'file' }>, f: FileDelivery): string {
  const mode = `mode 0${f.mode.toString(8)}`;
  if (f.created) return `wrote ${d.variable} into ${visible(d.given)} (a new file, ${mode})`;
  if (f.replacedLines.length === 0) return `added ${d.variable} at the end of ${visible(d.given)} (${mode})`;
  const where = f.replacedLines.length === 1 ? `line ${f.replacedLines[0]}` : `lines ${f.replacedLines.join(', ')} (it was set ${f.replacedLines.length} times)`;
  return `replaced ${d.variable} in ${visible(d.given)}, ${where}; the other lines are unchanged (${mode})`;
}

function commandSentence(d: Extract<Destination, { kind: 'command' }>, c: CommandDelivery, timeoutMs: number): string {
  const name = describeDestination(d);
  if (c.timedOut) return `${name} did not finish within ${timeoutMs < 1000 ? `${timeoutMs} ms` : `${Math.round(timeoutMs / 100) / 10} s`} and was killed`;
  if (c.exitCode === 0) return `${name} took the key (exit 0)`;
  if (c.exitCode === null) return `${name} ended by signal ${c.signal ?? '?'}`;
  return `${name} failed (exit ${c.exitCode})`;
}

/** Delivers `key` to one destination; never throws (a failure is an outcome). */
export async function deliverOne(key: string, d: Destination, options: DeliveryOptions): Promise<DeliveryOutcome> {
  try {
    if (d.kind === 'file') {
      const file = await writeKeyToFile(d, key, options.lockDir);
      return { destination: d, ok: true, sentence: fileSentence(d, file), file };
    }
    const timeoutMs = options.commandTimeoutMs ?? 30_000;
    const command = await runKeyCommand(d, key, { ...(options.env && { env: options.env }), timeoutMs, ...(options.secrets && { secrets: options.secrets }) });
    return { destination: d, ok: command.exitCode === 0 && !command.timedOut, sentence: commandSentence(d, command, timeoutMs), command };
  } catch (err) {
    const sentence = err instanceof DeliveryError ? err.message : `${describeDestination(d)}: ${(err as Error).message}`;
    return { destination: d, ok: false, sentence };
  }
}

/** Delivers `key` to each destination in turn (see the module comment). */
export async function deliverKey(key: string, destinations: readonly Destination[], options: DeliveryOptions): Promise<DeliveryOutcome[]> {
  const outcomes: DeliveryOutcome[] = [];
  for (const d of destinations) outcomes.push(await deliverOne(key, d, options));
  return outcomes;
}
