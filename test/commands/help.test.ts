/**
 * `keydeck help` as the built CLI (issue 27): the topics beside commander's help, a page of the
 * manual as plain text, a command's help as commander gives it, `help environment` as before, and a
 * word that is neither said with exit 2. Rendering itself: test/docs/render.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { MANUAL_TOPICS } from '../../src/commands/manualTopics.js';
import { runCli, type CliResult } from '../credentials/harness.js';

/** `keydeck …args` with nothing of this machine's set-up in its environment but PATH. */
function keydeck(...args: string[]): Promise<CliResult> {
  return runCli(args, { env: { PATH: process.env.PATH, NO_COLOR: '1', NODE_COMPILE_CACHE: process.env.NODE_COMPILE_CACHE }, timeoutMs: 20_000 });
}

describe('keydeck help', () => {
  it('without a word: the commands and every topic of the manual, as --help', async () => {
    const help = await keydeck('help');
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('Usage: keydeck [options] [command]');
    expect(help.stdout).toContain('keys');
    for (const t of MANUAL_TOPICS) expect(help.stdout).toMatch(new RegExp(`^  ${t.name} +${t.summary.slice(0, 20)}`, 'm'));
    expect((await keydeck('--help')).stdout).toBe(help.stdout);
  });

  it('a topic: that page of the manual, plain (no Markdown links, no backticks around code)', async () => {
    const page = await keydeck('help', 'commands');
    expect(page.code).toBe(0);
    expect(page.stderr).toBe('');
    expect(page.stdout).toMatch(/^Commands\n=+\n/);
    expect(page.stdout).toContain('| keydeck keys create --name NAME');
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
