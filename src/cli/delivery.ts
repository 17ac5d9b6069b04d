/**
 * The delivery flags shared by `keys create` and `keys rotate` (bodies in
 * src/commands/keyDelivery.ts): where a new key goes instead of the terminal.
 */
import type { Command } from 'commander';

/** The values of {@link addDeliveryOptions}' flags as commander gives them. */
export interface DeliveryOptionValues {
  readonly toFile?: string[];
  readonly toCommand?: string[];
  readonly commandTimeout?: string;
}

function collect(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}

/** Adds `--to-file`, `--to-command` and `--command-timeout` to `command`. */
export function addDeliveryOptions(command: Command): Command {
  return command
    .option(
      '--to-file <path[:VAR]>',
      'write the key as VAR=sk_… into this dotenv file (VAR default KEYDECK_API_KEY; a new file is made 0600, an existing one has only that line replaced); repeatable',
      collect,
    )
    .option('--to-command <command>', "run this command (no shell) with the key on its standard input, e.g. 'gh secret set OPENAI_API_KEY'; repeatable", collect)
    .option('--command-timeout <seconds>', 'kill a --to-command still running after this many seconds (default 30)');
}
