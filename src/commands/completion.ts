/**
 * Shell completion: `keydeck completion bash|zsh|fish` prints a small script for the
 * shell; the script asks keydeck itself for the candidates (`keydeck __complete -- WORDS…`, as
 * cobra's `__complete`), so the command tree (commander's) is the one source of truth. Profile
 * names come from the config file (cheap); key ids for `keys rename|enable|disable|delete` from
 * the service, with a 2 s limit and silently nothing on failure (no spinner, no prompt, nothing
 * on stderr).
 */
import type { Command } from 'commander';
import { configProfileNames } from '../config/profileNames.js';
import { exitQuietlyOnClosedPipe } from '../terminal/closedPipe.js';
import { HELP_WORDS, MANUAL_TOPICS } from './manualTopics.js';

/**
 * The command line as completion sees it: the visible commands and options of commander's tree
 * (src/cli/program.ts), as plain data. {@link commandTreeOf} makes it from the program; the build
 * writes it into dist/completion.json (scripts/build.mjs), which a completion request reads
 * without loading commander and the program (src/complete.ts: a Tab press waits for it).
 */
export interface CompletionCommand {
  readonly name: string;
  readonly aliases: readonly string[];
  readonly options: readonly CompletionOption[];
  readonly commands: readonly CompletionCommand[];
}

/** An option of a {@link CompletionCommand}. */
export interface CompletionOption {
  readonly long?: string;
  readonly short?: string;
  /** It takes a value (`--profile NAME`), so the next word is that value. */
  readonly takesValue: boolean;
  /** The values it accepts, when commander knows them (`--dialect`). */
  readonly choices?: readonly string[];
}

/** The visible commands and options of `cmd` (commander's), as a {@link CompletionCommand}. */
export function commandTreeOf(cmd: Command): CompletionCommand {
  return {
    name: cmd.name(),
    aliases: cmd.aliases(),
    options: cmd.options
      .filter((o) => !o.hidden)
      .map((o) => ({
        ...(o.long !== undefined && { long: o.long }),
        ...(o.short !== undefined && { short: o.short }),
        takesValue: o.required || o.optional,
        ...(o.argChoices !== undefined && { choices: [...o.argChoices] }),
      })),
    commands: cmd.commands.filter((c) => !(c as unknown as { _hidden?: boolean })._hidden && !c.name().startsWith('_')).map(commandTreeOf),
  };
}

/** The shells a script is printed for. */
export const SHELLS = ['bash', 'zsh', 'fish'] as const;
/** One of {@link SHELLS}. */
export type Shell = (typeof SHELLS)[number];

/**
 * The completion script of `shell` for the command `name` (`keydeck`), which asks `invoke` for
 * the candidates: `name` itself when it is on PATH, else the program that printed the script
 * by its path (`'/…/node' '/…/dist/cli.js'`, already quoted for the shell: {@link selfInvocation}).
 */
export function completionScript(shell: Shell, name = 'keydeck', invoke = name): string {
  const fn = `_${name.replace(/[^A-Za-z0-9_]/g, '_')}_complete`;
  const byPath = invoke !== name ? [`# ${name} is not on PATH where this was printed: the candidates come from ${invoke}`] : [];
  switch (shell) {
    case 'bash':
      return [
        `# ${name} completion for bash: add to ~/.bashrc:  source <(${invoke} completion bash)`,
        ...byPath,
        `${fn}() {`,
        `  local IFS=$'\\n'`,
        `  COMPREPLY=($(compgen -W "$(${invoke} __complete -- "\${COMP_WORDS[@]:1:COMP_CWORD}" 2>/dev/null)" -- "\${COMP_WORDS[COMP_CWORD]}"))`,
        `}`,
        `complete -o default -F ${fn} ${name}`,
        '',
      ].join('\n');
    case 'zsh':
      return [
        `#compdef ${name}`,
        `# ${name} completion for zsh: add to ~/.zshrc (after compinit):  source <(${invoke} completion zsh)`,
        ...byPath,
        `${fn}() {`,
        `  local -a candidates`,
        `  candidates=("\${(@f)$(${invoke} __complete -- "\${(@)words[2,CURRENT]}" 2>/dev/null)}")`,
        `  compadd -a candidates`,
        `}`,
        `compdef ${fn} ${name}`,
        '',
      ].join('\n');
    case 'fish':
      return [
        `# ${name} completion for fish:  ${invoke} completion fish > ~/.config/fish/completions/${name}.fish`,
        ...byPath,
        `function ${fn}`,
        `    ${invoke} __complete -- (commandline -opc)[2..-1] (commandline -ct) 2>/dev/null`,
        `end`,
        `complete -c ${name} -f -a '(${fn})'`,
        '',
      ].join('\n');
  }
}

