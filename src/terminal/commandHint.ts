/**
 * Command hints that carry the run's global flags: under `keydeck --sandbox …`, a sentence that
 * says "run `keydeck keys list`" says "run `keydeck --sandbox keys list`", so that the hint acts on
 * the same account (the demo account) as the command that printed it.
 *
 * The flags of a run are held for the length of the command by {@link withRunFlags} (an
 * `AsyncLocalStorage`, entered by the command line around each command: src/cli/shared.ts): the
 * only state here, and a run's own, so runs at once in one process (the suites' in-thread runs)
 * each see theirs. The commands' output helpers (src/commands/output.ts) pass every sentence they
 * print through {@link withHintFlags}; tables and JSON data are printed as they are.
 */
import { AsyncLocalStorage } from 'node:async_hooks';

/** The commands a hint may name that act on a service (the ones that read `--sandbox`). */
const SERVICE_COMMANDS = ['auth', 'doctor', 'monitor', 'exporter', 'keys', 'mgmt-keys', 'key-info', 'billing', 'autotopup', 'pools'] as const;

/**
 * `keydeck`, the global flags already written (`--profile work`), then a service command. A flag's
 * value is one word that does not start with `-`.
 */
const HINT = new RegExp(`\\bkeydeck((?:[ \\t]+--[a-z][a-z-]*(?:[ \\t]+[^\\s\`'"()-][^\\s\`'"()]*)?)*)[ \\t]+(?=(?:${SERVICE_COMMANDS.join('|')})\\b)`, 'g');

/** Quoted text (a key's name, the service's words), in straight or curly quotes: never rewritten. */
const QUOTED = /("[^"\n]*"|\u201C[^\u201D\n]*\u201D)/;

/** The flags of the run under way. */
const runFlags = new AsyncLocalStorage<readonly string[]>();

/** Runs `fn` with `flags` (`['--sandbox']`) as the run's hint flags; returns what it returns. */
export function withRunFlags<T>(flags: readonly string[], fn: () => T): T {
  return runFlags.run(flags, fn);
}

/** The hint flags of the run under way (none outside {@link withRunFlags}). */
export function runHintFlags(): readonly string[] {
  return runFlags.getStore() ?? [];
}

/** `keydeck [flags] COMMAND`: a command hint with `flags` (default the run's). */
export function commandHint(command: string, flags: readonly string[] = runHintFlags()): string {
  return ['keydeck', ...flags, command].join(' ');
}

/**
 * `text` with `flags` (default the run's) added to every hint of a service command in it that does
 * not have them yet, outside quoted text: `run keydeck keys list` → `run keydeck --sandbox keys list`.
 * A hint that names a service itself (`keydeck auth login --profile x --base-url URL`: how to make
 * a profile for another service) is left as it is: `--sandbox` and `--base-url` do not go together.
 */
export function withHintFlags(text: string, flags: readonly string[] = runHintFlags()): string {
  if (flags.length === 0 || !text.includes('keydeck')) return text;
  return text
    .split(QUOTED)
    .map((part, i) =>
      i % 2 === 1
        ? part
        : part.replace(HINT, (match: string, given: string, at: number, whole: string) => {
            // A hint that names its own service (`… --base-url URL`) is about another one: as it is.
            const rest = /^[^`;)\n]*/.exec(whole.slice(at + match.length))![0];
            if (/(^|\s)--base-url(\s|=|$)/.test(`${given} ${rest}`)) return match;
            const missing = flags.filter((flag) => !new RegExp(`(^|\\s)${flag}(\\s|=|$)`).test(given));
            return missing.length === 0 ? match : `keydeck ${missing.join(' ')}${match.slice('keydeck'.length)}`;
          }),
    )
    .join('');
}
