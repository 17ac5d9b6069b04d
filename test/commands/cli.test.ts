/**
 * The command line as a whole, run as the built CLI: `--help` for every command and subcommand
 * (found by walking the help itself, so a new command is covered without editing this file),
 * `--version`, suggestions for mistyped commands, and the refusals that keep scripts from
 * hanging: destructive commands without `--yes`, and the TUI without a terminal.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from '../credentials/harness.js';
import { scripted, UNREACHABLE, type Scripted } from './scripted.js';

let cli: Scripted;
beforeAll(() => {
  cli = scripted(UNREACHABLE);
});
afterAll(() => cli.home.remove());

const run = (args: string[]) => cli.run(undefined, args);

/** The commands the program's one-screen help lists in its groups, one or two a line (`help` excluded). */
function overviewCommandsOf(help: string): string[] {
  const names: string[] = [];
  for (const line of help.split('\n')) {
    for (const match of line.matchAll(/(?:^ {2}| {2,})([a-z][\w-]*) {2,}\S/g)) {
      if (match[1] !== 'help' && match[1] !== 'keydeck') names.push(match[1]!);
    }
  }
  return names;
}

/** The subcommand names listed under "Commands:" in a help text (`help` excluded). */
function subcommandsOf(help: string): string[] {
  const section = help.split(/^Commands:$/m)[1];
  if (section === undefined) return [];
  const names: string[] = [];
  for (const line of section.split('\n').slice(1)) {
    if (line.trim() === '' || !line.startsWith('  ')) break;
    const match = line.match(/^ {2}([a-z][\w-]*)/);
    if (match && match[1] !== 'help') names.push(match[1]!);
  }
  return names;
}

describe('help', () => {
  it('every command and subcommand has --help: exit 0, usage and description on stdout, nothing on stderr', { timeout: 60_000 }, async () => {
    const seen = new Map<string, string>();
    let level: string[][] = [[]];
    while (level.length > 0) {
      const results = await Promise.all(level.map((path) => run([...path, '--help'])));
      const next: string[][] = [];
      results.forEach((r, i) => {
        const path = level[i]!;
        const name = ['keydeck', ...path].join(' ');
        expect(r.code, `${name} --help: ${r.stderr}`).toBe(0);
        expect(r.stderr, name).toBe('');
        // The program's own help is its one-screen overview (src/cli/overview.ts); a command's, commander's.
        if (path.length === 0) expect(r.stdout).toMatch(/^keydeck manages /);
        else expect(r.stdout, name).toMatch(new RegExp(`^Usage: ${name.replace(/[-]/g, '\\-')}( |$)`, 'm'));
        seen.set(path.join(' '), r.stdout);
        for (const sub of (path.length === 0 ? overviewCommandsOf : subcommandsOf)(r.stdout)) next.push([...path, sub]);
      });
      level = next;
    }
    const paths = [...seen.keys()];
    for (const expected of [
      'keys list',
      'keys create',
      'keys rename',
      'keys enable',
      'keys disable',
      'keys delete',
      'mgmt-keys list',
      'mgmt-keys create',
      'mgmt-keys delete',
      'billing credits',
      'billing status',
      'billing topup',
      'billing verify',
      'billing watch',
      'auth login',
      'sandbox',
    ]) {
      expect(paths).toContain(expected);
    }
    // The options a script relies on are documented where they apply.
    for (const path of ['keys list', 'keys create', 'mgmt-keys list', 'mgmt-keys create', 'billing credits', 'billing status', 'billing topup', 'billing verify']) {
      expect(seen.get(path), path).toContain('--json');
    }
    for (const path of ['keys delete', 'keys disable', 'mgmt-keys delete']) expect(seen.get(path), path).toMatch(/-y, --yes\s+do\s+not\s+ask\s+\(required\s+when\s+stdin\s+is\s+not\s+a\s+terminal\)/);
    expect(seen.get('billing topup')).toMatch(/--method <name>[\s\S]*usdc,\s+card_checkout\s+or\s+card_direct[\s\S]*stripe_direct/);
    expect(seen.get('billing watch')).toMatch(/--interval <seconds>[\s\S]*--alert-below <usd>/);
    // A command's help is about that command: its own options, then the few of the program's it
    // reads ("Inherited options"), never the full-screen app's or the monitor's.
    const inheritedOf = (help: string): string[] => [...(/^Inherited options:\n((?: {2}.*\n)+)/m.exec(help)?.[1]?.matchAll(/^ {2}(--[a-z-]+)/gm) ?? [])].map((m) => m[1]!);
    expect(seen.get('keys')).toMatch(/Inherited options:\n[\s\S]*--base-url <url>[\s\S]*--profile <name>/);
    expect(inheritedOf(seen.get('keys list')!)).toEqual(['--sandbox', '--base-url', '--profile', '--read-only', '--allow-insecure-http', '--quiet']);
    expect(seen.get('keys list')!.trimEnd().split('\n').length).toBeLessThan(40);
    expect(inheritedOf(seen.get('billing verify')!)).toEqual(expect.arrayContaining(['--no-chain', '--chain-rpc', '--profile']));
    expect(inheritedOf(seen.get('auth login')!)).toContain('--insecure-storage');
    expect(inheritedOf(seen.get('monitor')!)).toEqual(expect.arrayContaining(['--on-low', '--on-anomaly', '--desktop-notifications']));
    expect(inheritedOf(seen.get('sandbox')!)).toEqual([]);
    for (const [path, help] of seen) {
      if (path === '') continue;
      if (!/^(monitor)$/.test(path)) expect(help, path).not.toMatch(/--on-low|--on-anomaly|--desktop-notifications/);
      expect(
        inheritedOf(help).filter((flag) => ['--dialect', '--chain', '--interval', '--alert-below', '--version'].includes(flag)),
        path,
      ).toEqual([]);
      expect(help, path).toMatch(/Global options: keydeck help options\nEnvironment variables: keydeck help environment\n$/);
    }
  });

  it('the help command works at the top and inside a group', async () => {
    const [top, inner] = await Promise.all([run(['help', 'keys']), run(['billing', 'help', 'topup'])]);
    expect(top.code, top.stderr).toBe(0);
    expect(top.stdout).toMatch(/^Usage: keydeck keys \[options\] \[command\]/);
    expect(inner.code, inner.stderr).toBe(0);
    expect(inner.stdout).toMatch(/^Usage: keydeck billing topup \[options\]/);
  });

  it('--version prints the package version', async () => {
    const { version } = JSON.parse(readFileSync(`${ROOT}package.json`, 'utf8')) as { version: string };
    const r = await run(['--version']);
    expect(r).toMatchObject({ code: 0, stdout: `${version}\n`, stderr: '' });
  });
});

