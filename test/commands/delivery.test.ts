/**
 * `keydeck keys create --to-file … --to-command …` as the built CLI against the sandbox:
 * the key lands in a dotenv file (0600) and in a `gh` stand-in (a shell script that stores its
 * stdin) and never in the terminal's output; a destination that cannot take a key stops the
 * command before anything is created; one that fails after creation leaves no orphan unsaid (the
 * key printed only to a terminal, deletion offered there).
 */
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConsumptionKeyListSchema } from '../../src/api/schemas.js';
import { startApp } from '../e2e/pty.js';
import type { TestSandbox } from '../sandbox/helpers.js';
import { FULL_KEY, type Scripted, useScriptedSandbox } from './scripted.js';

let sb: TestSandbox;
let cli: Scripted;
useScriptedSandbox((s, c) => ((sb = s), (cli = c)));

let root: string;
let bin: string;
beforeAll(() => {
  root = mkdtempSync(path.join(tmpdir(), 'keydeck-delivery-cli-'));
  bin = path.join(root, 'bin');
  mkdirSync(bin);
  writeFileSync(path.join(bin, 'gh'), `#!/bin/sh\ncat > "${root}/gh.stdin"\necho "✓ Set Actions secret $3 for owner/repo"\n`, { mode: 0o755 });
  writeFileSync(path.join(bin, 'gh-broken'), '#!/bin/sh\ncat > /dev/null\necho "HTTP 403: Resource not accessible" >&2\nexit 1\n', { mode: 0o755 });
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

const PATH = () => `${bin}:${process.env.PATH}`;
const listed = async (token: string) => ConsumptionKeyListSchema.parse((await sb.call('GET', '/api/keys', { token })).body);

describe('keys create with destinations', () => {
  it('puts the key into the dotenv file (0600) and into gh’s stdin, and never into the terminal’s output', async () => {
    const user = await sb.fundedUser(25);
    const app = path.join(root, 'app');
    mkdirSync(app, { mode: 0o700 });
    const env = path.join(app, '.env');
    writeFileSync(env, 'PORT=8080\nOPENAI_API_KEY=sk_old\n', { mode: 0o600 });
    const r = await cli.run(user, ['keys', 'create', '--name', 'web', '--to-file', `${env}:OPENAI_API_KEY`, '--to-command', 'gh secret set OPENAI_API_KEY'], { PATH: PATH() });
    expect(r.code, r.stderr).toBe(0);
    const key = readFileSync(path.join(root, 'gh.stdin'), 'utf8');
    expect(key).toMatch(/^sk_[A-Za-z0-9]{40}$/);
    expect(readFileSync(env, 'utf8')).toBe(`PORT=8080\nOPENAI_API_KEY=${key}\n`);
    expect(statSync(env).mode & 0o777).toBe(0o600);
    expect(r.stdout).toMatch(/^delivered: replaced OPENAI_API_KEY in .*\.env, line 2/m);
    expect(r.stdout).toMatch(/^delivered: `gh secret set OPENAI_API_KEY` took the key \(exit 0\)\n {4}✓ Set Actions secret OPENAI_API_KEY for owner\/repo$/m);
    expect(r.stdout + r.stderr).not.toMatch(FULL_KEY);
    expect((await sb.infer(key)).status).toBe(200);

    // --json: the created object without apiKey, with the outcomes.
    const fresh = path.join(app, 'fresh.env');
    const j = await cli.run(user, ['keys', 'create', '--name', 'web-2', '--to-file', fresh, '--json'], { PATH: PATH() });
    expect(j.code, j.stderr).toBe(0);
    const out = JSON.parse(j.stdout);
    expect(out.apiKey).toBeUndefined();
    expect(out.deliveries).toEqual([expect.objectContaining({ kind: 'file', path: fresh, variable: 'KEYDECK_API_KEY', ok: true })]);
    expect(j.stdout + j.stderr).not.toMatch(FULL_KEY);
    expect(statSync(fresh).mode & 0o777).toBe(0o600);
  });

  it('refuses before creating anything when a destination cannot take a key', async () => {
    const user = await sb.fundedUser(25);
    const open = path.join(root, 'open');
    mkdirSync(open);
    chmodSync(open, 0o777);
    const r1 = await cli.run(user, ['keys', 'create', '--name', 'x', '--to-file', path.join(open, '.env')]);
    const r2 = await cli.run(user, ['keys', 'create', '--name', 'x', '--to-command', 'gh-missing secret set X'], { PATH: PATH() });
    const r3 = await cli.run(user, ['keys', 'create', '--name', 'x', '--to-command', 'gh secret set X > log']);
    expect([r1.code, r2.code, r3.code]).toEqual([1, 1, 2]);
    expect(r1.stderr).toMatch(/destination_refused: .*chmod go-w .*no key was created/);
    expect(r2.stderr).toMatch(/gh-missing was not found on PATH.*no key was created/);
    expect(r3.stderr).toMatch(/invalid_destination: .*needs a shell/);
    expect(await listed(user)).toEqual([]);
  });

  it('a destination failing after creation: not a terminal, the key is not printed and the orphan is named', async () => {
    const user = await sb.fundedUser(25);
    const env = path.join(root, 'partial.env');
    const r = await cli.run(user, ['keys', 'create', '--name', 'half', '--to-file', env, '--to-command', 'gh-broken secret set X'], { PATH: PATH() });
    expect(r.code).toBe(1);
    expect(r.stdout + r.stderr).not.toMatch(FULL_KEY);
    expect(r.stdout).toMatch(/^FAILED: `gh-broken secret set X` failed \(exit 1\)\n {4}HTTP 403: Resource not accessible$/m);
    expect(r.stderr).toMatch(/warning: the key is not printed: stdout is not a terminal/);
    expect(r.stderr).toMatch(/warning: .*partial\.env \(KEYDECK_API_KEY\) already holds the new key/);
    const [key] = await listed(user);
    expect(r.stderr).toContain(
      `keydeck: delivery_failed: the credit key "half" (id ${key!.id}) was created, but \`gh-broken secret set X\` did not take it; it is kept and the creation stays recorded: ` +
        '`keydeck keys create --finish half` delivers it again where it failed (its value is read back from the file that holds it), `keydeck keys create --undo half` puts back what the destinations held and deletes it',
    );
  });

  it('on a terminal the key stays on screen so it is not lost, and deleting it is offered (y deletes it)', { timeout: 30_000 }, async () => {
    const user = await sb.fundedUser(25);
    const env = cli.home.env({ KEYDECK_TOKEN: user, KEYDECK_BASE_URL: sb.url, PATH: PATH() });
    const app = startApp({ args: ['keys', 'create', '--name', 'lost?', '--to-command', 'gh-broken secret set X'], env, columns: 200 });
    await app.waitFor('[y/N]');
    expect(app.screenText()).toMatch(/so that it is not lost, here it is/);
    expect(app.screenText()).toMatch(/^ {2}sk_[A-Za-z0-9]{40}$/m);
    expect(app.screenText()).toMatch(/Delete the credit key "lost\?" \(id [^)]+\) now\? \[y\/N\]/);
    app.write('y\r');
    expect((await app.exited).exitCode).toBe(1);
    await app.waitFor(/the key was deleted again/);
    expect(await listed(user)).toEqual([]);
  });
});
