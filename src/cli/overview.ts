/**
 * `keydeck --help` (and `keydeck help`): one screen, as gh's, at most 24 lines of at most 80
 * columns: what keydeck is, how it starts, its commands in groups with a few words each, the
 * options most used, and where the rest is (`keydeck help options`, `keydeck help topics`,
 * `keydeck help environment`, `keydeck help COMMAND`). Each command's own help stays commander's.
 * test/commands/help.test.ts checks that every visible command of the program is in a group.
 */
import { Help, type Command } from 'commander';
import { MANUAL_TOPICS, topicList } from '../commands/manualTopics.js';

/** A command in the overview: its name and a few words (its full description: `keydeck help NAME`). */
type Entry = readonly [name: string, summary: string];

/** The groups of the overview, each a list of lines of one or two commands. */
export const OVERVIEW_GROUPS: ReadonlyArray<{ readonly title: string; readonly lines: ReadonlyArray<readonly Entry[]> }> = [
  {
    title: 'KEYS AND MONEY',
    lines: [
      [['keys', 'list, show, create, rotate, rename, enable/disable, delete, usage']],
      [
        ['mgmt-keys', 'list, create, rotate, delete mk_'],
        ['autotopup', 'card top-ups, capped'],
      ],
      [['billing', 'credits, status, topup, verify, history, watch, cancel']],
      [
        ['key-info', 'a consumption key’s own budget'],
        ['pools', 'pool seats, prices'],
      ],
    ],
  },
  {
    title: 'WATCH AND GUARD',
    lines: [
      [
        ['monitor', 'the live balance in a few lines'],
        ['exporter', 'Prometheus metrics'],
      ],
      [
        ['plan', 'the account as a file: a plan'],
        ['apply', 'make it so, for cron'],
      ],
    ],
  },
  {
    title: 'SET UP',
    lines: [
      [
        ['auth', 'sign in, status, sign out'],
        ['doctor', 'check it all'],
      ],
      [
        ['profile', 'see, add, switch, remove'],
        ['sandbox', 'the local sandbox'],
      ],
      [
        ['completion', 'shell completion scripts'],
        ['help', 'this, or a topic'],
      ],
    ],
  },
];

/** The names every group lists, in order. */
export function overviewCommands(): string[] {
  return OVERVIEW_GROUPS.flatMap((g) => g.lines.flatMap((line) => line.map(([name]) => name)));
}

/** One line of a group: `  name        summary` (a second command from column 49). */
function entryLine(entries: readonly Entry[]): string {
  const [first, second] = entries;
  const head = `  ${first![0].padEnd(11)}  ${first![1]}`;
  return second === undefined ? head : `${head.padEnd(47)}  ${second[0].padEnd(9)}  ${second[1]}`;
}

/** The overview's text (see the module comment), ending with a newline. */
export function overviewText(): string {
  return [
    'keydeck manages an inference service’s account from a terminal: its keys,',
    'management keys, credit balance and top-ups.',
    '',
    'USAGE',
    '  keydeck [--sandbox]      the full-screen app (npm start: the demo account)',
    '  keydeck COMMAND [flags]  a command, for scripts and cron',
    ...OVERVIEW_GROUPS.flatMap((group, i) => [...(i === 0 ? [''] : []), group.title, ...group.lines.map(entryLine)]),
    '',
    'FLAGS  --sandbox, --profile NAME, --base-url URL, …: keydeck help options',
    'MORE   keydeck help COMMAND, or keydeck COMMAND --help',
    `       the manual, a page a topic: keydeck help TOPIC (${MANUAL_TOPICS[0]!.name}, ${MANUAL_TOPICS[1]!.name}, …)`,
    '       its topics: keydeck help topics; variables: keydeck help environment',
  ]
    .join('\n')
    .concat('\n');
}

/**
 * `keydeck help options`: every option of the program, as commander lists them (each with its
 * description), for the terminal's width (80 into a pipe).
 */
export function optionsText(program: Command, width: number): string {
  const help = new Help();
  help.helpWidth = width;
  const options = help.visibleOptions(program);
  const termWidth = Math.max(...options.map((o) => help.optionTerm(o).length));
  const lines = options.map((o) => help.formatItem(help.optionTerm(o), termWidth, help.optionDescription(o), help));
  return `Options of keydeck, before or after any command (each command's help lists those it reads):\n${lines.join('\n')}\n`;
}

/** `keydeck help topics`: the manual's pages, one a line (`  name  summary`). */
export function topicsText(): string {
  return `The manual, a page a topic: keydeck help TOPIC\n${topicList()}\n`;
}
