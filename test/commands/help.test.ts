/**
 * `keydeck help` as the built CLI: the topics beside commander's help, a page of the
 * manual as plain text, a command's help as commander gives it, `help environment` as before, and a
 * word that is neither said with exit 2. Rendering itself: test/docs/render.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import stringWidth from 'string-width';
import { startApp } from '../e2e/pty.js';
import { createProgram } from '../../src/cli/program.js';
import { overviewCommands } from '../../src/cli/overview.js';
import { MANUAL_TOPICS } from '../../src/commands/manualTopics.js';
import { runCli, type CliResult } from '../credentials/harness.js';

/** `keydeck …args` with nothing of this machine's set-up in its environment but PATH. */
function keydeck(...args: string[]): Promise<CliResult> {
  return runCli(args, { env: { PATH: process.env.PATH, NO_COLOR: '1', NODE_COMPILE_CACHE: process.env.NODE_COMPILE_CACHE }, timeoutMs: 20_000 });
}

describe('keydeck help', () => {
  it('without a word: one screen, as --help: at most 24 lines of at most 80 columns, every command in a group', async () => {
    const help = await keydeck('help');
    expect(help.code).toBe(0);
    const lines = help.stdout.replace(/\n$/, '').split('\n');
    expect(lines.length).toBeLessThanOrEqual(24);
    for (const line of lines) expect(stringWidth(line), line).toBeLessThanOrEqual(80);
    // Every visible command of the program is in a group, with a few words.
    const program = createProgram('0.0.0');
    const names = program
      .createHelp()
      .visibleCommands(program)
      .map((c) => c.name());
    expect(overviewCommands().sort()).toEqual([...names].sort());
    for (const name of names) expect(help.stdout, name).toMatch(new RegExp(`(^|  )${name} {2,}\\S`, 'm'));
    // The keys line names rotate (and show).
    expect(help.stdout).toMatch(/^ {2}keys {2,}list, show, create, rotate, /m);
    expect(help.stdout).toContain('keydeck help options');
    expect(help.stdout).toContain('keydeck help topics');
    expect((await keydeck('--help')).stdout).toBe(help.stdout);
  });

  it('options: every option of the program; topics: every page of the manual', async () => {
    const options = await keydeck('help', 'options');
    expect(options.code).toBe(0);
    const program = createProgram('0.0.0');
    for (const option of program.options) expect(options.stdout).toContain(option.long!);
    const topics = await keydeck('help', 'topics');
    expect(topics.code).toBe(0);
    for (const t of MANUAL_TOPICS) expect(topics.stdout).toMatch(new RegExp(`^  ${t.name} +${t.summary.slice(0, 20)}`, 'm'));
  });

  it('a topic: that page of the manual, plain, its tables as lists, no line wider than 100 columns into a pipe', async () => {
    const page = await keydeck('help', 'commands');
    expect(page.code).toBe(0);
    expect(page.stderr).toBe('');
    expect(page.stdout).toMatch(/^Commands\n=+\n/);
    // A table too wide for the page: one block a row, the command first.
    expect(page.stdout).toMatch(/^keydeck keys create --name NAME .*\n( {2}.*\n)* {4}a credit key \(the balance must be above 0/m);
    expect(page.stdout).not.toMatch(/^\|/m);
    for (const line of page.stdout.split('\n')) expect(stringWidth(line), line).toBeLessThanOrEqual(100);
    expect(page.stdout).toContain('(keydeck help delivery)');
    expect(page.stdout).not.toMatch(/\]\([^)\s]*\)|`keydeck/);
    const tui = await keydeck('help', 'tui');
    expect(tui.stdout).toMatch(/^The TUI\n=+\n/);
  });

  it('a command: its help, as commander gives it; environment: the variables, as before', async () => {
    const create = await keydeck('help', 'keys', 'create');
    expect(create.code).toBe(0);
    expect(create.stdout).toMatch(/^Usage: keydeck keys create \[options\]/);
    expect((await keydeck('help', 'keys')).stdout).toMatch(/^Usage: keydeck keys \[options\] \[command\]/);
    const env = await keydeck('help', 'environment');
    expect(env.code).toBe(0);
    expect(env.stdout).toMatch(/^Environment variables keydeck reads:\n/);
  });

  it('a command of a group named alone: the command with its group is suggested', async () => {
    const rotate = await keydeck('help', 'rotate');
    expect(rotate.code).toBe(2);
    expect(rotate.stderr).toBe("keydeck: no command or help topic 'rotate'.\nDid you mean 'keys rotate' or 'mgmt-keys rotate'? See 'keydeck --help'.\n");
    const verify = await keydeck('help', 'verfy');
    expect(verify.stderr).toMatch(/Did you mean 'billing verify'\?/);
    // A topic as near as a command wins: the page it means.
    expect((await keydeck('help', 'topup')).stderr).toMatch(/Did you mean 'topups'\?/);
  });

  it('a word that is neither: what is wrong, then the suggestion line, exit 2', async () => {
    const typo = await keydeck('help', 'comands');
    expect(typo.code).toBe(2);
    expect(typo.stderr).toBe("keydeck: no command or help topic 'comands'.\nDid you mean 'commands'? See 'keydeck --help'.\n");
    const sub = await keydeck('help', 'keys', 'lst');
    expect(sub.code).toBe(2);
    expect(sub.stderr).toBe("keydeck: unknown command 'keys lst'.\nDid you mean 'keys list'? See 'keydeck keys --help'.\n");
  });

  it('completes topics and commands after help in the shells', async () => {
    const complete = async (...words: string[]) => (await keydeck('__complete', '--', ...words)).stdout.split('\n').filter(Boolean);
    const top = await complete('help', '');
    expect(top).toEqual(expect.arrayContaining(['keys', 'billing', ...MANUAL_TOPICS.map((t) => t.name)]));
    expect(top).not.toContain('help');
    expect(await complete('help', 'keys', '')).toEqual(expect.arrayContaining(['create', 'list', 'rotate']));
    expect((await complete('')).filter((w) => w === 'help')).toEqual(['help']);
  });
});

describe('keydeck help TOPIC on a terminal', () => {
  it('is laid out at the terminal’s width and goes through $PAGER', { timeout: 30_000 }, async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'keydeck-pager-'));
    try {
      const file = path.join(dir, 'paged.txt');
      const app = startApp({ args: ['help', 'commands'], env: { ...process.env, PAGER: `cat > '${file}'` }, columns: 60, rows: 20 });
      expect((await app.exited).exitCode).toBe(0);
      // The pager had it all: nothing written past it, every line within the terminal's 60 columns.
      const text = readFileSync(file, 'utf8');
      expect(text).toMatch(/^Commands\n=+\n/);
      for (const line of text.split('\n')) expect(stringWidth(line), line).toBeLessThanOrEqual(60);
      expect(app.screenText()).not.toContain('Commands');
      // PAGER=cat (or empty): no pager, the page itself on the terminal.
      const plain = startApp({ args: ['help', 'spend'], env: { ...process.env, PAGER: 'cat' }, columns: 100, rows: 20 });
      expect((await plain.exited).exitCode).toBe(0);
      expect(plain.output()).toContain('usage reads');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
