/**
 * The README's commands as a new user runs them: a fresh HOME (nothing in the
 * environment but what a shell has), `npm start` first (the TUI creates the demo account; the
 * user quits at the setup), then every `keydeck …` line of the README's command blocks, in order,
 * with `--sandbox` as the README says, in a project directory of its own. Every one must work on
 * the demo account: exit 0 and the output it promises; `monitor` in a pseudo-terminal and
 * `exporter` as a process until it serves its metrics; the one-shot commands in the test's thread
 * (test/credentials/harness.ts `runCli`: the same exit code and output as a process,
 * test/commands/runner.test.ts). The blocks are read from README.md, so a command added there is
 * run here.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse as parseShell } from 'shell-quote';
import { cliPath, ROOT, runCli, type CliResult } from '../credentials/harness.js';
import { e2eRig } from './session.js';

const rig = e2eRig();

/** The `keydeck` (or `npx keydeck`) lines of README.md's ```sh blocks, comments dropped, as argv after the program. */
function readmeCommands(): string[][] {
  const text = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
  const out: string[][] = [];
  for (const block of text.matchAll(/```sh\n([\s\S]*?)```/g)) {
    for (const raw of block[1]!.split('\n')) {
      const line = raw.replace(/\s+#.*$/, '').trim();
      const words = parseShell(line).filter((w): w is string => typeof w === 'string');
      const at = words[0] === 'npx' ? 1 : 0;
      if (words[at] !== 'keydeck') continue;
      out.push(words.slice(at + 1));
    }
  }
  return out;
}

/** A shell of a new user: HOME and the XDG dirs in `home`, no KEYDECK_* variables, no D-Bus, not CI. */
function userEnv(home: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const name of ['PATH', 'LANG', 'TMPDIR']) if (process.env[name] !== undefined) env[name] = process.env[name];
  return { ...env, HOME: home, XDG_CONFIG_HOME: path.join(home, '.config'), XDG_DATA_HOME: path.join(home, '.local', 'share'), TERM: 'xterm-256color', NO_COLOR: '1' };
}

/** Runs the one-shot `keydeck …args` in `cwd` (in the test's thread unless KEYDECK_TEST_CLI=process); stdin empty. */
function run(args: readonly string[], env: NodeJS.ProcessEnv, cwd: string): Promise<CliResult> {
  return runCli(args, { env, cwd, timeoutMs: 30_000 });
}

describe("the README's commands", () => {
  it('work as written with --sandbox, from a fresh HOME, right after npm start made the demo account', { timeout: 180_000 }, async () => {
    const home = rig.tempDir('keydeck-readme-home-');
    const project = path.join(home, 'project');
    mkdirSync(project);
    const env = userEnv(home);

    // npm start: the TUI on the sandbox (the demo account is made and signs in by itself), quit.
    const tui = rig.start({ args: ['--sandbox'], env, columns: 100, rows: 30 });
    await tui.waitFor('batch-jobs', 20_000);
    tui.write('q');
    expect((await tui.exited).exitCode).not.toBeNull();
    expect(statSync(path.join(home, '.local', 'share', 'keydeck', 'sandbox.db')).isFile()).toBe(true);

    const commands = readmeCommands();
    expect(commands.length).toBeGreaterThanOrEqual(10);
    for (const words of commands) {
      const args = words.includes('--sandbox') || words.includes('--help') ? words : ['--sandbox', ...words];
      const shown = `keydeck ${args.join(' ')}`;
      if (args.includes('monitor')) {
        const app = rig.start({ args, env: { ...env, KEYDECK_DATA_DIR: undefined }, columns: 100, rows: 30 });
        await app.waitFor(/remaining \$\d+\.\d\d/, 20_000);
        app.write('q');
        expect((await app.exited).exitCode, shown).toBe(0);
        continue;
      }
      if (args.includes('exporter')) {
        const child = spawn(process.execPath, [cliPath(), ...args], { cwd: project, env, stdio: ['ignore', 'pipe', 'pipe'] });
        let stderr = '';
        child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
        try {
          const url = await new Promise<string>((resolve, reject) => {
            const timer = setTimeout(() => reject(new Error(`${shown}: not listening\n${stderr}`)), 20_000);
            const look = () => {
              const m = /event=listening url=(\S+)/.exec(stderr);
              if (m) {
                clearTimeout(timer);
                resolve(m[1]!);
              } else setTimeout(look, 100);
            };
            look();
          });
          let metrics = '';
          for (let i = 0; i < 50 && !/keydeck_up\{profile="sandbox"[^}]*\} 1/.test(metrics); i++) {
            await new Promise((r) => setTimeout(r, 200));
            metrics = await (await fetch(url)).text();
          }
          expect(metrics, shown).toMatch(/keydeck_balance_remaining_usd\{profile="sandbox"[^}]*\} \d/);
        } finally {
          child.kill('SIGTERM');
          await new Promise((r) => child.once('close', r));
        }
        continue;
      }
      const r = await run(args, env, project);
      expect(r.code, `${shown}\n${r.stdout}\n${r.stderr}`).toBe(0);
      expect(r.stderr, shown).not.toMatch(/^keydeck: /m);
    }
    // What the lines promised: the key delivered into the project's .env, try-me renamed by its name, the demo account's keys listed.
    expect(readFileSync(path.join(project, '.env'), 'utf8')).toMatch(/^OPENAI_API_KEY=sk_/m);
    const listed = await run(['--sandbox', 'keys', 'list', '--json'], env, project);
    // keys rotate web: the successor takes the name, the old key is renamed with its date.
    const names = (JSON.parse(listed.stdout) as Array<{ name: string }>).map((k) => k.name);
    expect(names).toEqual(expect.arrayContaining(['tried', 'web', 'batch-jobs']));
    expect(names.some((n) => /^web \(rotated \d{4}-\d\d-\d\d\)$/.test(n))).toBe(true);
  });
});
