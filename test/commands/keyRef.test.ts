/**
 * One way to name a key: every key command takes an id or a unique name, resolved from the list
 * before any question is asked; a name several keys share lists them; an argument shaped like a
 * full key value is refused before any request, by its prefix only. The built CLI against the
 * sandbox.
 */
import { describe, expect, it } from 'vitest';
import { ConsumptionKeyListSchema } from '../../src/api/schemas.js';
import { startApp } from '../e2e/pty.js';
import { type TestSandbox } from '../sandbox/helpers.js';
import { UNREACHABLE, useScriptedSandbox, type Scripted } from './scripted.js';

let sb: TestSandbox;
let cli: Scripted;
useScriptedSandbox((s, c) => ((sb = s), (cli = c)));

async function listed(token: string) {
  return ConsumptionKeyListSchema.parse((await sb.call('GET', '/api/keys', { token })).body);
}

describe('keys by unique name', () => {
  it('rename, disable, enable and delete work by name and say which key they changed', async () => {
    const user = await sb.fundedUser(25);
    const key = await sb.creditKey(user, 'try-me');
    await sb.creditKey(user, 'other');
    const renamed = await cli.run(user, ['keys', 'rename', 'try-me', '--name', 'tried']);
    expect(renamed.code, renamed.stderr).toBe(0);
    expect(renamed.stdout).toBe(`Renamed the key "try-me" (id ${key.id}) to "tried".\n`);
    const disabled = await cli.run(user, ['keys', 'disable', 'tried', '--yes']);
    expect(disabled.code, disabled.stderr).toBe(0);
    expect(disabled.stdout).toMatch(new RegExp(`^Disabled the key "tried" \\(id ${key.id}\\): it is refused from now on`));
    expect((await listed(user)).find((k) => k.id === key.id)!.isActive).toBe(false);
    const enabled = await cli.run(user, ['keys', 'enable', 'tried']);
    expect(enabled.code, enabled.stderr).toBe(0);
    expect((await listed(user)).find((k) => k.id === key.id)!.isActive).toBe(true);
    const deleted = await cli.run(user, ['keys', 'delete', 'tried', '--yes']);
    expect(deleted.code, deleted.stderr).toBe(0);
    expect(deleted.stdout).toBe(`Deleted the key "tried" (id ${key.id}).\n`);
    expect((await listed(user)).map((k) => k.name)).toEqual(['other']);
  });

  it('mgmt-keys delete works by name', async () => {
    const user = await sb.fundedUser(0);
    const made = await sb.call('POST', '/api/keys/management', { token: user, body: { name: 'old-laptop' } });
    const r = await cli.run(user, ['mgmt-keys', 'delete', 'old-laptop', '--yes']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe(`Deleted the management key "old-laptop" (id ${made.body.id}).\n`);
    expect((await sb.call('GET', '/api/keys/management', { token: user })).body).toEqual([]);
  });

  it('a name two keys share is refused with both, each by id, and nothing changes', async () => {
    const user = await sb.fundedUser(25);
    const a = await sb.creditKey(user, 'web');
    const b = await sb.creditKey(user, 'web');
    const r = await cli.run(user, ['keys', 'disable', 'web', '--yes']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^keydeck: ambiguous: 2 keys are named "web": name one by its id: /);
    expect(r.stderr).toContain(`${a.id} (active, created `);
    expect(r.stderr).toContain(`${b.id} (active, created `);
    expect((await listed(user)).every((k) => k.isActive)).toBe(true);
  });

  it('on a terminal: a name no key has (or one two keys share) is refused before the question is asked', { timeout: 30_000 }, async () => {
    const user = await sb.fundedUser(25);
    await sb.creditKey(user, 'twin');
    await sb.creditKey(user, 'twin');
    const env = cli.home.env({ KEYDECK_TOKEN: user, KEYDECK_BASE_URL: sb.url });
    const missing = startApp({ args: ['keys', 'delete', 'try-me'], env, columns: 200 });
    expect((await missing.exited).exitCode).toBe(1);
    // The pty's last bytes may reach the screen after the exit is seen: waited for, not read at once.
    await missing.waitFor('keydeck: not_found: no key has the id or name "try-me" (keydeck keys list); nothing was changed.', 5000);
    expect(missing.screenText()).not.toContain('[y/N]');
    const shared = startApp({ args: ['keys', 'delete', 'twin'], env, columns: 200 });
    expect((await shared.exited).exitCode).toBe(1);
    await shared.waitFor('keydeck: ambiguous: 2 keys are named "twin"', 5000);
    expect(shared.screenText()).not.toContain('[y/N]');
    expect(await listed(user)).toHaveLength(2);
  });
});

describe('a key value where the id goes', () => {
  it('is refused before any request (exit 2), shown by its prefix only, for every key command', async () => {
    const sk = `sk_${'Zq9x'.repeat(12)}`;
    const mk = `mk_${'Pw7y'.repeat(12)}`;
    const dashed = `sk-${'Lm3n'.repeat(12)}`;
    const runs = await Promise.all(
      [
        ['keys', 'show', sk],
        ['keys', 'delete', sk, '--yes'],
        ['keys', 'disable', dashed, '--yes'],
        ['keys', 'enable', sk],
        ['keys', 'rename', sk, '--name', 'x'],
        ['keys', 'rotate', sk, '--old', 'keep'],
        ['keys', 'usage', sk],
        ['mgmt-keys', 'delete', mk, '--yes'],
      ].map((args) => cli.run('sess_whatever', args, { KEYDECK_BASE_URL: UNREACHABLE })),
    );
    for (const r of runs) {
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toMatch(
        /^keydeck: invalid_request: ID\|NAME: (sk_Zq9xZq9x|sk-Lm3nLm3n|mk_Pw7yPw7y)… is a key value, not its id: give the (management )?key’s id or name \(keydeck (mgmt-)?keys list\); nothing was sent/,
      );
      for (const value of [sk, mk, dashed]) expect(r.stdout + r.stderr).not.toContain(value.slice(11));
    }
  });
});
