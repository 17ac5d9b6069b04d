/**
 * The conventions as the built CLI: `profile list|show|use|add|remove`, shell
 * completion run by a real bash (profile names from the config, key ids from the service),
 * `keydeck help environment` saying what docs/environment.md says, and TERM=dumb for the TUI.
 */
import { execFile, spawnSync } from 'node:child_process';
import { promisify } from 'node:util';
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENVIRONMENT_VARIABLES } from '../../src/commands/environment.js';
import { cliPath, ROOT } from '../credentials/harness.js';
import { startTestSandbox, type TestSandbox } from '../tui/harness.js';
import { lines, scripted, type Scripted } from './scripted.js';

const execFileAsync = promisify(execFile);
let sandbox: TestSandbox;
let cli: Scripted;
beforeAll(async () => {
  sandbox = await startTestSandbox();
  cli = scripted(sandbox.url);
});
afterAll(async () => {
  cli?.home.remove();
  await sandbox?.close();
});

/** Runs without KEYDECK_BASE_URL (profiles decide) and without a token. */
const run = (args: string[], env: Record<string, string | undefined> = {}) => cli.run(undefined, args, { KEYDECK_BASE_URL: undefined, ...env });

describe('keydeck profile', () => {
  it('adds, lists, switches, shows and removes profiles; mistakes are refused and change nothing', { timeout: 60_000 }, async () => {
    expect((await run(['profile', 'list'])).stdout).toMatch(/^no profiles yet/);
    const added = await run(['profile', 'add', 'work', '--base-url', 'https://api.example.com/', '--alert-below', '5', '--use']);
    expect(added.code).toBe(0);
    expect(added.stdout).toContain('added profile "work" (https://api.example.com), now the current one');
    expect((await run(['profile', 'add', 'dev', '--base-url', sandbox.url, '--interval', '5'])).code).toBe(0);

    const list = await run(['profile', 'list']);
    expect(lines(list.stdout)).toEqual([
      '   name  baseUrl                  interval  alertBelow  marks',
      `   dev   ${sandbox.url.padEnd(23)}  5 s       —           —`,
      '*  work  https://api.example.com  15 s      5.00 USD    —',
    ]);

    // Refusals: an existing name, an unknown profile, a bad URL, no URL.
    const again = await run(['profile', 'add', 'dev', '--base-url', sandbox.url]);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/profile "dev" already exists/);
    const unknown = await run(['profile', 'use', 'prod']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/there is no profile "prod" \(profiles: dev, work\)/);
    expect((await run(['profile', 'add', 'bad', '--base-url', 'ftp://x'])).code).toBe(2);
    expect((await run(['profile', 'add', 'nourl'])).stderr).toMatch(/needs --base-url URL/);

    expect((await run(['profile', 'use', 'dev'])).stdout).toBe('now using profile "dev"\n');
    const json = JSON.parse((await run(['profile', 'list', '--json'])).stdout) as { current: string; profiles: { name: string; current: boolean }[] };
    expect(json.current).toBe('dev');
    expect(json.profiles.map((p) => [p.name, p.current])).toEqual([
      ['dev', true],
      ['work', false],
    ]);
    // The current profile is what commands use: a key stored for it is shown by prefix only.
    const shown = JSON.parse((await run(['profile', 'show', '--json'])).stdout) as { name: string; baseUrl: string; key: unknown };
    expect(shown).toMatchObject({ name: 'dev', baseUrl: sandbox.url, key: null });
    // KEYDECK_PROFILE overrides the file's choice, and list says so.
    expect((await run(['profile', 'list'], { KEYDECK_PROFILE: 'work' })).stderr).toMatch(/KEYDECK_PROFILE=work is set/);

    const removed = await run(['profile', 'remove', 'dev']);
    expect(removed.stdout).toContain('removed profile "dev"; the current profile is "default" again');
    expect(JSON.parse((await run(['profile', 'list', '--json'])).stdout)).toMatchObject({ current: 'default', profiles: [{ name: 'work' }] });
  });
});

