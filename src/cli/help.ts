/**
 * `keydeck help [TOPIC|COMMAND…]` (issue 27): commander's help of a command (`keydeck help keys
 * create`, as commander's own help command does), a page of the manual (`keydeck help commands`,
 * src/commands/manual.ts), or, without a word, the program's help with the manual's topics.
 * `keydeck help environment` stays the generated list of src/commands/environment.ts.
 */
import type { Command } from 'commander';
import { MANUAL_TOPICS, topicList } from '../commands/manualTopics.js';
import { failUnknownCommand } from './errors.js';

/** Replaces commander's implicit help command by keydeck's, which also knows the manual's topics. */
export function registerHelp(program: Command): void {
  program.helpCommand(false);
  program.addHelpText('after', () => `The manual, a page a topic: keydeck help TOPIC\n${topicList()}\n`);
  program
    .command('help')
    .description('show the help of a command, or a page of the manual (keydeck help TOPIC)')
    .argument('[topic-or-command...]', 'a topic of the manual (keydeck help lists them) or a command (keys create)')
    .helpOption(false)
    .action(async (words: string[]) => {
      // Without a word: the program's help, which lists the topics too (as `keydeck --help`).
      if (words.length === 0) program.help();
      const [first, ...rest] = words as [string, ...string[]];
      if (rest.length === 0 && first === 'environment') {
        const { environmentHelp } = await import('../commands/environment.js');
        process.stdout.write(environmentHelp());
        return;
      }
      if (rest.length === 0 && MANUAL_TOPICS.some((t) => t.name === first)) {
        const { readManualPage, renderManualPage } = await import('../commands/manual.js');
        const { runLocal } = await import('./shared.js');
        await runLocal(async () => {
          // Prose wrapped at the terminal's width (at most 100 columns; 100 into a pipe).
          const width = process.stdout.isTTY && process.stdout.columns > 0 ? Math.min(process.stdout.columns, 100) : 100;
          process.stdout.write(renderManualPage(readManualPage(first), { width }));
        });
        return;
      }
      // A command path: `help keys`, `help keys create`.
      let command: Command = program;
      for (const [i, word] of words.entries()) {
        const sub = command.commands.find((c) => c.name() === word || c.aliases().includes(word));
        if (sub === undefined) {
          failUnknownCommand(command, word, i === 0 ? { extra: MANUAL_TOPICS.map((t) => t.name), what: 'no command or help topic' } : {});
        }
        command = sub;
      }
      command.help();
    });
}