describe('mistyped commands', () => {
  it('suggest the closest command and exit 2, at the top level and inside a group', async () => {
    const cases: [string[], string][] = [
      [['sandbx'], "keydeck: unknown command 'sandbx'.\nDid you mean 'sandbox'? See 'keydeck --help'.\n"],
      [['bilings', 'credits'], "keydeck: unknown command 'bilings'.\nDid you mean 'billing'? See 'keydeck --help'.\n"],
      [['mgmt'], "keydeck: unknown command 'mgmt'.\nDid you mean 'mgmt-keys'? See 'keydeck --help'.\n"],
      [['kyes', 'list'], "keydeck: unknown command 'kyes'.\nDid you mean 'keys'? See 'keydeck --help'.\n"],
      [['keys', 'lst'], "keydeck: unknown command 'keys lst'.\nDid you mean 'keys list'? See 'keydeck keys --help'.\n"],
      [['billing', 'top-up'], "keydeck: unknown command 'billing top-up'.\nDid you mean 'billing topup'? See 'keydeck billing --help'.\n"],
      [['mgmt-keys', 'remove'], "keydeck: unknown command 'mgmt-keys remove'.\nSee 'keydeck mgmt-keys --help'.\n"],
      [['frobnicate'], "keydeck: unknown command 'frobnicate'.\nSee 'keydeck --help'.\n"],
      [['sk_AbCdEfGh1234567890abcdef'], "keydeck: unknown command 'sk_AbCdEfGh…'.\nSee 'keydeck --help'.\n"],
    ];
    const results = await Promise.all(cases.map(([args]) => run(args)));
    results.forEach((r, i) => {
      expect(r.code, cases[i]![0].join(' ')).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr).toBe(cases[i]![1]);
    });
  });

  it('commander’s errors read as keydeck’s: what is wrong, then the suggestion line naming the command’s help; exit 2', async () => {
    const cases: [string[], string][] = [
      [['keys', 'list', '--jsno'], "keydeck: unknown option '--jsno'.\nDid you mean '--json'? See 'keydeck keys list --help'.\n"],
      [['keys', 'list', '--profle', 'x'], "keydeck: unknown option '--profle'.\nDid you mean '--profile'? See 'keydeck keys list --help'.\n"],
      [['--intervall', '5'], "keydeck: unknown option '--intervall'.\nDid you mean '--interval'? See 'keydeck --help'.\n"],
      [['keys', 'rename', 'k1'], "keydeck: required option '--name <name>' not specified.\nSee 'keydeck keys rename --help'.\n"],
      [['keys', 'enable'], "keydeck: missing required argument 'id|name'.\nSee 'keydeck keys enable --help'.\n"],
      [
        ['billing', 'history', '--window', '24'],
        "keydeck: option '--window <window>' argument '24' is invalid. Allowed choices are 1h, 6h, 24h, 7d, 30d.\nDid you mean '24h'? See 'keydeck billing history --help'.\n",
      ],
      [['completion', 'zhs'], "keydeck: command-argument value 'zhs' is invalid for argument 'shell'. Allowed choices are bash, zsh, fish.\nDid you mean 'zsh'? See 'keydeck completion --help'.\n"],
      [['keys', 'rotate', 'k1', '--grace'], "keydeck: option '--grace <duration>' argument missing.\nSee 'keydeck keys rotate --help'.\n"],
      // What the user typed is echoed with a key value cut to its prefix.
      [['keys', 'list', `--sk_${'A'.repeat(30)}`], `keydeck: unknown option '--sk_AAAAAAAA…'.\nSee 'keydeck keys list --help'.\n`],
    ];
    const results = await Promise.all(cases.map(([args]) => run(args)));
    results.forEach((r, i) => {
      expect(r.code, cases[i]![0].join(' ')).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr).toBe(cases[i]![1]);
    });
  });
});

