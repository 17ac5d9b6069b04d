/**
 * `keydeck help [TOPIC|COMMAND…]`: commander's help of a command (`keydeck help keys
 * create`, as commander's own help command does), a page of the manual (`keydeck help commands`,
 * src/commands/manual.ts, for the terminal's width and through the pager: src/commands/pager.ts),
 * or, without a word, the program's one-screen overview (./overview.ts, also `keydeck --help`).
 * Three words of its own: `environment` (the generated list of src/commands/environment.ts),
 * `options` (every option of the program) and `topics` (the manual's pages). A word that is none of
 * these is said with the nearest command, subcommand or topic (`help rotate`: `keys rotate`).
 */
import type { Command } from 'commander';
import { HELP_WORDS, MANUAL_TOPICS } from '../commands/manualTopics.js';
import { failUnknownCommand } from './errors.js';
import { optionsText, overviewText, topicsText } from './overview.js';

/** The width to lay a text out at: the terminal's, or `fallback` into a pipe. */
function outputWidth(fallback: number): number {
  return process.stdout.isTTY && process.stdout.columns > 0 ? process.stdout.columns : fallback;
}

/** Writes `text` through the pager when stdout is a terminal (src/commands/pager.ts). */
async function paged(text: string): Promise<void> {
  const { pageText } = await import('../commands/pager.js');
  await pageText(text);
}

/** Replaces commander's implicit help command by keydeck's, and the program's help by the overview. */
export function registerHelp(program: Command): void {
  program.helpCommand(false);
  // The program's help is the overview (each command's stays commander's).
  program.helpInformation = () => overviewText();
  program
    .command('help')
    .description('show the help of a command, or a page of the manual (keydeck help TOPIC)')
    .argument('[topic-or-command...]', 'a topic of the manual (keydeck help topics lists them), a command (keys create), options or environment')
    .helpOption(false)
    .action(async (words: string[]) => {
      // Without a word: the program's help (as `keydeck --help`).
      if (words.length === 0) program.help();
      const [first, ...rest] = words as [string, ...string[]];
      if (rest.length === 0 && first === 'environment') {
        const { environmentHelp } = await import('../commands/environment.js');
        await paged(environmentHelp());
        return;
      }
      if (rest.length === 0 && first === 'options') {
        process.stdout.write(optionsText(program, outputWidth(80)));
        return;
      }
      if (rest.length === 0 && first === 'topics') {
        process.stdout.write(topicsText());
        return;
      }
      if (rest.length === 0 && MANUAL_TOPICS.some((t) => t.name === first)) {
        const { readManualPage, renderManualPage } = await import('../commands/manual.js');
        const { runLocal } = await import('./shared.js');
        await runLocal(async () => {
          // At the terminal's width (100 into a pipe), through the pager on a terminal.
          await paged(renderManualPage(readManualPage(first), { width: outputWidth(100) }));
        });
        return;
      }
      // A command path: `help keys`, `help keys create`.
      let command: Command = program;
      for (const [i, word] of words.entries()) {
        const sub = command.commands.find((c) => c.name() === word || c.aliases().includes(word));
        if (sub === undefined) {
          failUnknownCommand(command, word, i === 0 ? { extra: [...MANUAL_TOPICS.map((t) => t.name), ...HELP_WORDS], what: 'no command or help topic' } : {});
        }
        command = sub;
      }
      command.help();
    });
}
