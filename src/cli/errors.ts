/**
 * One style for every usage error of the command line, keydeck's own (an
 * unknown command, `keydeck help` of no topic) and commander's (an unknown option, a missing
 * argument, a choice not offered), always two lines on stderr and exit 2:
 *
 * ```
 * keydeck: unknown option '--jsno'.
 * Did you mean '--json'? See 'keydeck keys list --help'.
 * ```
 *
 * The first line says what is wrong, the second (the suggestion line) the closest name when there
 * is one, and always where the command's usage is. What the user typed is shown with a key value
 * cut to its prefix and control characters replaced (it may be a pasted `sk_…`).
 */
import type { Command, CommanderError } from 'commander';
import { redactSecrets } from '../api/errors.js';
import { suggestCommand } from '../commands/suggest.js';

/** The words of `cmd` under the program (`keys list`; empty for the program itself). */
export function commandPath(cmd: Command): string {
  const words: string[] = [];
  for (let c: Command | null = cmd; c?.parent; c = c.parent) words.unshift(c.name());
  return words.join(' ');
}

/** What the user typed, fit to be echoed: a key value as its prefix, no control character, at most 60 characters. */
export function shownInput(text: string): string {
  return redactSecrets(text)
    .replace(/[\u0000-\u001f\u007f-\u009f]/g, '?')
    .slice(0, 60);
}

/**
 * The two lines of a usage error (with the final newline): `keydeck: SENTENCE.` and the
 * suggestion line, `Did you mean 'SUGGESTION'? See 'keydeck PATH --help'.` (without a suggestion,
 * only the pointer to the help of `cmd`).
 */
export function usageErrorText(cmd: Command, sentence: string, suggestion?: string | readonly string[]): string {
  const path = commandPath(cmd);
  const first = /[.?!]$/.test(sentence) ? sentence : `${sentence}.`;
  const all = suggestion === undefined ? [] : typeof suggestion === 'string' ? [suggestion] : suggestion;
  const didYouMean = all.length === 0 ? '' : `Did you mean ${all.map((s) => `'${s}'`).join(' or ')}? `;
  return `keydeck: ${first}\n${didYouMean}See 'keydeck ${path ? `${path} ` : ''}--help'.\n`;
}

/**
 * Writes {@link usageErrorText} to stderr, through the command's own `writeErr` when it has one
 * (`keydeck exporter` writes every line in its `--log-format`), and exits 2 (bad usage;
 * 1 for `plan`, whose 2 means changes).
 */
export function failUsage(cmd: Command, sentence: string, suggestion?: string | readonly string[]): never {
  const text = usageErrorText(cmd, sentence, suggestion);
  const writeErr = cmd.configureOutput().writeErr;
  if (asksForJson(cmd)) process.stdout.write(`${JSON.stringify(usageErrorJson(text), null, 2)}\n`);
  else if (writeErr) writeErr(text);
  else process.stderr.write(text);
  // `plan` exits 2 for changes (terraform's -detailed-exitcode): its usage errors are 1, as its other errors.
  return process.exit(commandPath(cmd) === 'plan' ? 1 : 2);
}

/**
 * True when `cmd` has a `--json` option and the command line gave it: its usage error is then
 * {@link usageErrorJson} on stdout (docs/commands.md, "Errors under `--json`").
 */
function asksForJson(cmd: Command): boolean {
  let root = cmd;
  while (root.parent) root = root.parent;
  const args = (root as Command & { rawArgs?: readonly string[] }).rawArgs ?? [];
  return cmd.options.some((option) => option.long === '--json') && args.includes('--json');
}

/** A usage error's two lines as `--json`'s error object: code `usage`, the first line its message, the second its `help`. */
export function usageErrorJson(text: string): { error: { code: 'usage'; message: string; help: string } } {
  const [first = '', second = ''] = text.split('\n');
  return { error: { code: 'usage', message: first.replace(/^keydeck: /, ''), help: second } };
}