/**
 * How the completion script runs keydeck: `keydeck` when `onPath` (a `keydeck` is found on
 * PATH), else this program by its path, `node` and script each single-quoted (a clone, where
 * `npx keydeck` runs it and nothing named keydeck is on PATH), with the sentence that says how
 * to put `keydeck` on PATH.
 */
export function selfInvocation(onPath: boolean, execPath: string, script: string): { invoke: string; advice?: string } {
  if (onPath) return { invoke: 'keydeck' };
  const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
  const invoke = `${quote(execPath)} ${quote(script)}`;
  return {
    invoke,
    advice:
      `keydeck is not on PATH here, so the script asks this program by its path (${invoke}); it completes a command typed as keydeck once keydeck is on PATH ` +
      `(npm link in the clone, or npm install -g keydeck) or with alias keydeck="${invoke}"`,
  };
}

/** Where dynamic candidates come from. */
export interface CompletionSources {
  /** Profile names (config file). */
  profiles(): Promise<string[]>;
  /** Consumption key ids (the service; may be slow or fail: then []), only those src/terminal/sanitize.ts `plainId` passes (letters, digits, `_`, `-`). */
  keyIds(): Promise<string[]>;
}

/** Positional arguments completed from a source, by command path. */
const POSITIONAL: Readonly<Record<string, keyof CompletionSources>> = {
  'profile use': 'profiles',
  'profile show': 'profiles',
  'profile remove': 'profiles',
  'keys rename': 'keyIds',
  'keys enable': 'keyIds',
  'keys disable': 'keyIds',
  'keys delete': 'keyIds',
};

/** Options whose value is completed from a source. */
const OPTION_VALUES: Readonly<Record<string, keyof CompletionSources>> = { '--profile': 'profiles' };

function visible(cmd: CompletionCommand): readonly CompletionCommand[] {
  return cmd.commands;
}

function optionsOf(chain: readonly CompletionCommand[]): CompletionOption[] {
  return chain.flatMap((c) => c.options);
}

/**
 * The candidates for the last of `words` (the words after the program name; the last one is
 * being typed, possibly empty): subcommands, options of the command and its parents, option
 * values (choices, profile names) and positional values (profile names, key ids). Not yet
 * filtered by the typed prefix beyond the obvious (the shells filter).
 */
export async function completeWords(program: CompletionCommand, words: readonly string[], sources: CompletionSources): Promise<string[]> {
  const typed = words.at(-1) ?? '';
  const before = words.slice(0, -1);
  const chain: CompletionCommand[] = [program];
  let expectingValueOf: CompletionOption | undefined;
  for (const [i, word] of before.entries()) {
    if (expectingValueOf) {
      expectingValueOf = undefined;
      continue;
    }
    if (word.startsWith('-')) {
      const option = optionsOf(chain).find((o) => o.long === word || o.short === word);
      if (option && option.takesValue && !word.includes('=')) expectingValueOf = option;
      continue;
    }
    // `keydeck help WORDS…`: the words are a command path, or a topic of the manual.
    if (chain.length === 1 && word === 'help') return helpCandidates(program, before.slice(i + 1));
    const sub = visible(chain.at(-1)!).find((c) => c.name === word || c.aliases.includes(word));
    if (sub) chain.push(sub);
  }
  if (expectingValueOf) {
    if (expectingValueOf.choices) return [...expectingValueOf.choices];
    const source = OPTION_VALUES[expectingValueOf.long ?? ''];
    return source ? sources[source]() : [];
  }
  if (typed.startsWith('-')) {
    return optionsOf(chain).flatMap((o) => (o.long ? [o.long] : o.short ? [o.short] : []));
  }
  const subs = visible(chain.at(-1)!).map((c) => c.name);
  if (subs.length > 0) return subs;
  const path = chain
    .slice(1)
    .map((c) => c.name)
    .join(' ');
  const source = POSITIONAL[path];
  return source ? sources[source]() : [];
}

