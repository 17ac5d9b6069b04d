/**
 * The program a run of one command gets (src/cli/program.ts `createProgram` with the run's
 * arguments): that command alone, its whole subtree as the whole program defines it, every global
 * option, `help` and the default action; the whole program whenever the run names no command it
 * can define alone. What a user sees of it (help, usage errors, exit codes) is checked through the
 * built CLI: test/commands/cli.test.ts, help.test.ts.
 */
import type { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { createProgram, invokedCommand } from '../../src/cli/program.js';

/** Everything commander knows of `cmd` and its subcommands that a run can show or act on. */
function shape(cmd: Command): unknown {
  return {
    name: cmd.name(),
    aliases: cmd.aliases(),
    description: cmd.description(),
    usage: cmd.usage(),
    help: cmd.helpInformation(),
    options: cmd.options.map((o) => [o.flags, o.description, o.defaultValue, o.hidden, o.required, o.optional, o.negate, o.argChoices, o.envVar]),
    arguments: cmd.registeredArguments.map((a) => [a.name(), a.required, a.variadic, a.description]),
    commands: cmd.commands.map(shape),
  };
}

const whole = createProgram('1.2.3');
const topLevel = whole.commands.map((c) => c.name());

describe('the program of one run', () => {
  it('defines the invoked command alone, with its whole subtree, every global option and help', () => {
    const alone = createProgram('1.2.3', ['keys', 'list', '--json']);
    expect(alone.commands.map((c) => c.name())).toEqual(['keys', 'help']);
    expect(shape(alone.commands[0]!)).toEqual(shape(whole.commands.find((c) => c.name() === 'keys')!));
    expect(alone.options.map((o) => o.flags)).toEqual(whole.options.map((o) => o.flags));
    // The program's own help is the whole program's (the overview), whatever the run.
    expect(alone.helpInformation()).toBe(whole.helpInformation());
  });

  it('defines each top-level command alone exactly as the whole program does', () => {
    let alones = 0;
    for (const name of topLevel) {
      const program = createProgram('1.2.3', [name]);
      const cmd = program.commands.find((c) => c.name() === name);
      expect(cmd, name).toBeDefined();
      expect(shape(cmd!), name).toEqual(shape(whole.commands.find((c) => c.name() === name)!));
      if (program.commands.length < whole.commands.length) alones++;
    }
    // Most are defined alone (help and the shell helpers read the whole program).
    expect(alones).toBeGreaterThanOrEqual(topLevel.length - 5);
  });

  it('finds the command after the global options, a value-taking one skipping its value', () => {
    expect(invokedCommand(whole, ['--profile', 'keys', 'billing', 'credits'])).toBe('billing');
    expect(invokedCommand(whole, ['--profile=keys', '--read-only', 'keys', 'list'])).toBe('keys');
    expect(invokedCommand(whole, ['--quiet', '--no-chain', 'billing'])).toBe('billing');
    expect(createProgram('1.2.3', ['--base-url', 'http://127.0.0.1:1', 'billing', 'credits']).commands.map((c) => c.name())).toEqual(['billing', 'help']);
  });

  it('is the whole program when the run names no command it can define alone', () => {
    for (const args of [
      [],
      ['--help'],
      ['-V'],
      ['--version'],
      ['--', 'keys'],
      ['--bogus', 'keys'],
      ['keyss', 'list'],
      ['help', 'keys'],
      ['completion'],
      ['__complete', '--', 'keys', ''],
      ['--profile'],
    ]) {
      expect(
        createProgram('1.2.3', args).commands.map((c) => c.name()),
        args.join(' '),
      ).toEqual(topLevel);
    }
  });
});