/**
 * An unknown subcommand `input` of `parent` (the program, or a group such as `keys`), with the
 * closest of its visible commands (and `extra` names, e.g. the manual's topics) as the suggestion:
 * `unknown command 'keys lst'.` / `Did you mean 'keys list'? See 'keydeck keys --help'.` Exits 2.
 * Under the program, a word that is (or is close to) a command of a group is suggested with its
 * group: `rotate` → `keys rotate` or `mgmt-keys rotate`.
 */
export function failUnknownCommand(parent: Command, input: string, options: { extra?: readonly string[]; what?: string } = {}): never {
  const visible = parent.createHelp().visibleCommands(parent);
  const names = [...visible.map((c) => c.name()), ...(options.extra ?? [])];
  const path = commandPath(parent);
  const full = (name: string): string => (path ? `${path} ${name}` : name);
  const suggestion = suggestCommand(input, names);
  const shown = `${options.what ?? 'unknown command'} '${full(shownInput(input))}'`;
  if (suggestion !== undefined || parent.parent) return failUsage(parent, shown, suggestion === undefined ? undefined : full(suggestion));
  // The commands of the groups, by name: the word as one of them, else the closest.
  const subcommands = visible.flatMap((group) =>
    group
      .createHelp()
      .visibleCommands(group)
      .filter((c) => c.name() !== 'help')
      .map((c) => ({ name: c.name(), path: `${group.name()} ${c.name()}` })),
  );
  const exact = subcommands.filter((c) => c.name === input.toLowerCase());
  const near = suggestCommand(input, [...new Set(subcommands.map((c) => c.name))]);
  const paths = (exact.length > 0 ? exact : subcommands.filter((c) => c.name === near)).map((c) => c.path);
  return failUsage(parent, shown, paths.length > 0 ? paths.slice(0, 3) : undefined);
}

/**
 * commander's error message in keydeck's style: without its `error: ` prefix, and its
 * `(Did you mean --json?)` line taken as the suggestion (the first of several); for a value not
 * among the choices, the closest choice. A key value in it is cut to its prefix, control
 * characters replaced, at most 400 characters.
 */
export function fromCommanderMessage(message: string): { sentence: string; suggestion?: string } {
  const text = message.replace(/^error: /, '');
  const shown = (t: string): string =>
    redactSecrets(t)
      .replace(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/g, '?')
      .slice(0, 400)
      .trim();
  const match = /\n\(Did you mean (?:one of )?([^,?]+)[^)]*\)\s*$/.exec(text);
  if (match) return { sentence: shown(text.slice(0, match.index)), suggestion: match[1]!.trim() };
  // A value not among an option's or argument's choices: the closest choice, if one is close.
  const choice = /(?:argument|value) '([^']*)' is invalid(?: for argument '[^']*')?\. Allowed choices are (.+)\.$/.exec(text);
  const suggestion = choice ? suggestCommand(choice[1]!, choice[2]!.split(', ')) : undefined;
  return suggestion === undefined ? { sentence: shown(text) } : { sentence: shown(text), suggestion };
}

/**
 * Gives `program` and every command under it keydeck's error style: commander's own errors are
 * not printed by commander but as {@link usageErrorText} of the command they came from, exit 2;
 * its help and version exit 0, a group's help shown for lack of a subcommand exits 2.
 */
export function styleErrors(program: Command): void {
  const style = (cmd: Command): void => {
    cmd.configureOutput({ outputError: () => undefined }).showHelpAfterError(false);
    cmd.exitOverride((err: CommanderError) => {
      if (err.exitCode === 0) return process.exit(0);
      if (err.code === 'commander.help') return process.exit(2);
      const { sentence, suggestion } = fromCommanderMessage(err.message);
      return failUsage(cmd, sentence, suggestion);
    });
    for (const sub of cmd.commands) style(sub);
  };
  style(program);
}