/** After `keydeck help` and `path` (the words typed since): the subcommands there, and at the top also the manual's topics, `options` and `topics`. */
function helpCandidates(program: CompletionCommand, path: readonly string[]): string[] {
  let cmd = program;
  for (const word of path) {
    const sub = visible(cmd).find((c) => c.name === word || c.aliases.includes(word));
    if (!sub) return [];
    cmd = sub;
  }
  const names = visible(cmd)
    .map((c) => c.name)
    .filter((n) => n !== 'help');
  return cmd === program ? [...names, ...[...MANUAL_TOPICS.map((t) => t.name), ...HELP_WORDS].filter((t) => !names.includes(t))] : names;
}

/** Runs `promise` for at most `ms`; [] when it fails or is late. */
export async function within(promise: Promise<string[]>, ms: number): Promise<string[]> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([promise, new Promise<string[]>((resolve) => (timer = setTimeout(() => resolve([]), ms)))]);
  } catch {
    // a completion never fails the shell: no words
    return [];
  } finally {
    clearTimeout(timer);
  }
}

/**
 * A completion request (`keydeck __complete -- WORDS…`, what the scripts above run on Tab): prints
 * the candidates for the last of `words`, one a line, with `write` (default `process.stdout`'s;
 * a promise it returns is awaited: the exit waits until all of it is written), and exits 0,
 * whatever happens. `program` is the command tree (from the program, or
 * dist/completion.json); `baseUrl` the `--base-url` or KEYDECK_BASE_URL in force. Profile names
 * are read from the config file, key ids from the service (2 s at most, with a closed pipe on
 * stdout or stderr ending the process quietly from then on, src/terminal/closedPipe.ts); each only
 * when the words call for it, so a command name or an option loads neither the config nor the client.
 */
export async function runCompletion(
  program: CompletionCommand,
  words: readonly string[],
  baseUrl: string | undefined,
  write: (text: string) => Promise<void> | undefined = (text) => new Promise((resolve) => process.stdout.write(text, () => resolve())),
): Promise<never> {
  const at = words.indexOf('--profile');
  const chosenProfile = at >= 0 ? words[at + 1] : undefined;
  const candidates = await completeWords(program, words.length > 0 ? words : [''], {
    // Read without the config's schema (src/config/profileNames.ts): a Tab press does not load zod.
    // In this module's chunk (scripts/build.mjs ONE_SHOT_COMPLETION): no chunk more to load for it.
    profiles: async () => configProfileNames(),
    keyIds: () =>
      within(
        (async () => {
          exitQuietlyOnClosedPipe(); // as every command that opens a session (src/cli/main.ts)
          const { openSession } = await import('./output.js');
          const { client } = await openSession({ ...(chosenProfile && { profile: chosenProfile }), ...(baseUrl && { baseUrl }) }, { spinner: false, client: { timeoutMs: 2000, retries: 0 } });
          // Only ids fit for a command line: a candidate is typed into the shell's line and listed on the terminal, and the service is not trusted to send one.
          const { plainId } = await import('../terminal/sanitize.js');
          try {
            return (await client.keys.list()).map((k) => k.id).filter((id) => plainId(id) !== undefined);
          } finally {
            client.close();
          }
        })(),
        2000,
      ),
  });
  // All of it written before the exit: `process.exit` drops what a stream still holds (a full pipe).
  await write(candidates.length > 0 ? `${candidates.join('\n')}\n` : '');
  process.exit(0);
}