describe('shell completion', () => {
  it('bash completes commands, options, option values, profile names and key ids through keydeck __complete', { timeout: 60_000 }, async () => {
    const token = await sandbox.fundedUser(25);
    const key = await sandbox.client(token).keys.createCredit({ name: 'ci' });
    await run(['profile', 'add', 'alpha', '--base-url', sandbox.url]);
    await run(['profile', 'add', 'beta', '--base-url', sandbox.url]);
    // A `keydeck` on PATH, as an installed one would be.
    const bin = path.join(cli.home.home, 'bin');
    mkdirSync(bin, { recursive: true });
    writeFileSync(path.join(bin, 'keydeck'), `#!/bin/sh\nexec "${process.execPath}" "${cliPath()}" "$@"\n`);
    chmodSync(path.join(bin, 'keydeck'), 0o755);
    const onPath = { PATH: `${bin}:${process.env.PATH}` };
    const script = (await run(['completion', 'bash'], onPath)).stdout;
    // Asynchronously: the sandbox answering the key ids runs in this process.
    const complete = async (words: string[]): Promise<string[]> => {
      const r = await execFileAsync(
        'bash',
        ['--norc', '-c', `${script}\nCOMP_WORDS=(${words.map((w) => `'${w}'`).join(' ')}); COMP_CWORD=${words.length - 1}; _keydeck_complete; printf '%s\\n' "\${COMPREPLY[@]}"`],
        {
          env: cli.home.env({ PATH: `${bin}:${process.env.PATH}`, KEYDECK_BASE_URL: undefined, KEYDECK_TOKEN: token }),
          encoding: 'utf8',
        },
      );
      return lines(r.stdout).filter(Boolean).sort();
    };
    expect(await complete(['keydeck', 'pro'])).toEqual(['profile']);
    expect(await complete(['keydeck', 'profile', ''])).toEqual(['add', 'list', 'remove', 'set', 'show', 'use']);
    expect(await complete(['keydeck', 'profile', 'use', ''])).toEqual(expect.arrayContaining(['alpha', 'beta']));
    expect(await complete(['keydeck', '--profile', 'b'])).toEqual(['beta']);
    expect(await complete(['keydeck', 'billing', 'history', '--window', ''])).toEqual(['1h', '24h', '30d', '6h', '7d']);
    expect(await complete(['keydeck', 'keys', 'list', '--j'])).toEqual(['--json']);
    expect(await complete(['keydeck', '--profile', 'alpha', 'keys', 'delete', ''])).toEqual([key.id]);
    // zsh and fish scripts call the same entry point.
    expect((await run(['completion', 'zsh'], onPath)).stdout).toContain('keydeck __complete -- "${(@)words[2,CURRENT]}"');
    const fish = (await run(['completion', 'fish'], onPath)).stdout;
    expect(fish).toContain('    keydeck __complete -- (commandline -opc)[2..-1] (commandline -ct) 2>/dev/null');
    expect(fish).toContain("complete -c keydeck -f -a '(_keydeck_complete)'");
    expect((await run(['completion', 'tcsh'])).code).toBe(2);
  });

  it('in a clone (no keydeck on PATH) the script asks the program that printed it, by its path, and says how to put keydeck on PATH', { timeout: 60_000 }, async () => {
    const clone = await run(['completion', 'bash'], { PATH: '/usr/bin:/bin' });
    expect(clone.code).toBe(0);
    expect(clone.stdout).not.toMatch(/\$\(keydeck __complete/);
    expect(clone.stdout).toContain(`'${process.execPath}' '${cliPath()}' __complete --`);
    expect(clone.stderr).toMatch(/^warning: keydeck is not on PATH here, so the script asks this program by its path .*npm link in the clone.*alias keydeck=/);
    // Sourced in a shell where keydeck is not a command at all, it still completes `keydeck …`.
    const r = await execFileAsync('bash', ['--norc', '-c', `${clone.stdout}\nCOMP_WORDS=(keydeck pro); COMP_CWORD=1; _keydeck_complete; printf '%s\\n' "\${COMPREPLY[@]}"`], {
      env: cli.home.env({ PATH: '/usr/bin:/bin' }),
      encoding: 'utf8',
    });
    expect(lines(r.stdout).filter(Boolean)).toEqual(['profile']);
  });
});

describe('help environment and TERM=dumb', () => {
  it('lists every environment variable, the same as docs/environment.md, and --help points at it', { timeout: 30_000 }, async () => {
    const help = await run(['help', 'environment']);
    expect(help.code).toBe(0);
    const table = readFileSync(path.join(ROOT, 'docs', 'environment.md'), 'utf8');
    const inReadme = [...table.matchAll(/^\| `([^`]+)` \|/gm)].map((m) => m[1]);
    for (const v of ENVIRONMENT_VARIABLES) {
      expect(help.stdout).toContain(v.name);
      expect(inReadme).toContain(v.name);
    }
    expect(inReadme.length).toBe(ENVIRONMENT_VARIABLES.length);
    // Every KEYDECK_ variable the sources read is listed (not those keydeck sets for --on-low: src/terminal/notify.ts,
    // nor KEYDECK_API_KEY, the variable `--to-file` writes into a dotenv file: keydeck never reads it).
    const sources = spawnSync('grep', ['-rhoE', '--exclude=notify.ts', 'KEYDECK_[A-Z_]+', path.join(ROOT, 'src')], { encoding: 'utf8' }).stdout;
    const written = new Set(['KEYDECK_API_KEY']);
    // A listed family such as KEYDECK_TOKEN_<PROFILE> covers its prefix and every name built on it.
    const families = ENVIRONMENT_VARIABLES.map((v) => /^(KEYDECK_[A-Z_]*)<[A-Z]+>$/.exec(v.name)?.[1]).filter((p): p is string => p !== undefined);
    const listed = (name: string) => ENVIRONMENT_VARIABLES.some((v) => v.name === name) || families.some((p) => name.startsWith(p));
    for (const name of new Set(sources.split('\n').filter((n) => n && !written.has(n)))) expect(listed(name), name).toBe(true);
    expect((await run(['--help'])).stdout).toContain('variables: keydeck help environment');
  });

  it('the full-screen app under TERM=dumb says it needs a capable terminal and points at the commands', async () => {
    // Through `script`, stdin and stdout are a terminal; TERM=dumb is the only reason to refuse.
    const r = spawnSync('script', ['-qec', `"${process.execPath}" "${cliPath()}"`, '/dev/null'], {
      env: cli.home.env({ TERM: 'dumb', KEYDECK_BASE_URL: sandbox.url }),
      encoding: 'utf8',
      timeout: 15_000,
    });
    expect(r.stdout).toContain('needs a capable terminal (TERM=dumb');
    expect(r.stdout).toContain('keydeck billing watch');
    expect(r.status).toBe(2);
  });
});

describe('keydeck billing history --chart', () => {
  it('draws the balance from the history on disk, or prints its series with --json; the top-up list stays', { timeout: 60_000 }, async () => {
    const dataDir = path.join(cli.home.home, 'data');
    const { BalanceHistoryStore, originOf } = await import('../../src/billing/historyStore.js');
    const store = BalanceHistoryStore.open({ path: path.join(dataDir, 'history.db') });
    const now = Date.now();
    const readings = [];
    for (let t = now - 20 * 3_600_000; t < now; t += 60_000) {
      const totalTopUp = t > now - 5 * 3_600_000 ? 60 : 40;
      readings.push({ t, remaining: Math.round((totalTopUp - (t - (now - 20 * 3_600_000)) / 3_600_000) * 100) / 100, totalTopUp });
    }
    store.series('default', originOf(sandbox.url)).appendMany(readings);
    store.close();
    const env = { KEYDECK_DATA_DIR: dataDir, KEYDECK_BASE_URL: sandbox.url };

    const chart = await cli.run(undefined, ['billing', 'history', '--chart'], env);
    expect(chart.code).toBe(0);
    const out = lines(chart.stdout);
    expect(out[0]).toBe(`balance of profile default at ${originOf(sandbox.url)}, last 24h · ▲ top-up +$20.00`);
    expect(chart.stdout).toMatch(/\$\d+\.\d\d ┤/);
    expect(chart.stdout).toMatch(/-24h .* now\n/);
    for (const line of out.slice(1)) expect(line.length).toBeLessThanOrEqual(80);
    if (process.env.SHOW_CHART) console.log(chart.stdout);

    const json = JSON.parse((await cli.run(undefined, ['billing', 'history', '--chart', '--window', '6h', '--json'], env)).stdout) as {
      window: string;
      readings: { t: string; remaining: number; totalTopUp: number; spent: number }[];
      topUps: { amount: number }[];
    };
    expect(json.window).toBe('6h');
    expect(json.readings.length).toBeGreaterThan(300);
    expect(json.readings.at(-1)!.spent).toBeCloseTo(json.readings.at(-1)!.totalTopUp - json.readings.at(-1)!.remaining, 6);
    expect(json.topUps).toEqual([{ t: expect.any(String), amount: 20 }]);

    // Without --chart: the top-up list of the local record (the mode without --chart) is still there.
    const list = await cli.run(undefined, ['billing', 'history'], env);
    expect(list.code).toBe(0);
    expect(list.stdout).toMatch(/No top-ups on record/);
    expect((await cli.run(undefined, ['billing', 'history', '--window', '7d'], env)).code).toBe(2);
    expect((await cli.run(undefined, ['billing', 'history', '--chart', '--window', '2d'], env)).code).toBe(2);
  });
});
