/**
 * What every command group of the command line shares: running a service-facing command with the
 * global options, and reporting a mistyped subcommand. Imports only `commander` and, lazily, the
 * commands' output helpers (so defining the program loads nothing else).
 */
import type { Command } from 'commander';
import type { GlobalOptions } from '../commands/output.js';
import { failUnknownCommand, failUsage, shownInput } from './errors.js';
import { inherits } from './inherited.js';

/** The dialects of the sandbox's answers (src/sandbox/dialect.ts). */
export const DIALECTS = ['seed', 'docs-v1', 'docs-v2'] as const;
/** One of {@link DIALECTS}. */
export type DialectName = (typeof DIALECTS)[number];

/**
 * Runs a service-facing command with the global options of `cmd` (with `--sandbox`, pointed at
 * the sandbox: src/commands/sandboxTarget.ts); API errors become one sentence naming the error
 * code on stderr and exit 1/2/4 (src/commands/api-command.ts); with `--json`, the one JSON error
 * on stdout instead (src/commands/failure.ts `jsonErrorOf`). `usageExit`: the exit code of a
 * usage error instead of 2, for a command whose 2 means something else (`plan`: changes).
 */
export async function runScripted(cmd: Command, body: (globals: GlobalOptions) => Promise<number>, options: { readonly usageExit?: 1 } = {}): Promise<void> {
  const { globalOptionsOf, CommandFailure, exitCodeOf, sentenceOf } = await import('../commands/output.js');
  const { runApiCommand, asCommandFailure } = await import('../commands/api-command.js');
  const { withSandbox } = await import('../commands/sandboxTarget.js');
  await withHints(cmd, () =>
    runApiCommand(
      async () => {
        try {
          return await withSandbox(globalOptionsOf(cmd), body);
        } catch (error) {
          const failure = asCommandFailure(error);
          if (options.usageExit !== undefined && exitCodeOf(failure) === 2) throw new CommandFailure(options.usageExit, sentenceOf(failure), { cause: failure });
          throw failure;
        }
      },
      { json: cmd.opts<{ json?: boolean }>().json === true },
    ),
  );
}

/**
 * Runs `fn` (a command's whole run, its last words included) with the run's hint flags: under
 * `--sandbox`, every command hint it prints carries the flag (src/terminal/commandHint.ts).
 */
export async function withHints<T>(cmd: Command, fn: () => Promise<T>): Promise<T> {
  let root = cmd;
  while (root.parent) root = root.parent;
  if (root.opts<{ sandbox?: boolean }>().sandbox !== true) return fn();
  const { withRunFlags } = await import('../terminal/commandHint.js');
  return withRunFlags(['--sandbox'], fn);
}

/**
 * Runs a local command (no service call) with `runCommand`'s exit handling
 * (src/commands/output.ts): its exit code, or one sentence on stderr (`json`: the JSON error on
 * stdout) and exit 1/2.
 */
export async function runLocal(body: () => Promise<number | void>, options: { readonly json?: boolean } = {}): Promise<void> {
  const { runCommand } = await import('../commands/output.js');
  await runCommand(body, options);
}

/**
 * Makes a command group report a mistyped subcommand as keydeck does at the top level
 * (`keydeck: unknown command 'keys lst'.` / `Did you mean 'keys list'? See 'keydeck keys --help'.`,
 * exit 2: ./errors.ts); without a subcommand it shows its help (exit 2).
 */
export function reportUnknownSubcommands(group: Command): Command {
  // `keydeck keys help list` keeps working: commander drops its implicit help command once a group has an action.
  // Unknown options reach the action too, so that `keys creat --name x` is said to be a mistyped
  // command (with `keys create` suggested), not an unknown option of the group.
  return group
    .helpCommand(true)
    .allowExcessArguments()
    .allowUnknownOption()
    .action(() => {
      if (group.args.length === 0) group.help({ error: true });
      const word = group.args.find((arg) => !arg.startsWith('-'));
      if (word === undefined) failUsage(group, `unknown option '${shownInput(group.args[0]!)}'`);
      failUnknownCommand(group, word);
    });
}

/**
 * A command group (`keys`, `billing`, …) with mistypes reported, whose commands' help lists the
 * program's options named by `inherited` (./inherited.ts; a command may name others).
 */
export function commandGroup(program: Command, name: string, description: string, inherited: readonly string[]): Command {
  const group = inherits(program.command(name).description(description), inherited);
  reportUnknownSubcommands(group);
  return group;
}