describe('no terminal', () => {
  it('destructive commands refuse without --yes before contacting the service (exit 2, naming --yes)', async () => {
    const results = await Promise.all([cli.run('sess_x', ['keys', 'delete', 'k1']), cli.run('sess_x', ['keys', 'disable', 'k1', '--json']), cli.run('sess_x', ['mgmt-keys', 'delete', 'm1'])]);
    const commands = ['keydeck keys delete k1', 'keydeck keys disable k1', 'keydeck mgmt-keys delete m1'];
    results.forEach((r, i) => {
      const sentence = `confirmation_required: stdin is not a terminal, so no confirmation can be asked and nothing was changed; to proceed run \`${commands[i]} --yes\`.`;
      expect(r.code).toBe(2);
      // Under --json the failure is the one JSON document on stdout (docs/commands.md).
      if (i === 1) {
        expect(r.stderr).toBe('');
        expect(JSON.parse(r.stdout)).toEqual({ error: { code: 'confirmation_required', message: sentence } });
        return;
      }
      expect(r.stdout).toBe('');
      expect(r.stderr).toBe(`keydeck: ${sentence}\n`);
    });
    // With --yes the same command goes ahead: here it reaches the (unreachable) service, whose
    // list it reads first to find the key (by id or name).
    const yes = await cli.run('sess_x', ['keys', 'delete', 'k1', '--yes']);
    expect(yes.code).toBe(4);
    expect(yes.stderr).toMatch(/^keydeck: network_error: could not reach the service at .* to list the keys/);
  });

  it('keydeck without a subcommand says the TUI needs a terminal and points at the commands (exit 2)', async () => {
    const r = await run([]);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/needs a terminal.*keydeck keys\|mgmt-keys\|billing\|auth --help/);
  });

  it('the TUI refuses a bad --interval or --alert-below with the reason before anything is drawn (exit 2)', async () => {
    const slow = await run(['--interval', '1']);
    expect(slow.code).toBe(2);
    expect(slow.stderr).toBe('keydeck: --interval must be at least 2 seconds.\n');
    const low = await run(['--alert-below', '5.555']);
    expect(low.code).toBe(2);
    expect(low.stderr).toMatch(/^keydeck: --alert-below must be an amount in USD/);
    // Good values pass the check and reach the terminal refusal.
    const good = await run(['--interval', '5', '--alert-below', '12.50']);
    expect(good.stderr).toMatch(/needs a terminal/);
  });
});
