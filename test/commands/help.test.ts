/**
 * `keydeck help` as the built CLI (issue 27): the topics beside commander's help, a page of the
 * manual as plain text, a command's help as commander gives it, `help environment` as before, and a
 * word that is neither said with exit 2. Rendering itself: test/docs/render.test.ts.
 */
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { MANUAL_TOPICS } from '../../src/commands/manualTopics.js';
import { cliPath } from '../credentials/harness.js';

function keydeck(...args: string[]): { code: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [cliPath(), ...args], { encoding: 'utf8', timeout: 20_000, env: { PATH: process.env.PATH, NO_COLOR: '1', NODE_COMPILE_CACHE: process.env.NODE_COMPILE_CACHE } });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('keydeck help', () => {
  it('without a word: the commands and every topic of the manual, as --help', () => {
    const help = keydeck('help');
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('Usage: keydeck [options] [command]');
    expect(help.stdout).toContain('keys');
    for (const t of MANUAL_TOPICS) expect(help.stdout).toMatch(new RegExp(`^  ${t.name} +${t.summary.slice(0, 20)}`, 'm'));
    expect(keydeck('--help').stdout).toBe(help.stdout);
  });

  it('a topic: that page of the manual, plain (no Markdown links, no backticks around code)', () => {
    const page = keydeck('help', 'commands');
    expect(page.code).toBe(0);
    expect(page.stderr).toBe('');
    expect(page.stdout).toMatch(/^Commands\n=+\n/);
    expect(page.stdout).toContain('| keydeck keys create --name NAME');
    expect(page.stdout).toContain('(keydeck help delivery)');
    expect(page.stdout).not.toMatch(/\]\([^)\s]*\)|`keydeck/);
    const tui = keydeck('help', 'tui');
    expect(tui.stdout).toMatch(/^The TUI\n=+\n/);
  });

  it('a command: its help, as commander gives it; environment: the variables, as before', () => {
    const create = keydeck('help', 'keys', 'create');
    expect(create.code).toBe(0);
    expect(create.stdout).toMatch(/^Usage: keydeck keys create \[options\]/);
    expect(keydeck('help', 'keys').stdout).toMatch(/^Usage: keydeck keys \[options\] \[command\]/);
    const env = keydeck('help', 'environment');
    expect(env.code).toBe(0);
    expect(env.stdout).toMatch(/^Environment variables keydeck reads:\n/);
  });

  it('a word that is neither: one sentence with a suggestion, exit 2', () => {
    const typo = keydeck('help', 'comands');
    expect(typo.code).toBe(2);
    expect(typo.stderr).toBe("keydeck: no command or help topic 'comands'. Did you mean 'commands'?\n");
    const sub = keydeck('help', 'keys', 'lst');
    expect(sub.code).toBe(2);
    expect(sub.stderr).toBe("keydeck: unknown command 'keys lst'. Did you mean 'keys list'?\n");
  });

  it('completes topics and commands after help in the shells', () => {
    const complete = (...words: string[]) => keydeck('__complete', '--', ...words).stdout.split('\n').filter(Boolean);
    const top = complete('help', '');
    expect(top).toEqual(expect.arrayContaining(['keys', 'billing', ...MANUAL_TOPICS.map((t) => t.name)]));
    expect(top).not.toContain('help');
    expect(complete('help', 'keys', '')).toEqual(expect.arrayContaining(['create', 'list', 'rotate']));
    expect(complete('').filter((w) => w === 'help')).toEqual(['help']);
  });
});
