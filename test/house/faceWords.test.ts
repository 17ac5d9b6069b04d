/**
 * No lower layer knows which face it serves (docs/architecture.md, "The error type"): below the
 * faces, no string or template names a keydeck command to run or a flag of the command line. A
 * lower layer throws or returns a code and its facts; each face words them, the commands naming
 * their commands and flags, the TUI its keys and panes. The names are read from the command
 * line's own tree (src/cli/program.ts), so a new command or flag is checked as soon as it exists.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { createProgram } from '../../src/cli/program.js';
import { literalsOnly, ROOT, sourceFiles } from './source.js';

/**
 * The faces and their words (src/words), the executable's own checks, and the sandbox, which sits
 * beside the layers (started by `keydeck sandbox` or `--sandbox`, its pages and refusals speak of
 * itself): they may name commands and flags.
 */
const FACES = /^src\/(commands\/|tui\/|cli\/|cli\.ts$|bin\.ts$|node-version\.ts$|exporter\/|words\/|sandbox\/)/;

/**
 * The modules below the faces whose strings may name a keydeck command, each with why. The wording
 * table of the operations words each event and failure for each face, a command for the commands
 * and a key for the TUI (docs/architecture.md, "The operations' kit").
 */
const MAY_NAME_COMMANDS: Readonly<Record<string, string>> = {
  'src/operations/wording.ts': "the operations' wording table: each face's words, by face",
  'src/operations/wordingAutoTopUp.ts': "the operations' wording table, its auto top-up rows",
};

/**
 * The modules below the faces whose strings may name a command's flag, each with why: the checks
 * of a flag's value where that value is parsed (the flag is what the user typed), or words left
 * for a later change, said so.
 */
const MAY_NAME_FLAGS: Readonly<Record<string, string>> = {
  ...MAY_NAME_COMMANDS,
  'src/config/autoTopUp.ts': 'the checks of the policy `autotopup set` takes from its flags (--below, --amount, --to, the caps); only that command sets a policy',
  'src/config/policyFile.ts': 'the policy file of `plan` and `apply`, which their --file names',
  'src/delivery/destinations.ts':
    "the parse of --to-file and --to-command, its refusals opening with the flag; the policy file's reader says `to` instead (src/operations/policyPlan.ts), the TUI's destination dialog drops it (src/tui/flows/delivery/DestinationChooser.tsx)",
  'src/api/resources/billing.ts': "the service's refusal of a top-up method's name, with the setting that changes it and --method. Left: the TUI's walk-through shows it as it is",
};

/**
 * Every command name (and alias) of the command line, and the long options of its commands, from
 * its tree. The program's own options (`--profile`, `--read-only`, `--base-url`…) are left out:
 * every face is started with them, so a lower layer that names one (`--read-only was given`)
 * says what the user typed, whichever face it serves.
 */
function commandLine(): { commands: Set<string>; flags: Set<string> } {
  const program = createProgram('0.0.0');
  const global = new Set(program.options.map((o) => o.long));
  const commands = new Set<string>();
  const flags = new Set<string>();
  const walk = (command: Command): void => {
    for (const name of [command.name(), ...command.aliases()]) commands.add(name);
    for (const option of command.options) if (option.long !== undefined && !global.has(option.long) && option.long !== '--help') flags.add(option.long.slice(2));
    for (const sub of command.commands) walk(sub);
  };
  for (const sub of program.commands) walk(sub);
  return { commands, flags };
}

const escape = (s: string) => s.replace(/[-/\\^$*+?.()|[\]{}]/g, '\\$&');

/** What each string below the faces names: `keydeck <command>` (flags before it allowed) and `--<flag>`. */
function named(): { file: string; line: number; what: string }[] {
  const { commands, flags } = commandLine();
  // `a keydeck sandbox` is the thing, not the command.
  const command = new RegExp(`(?<!\\ba )\\bkeydeck +(?:--[\\w-]+(?:[ =][^\\s-]\\S*)? +)*(?:${[...commands].map(escape).join('|')})(?![\\w-])`, 'g');
  const flag = new RegExp(
    `(?<![\\w-])--(?:${[...flags]
      .sort((a, b) => b.length - a.length)
      .map(escape)
      .join('|')})(?![\\w-])`,
    'g',
  );
  return sourceFiles()
    .filter((file) => !FACES.test(file))
    .flatMap((file) => {
      const literals = literalsOnly(readFileSync(path.join(ROOT, file), 'utf8'));
      const found: { file: string; line: number; what: string }[] = [];
      for (const pattern of [command, flag]) {
        for (const m of literals.matchAll(pattern)) found.push({ file, line: literals.slice(0, m.index).split('\n').length, what: m[0] });
      }
      return found;
    });
}

describe('the faces word what a user does', () => {
  const found = named();

  it('no string below the faces names a keydeck command, but in the wording table of the operations', () => {
    expect(found.filter((f) => f.what.startsWith('keydeck') && MAY_NAME_COMMANDS[f.file] === undefined).map((f) => `${f.file}:${f.line}: ${f.what}`)).toEqual([]);
  });

  it('no string below the faces names a flag of the command line, but where a flag’s value is parsed', () => {
    expect(found.filter((f) => f.what.startsWith('--') && MAY_NAME_FLAGS[f.file] === undefined).map((f) => `${f.file}:${f.line}: ${f.what}`)).toEqual([]);
  });

  it('is written down: docs/architecture.md states the rule', () => {
    const page = readFileSync(path.join(ROOT, 'docs', 'architecture.md'), 'utf8').replace(/\s+/g, ' ');
    expect(page).toContain('**No lower layer names a command** (`test/house/faceWords.test.ts`)');
  });

  it('each module allowed to name a command or a flag still does (the lists hold no stale entry)', () => {
    const naming = new Set(found.map((f) => f.file));
    expect(Object.keys(MAY_NAME_FLAGS).filter((file) => !naming.has(file))).toEqual([]);
  });
});
