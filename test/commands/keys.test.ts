/**
 * `keydeck keys list | create | rename | enable | disable | delete`, run as the built CLI against
 * the sandbox on loopback, in both output modes: stdout, stderr and exit codes; `--json` output
 * parsed with the wire schemas. Confirmation on a real terminal runs in a pseudo-terminal.
 */
import stringWidth from 'string-width';
import { describe, expect, it } from 'vitest';
import { ConsumptionKeyListSchema, ConsumptionKeySchema, CreatedConsumptionKeySchema, DeletedKeySchema } from '../../src/api/schemas.js';
import { startHostileServer } from '../api/hostile-server.js';
import { startApp } from '../e2e/pty.js';
import { startTestSandbox, type TestSandbox } from '../sandbox/helpers.js';
import { cells, lines, scripted, UNREACHABLE, type Scripted, useScriptedSandbox } from './scripted.js';

let sb: TestSandbox;
let cli: Scripted;
useScriptedSandbox((s, c) => ((sb = s), (cli = c)));

async function listed(token: string) {
  return ConsumptionKeyListSchema.parse((await sb.call('GET', '/api/keys', { token })).body);
}

// The sandbox sends lastUsedAt (as the newer keys page): the table shows it.
const HEADER = ['id', 'name', 'keyType', 'keyPlan', 'status', 'expires', 'createdAt', 'lastUsedAt'];

describe('keys list and create', () => {
  it('on an account without credit: an empty list both ways, and create is refused with insufficient_balance (exit 1)', async () => {
    const user = await sb.fundedUser(0);
    const [human, json, create] = await Promise.all([cli.run(user, ['keys', 'list']), cli.run(user, ['keys', 'list', '--json']), cli.run(user, ['keys', 'create', '--name', 'ci'])]);
    expect(human.code, human.stderr).toBe(0);
    expect(human.stdout).toMatch(/No consumption keys yet.*keydeck keys create --name NAME/);
    expect(human.stderr).toBe('');
    expect(json.code).toBe(0);
    expect(ConsumptionKeyListSchema.parse(JSON.parse(json.stdout))).toEqual([]);
    expect(create.code).toBe(1);
    expect(create.stdout).toBe('');
    expect(lines(create.stderr)).toHaveLength(1);
    expect(create.stderr).toMatch(/^keydeck: insufficient_balance: .*balance is 0.*\(keydeck billing topup --amount USD --method card_checkout\|usdc\)\.\n$/);
    expect(await listed(user)).toEqual([]);
  });

  it('create shows the sk_ value exactly once (human block or the created JSON); list shows the keys, never the value', async () => {
    const user = await sb.fundedUser(25);
    const [human, json] = await Promise.all([cli.run(user, ['keys', 'create', '--name', 'ci deploy']), cli.run(user, ['keys', 'create', '--name', '日本語キー', '--json'])]);
    expect(human.code, human.stderr).toBe(0);
    expect(human.stderr).toBe('');
    const shown = human.stdout.match(/sk_[A-Za-z0-9_-]+/g) ?? [];
    expect(shown).toHaveLength(1);
    expect(human.stdout).toMatch(/^Created the credit key "ci deploy" \(id [^)]+\)\.$/m);
    expect(human.stdout).toMatch(/only time the full key is shown/);

    expect(json.code, json.stderr).toBe(0);
    expect(json.stderr).toBe('');
    const created = CreatedConsumptionKeySchema.parse(JSON.parse(json.stdout));
    expect(created).toMatchObject({ name: '日本語キー', keyType: 'credit', isActive: true });

    // The human key works for inference (it is the real value).
    expect((await sb.infer(shown[0]!)).status).toBe(200);

    const [table, list] = await Promise.all([cli.run(user, ['keys', 'list']), cli.run(user, ['keys', 'list', '--json'])]);
    expect(table.code, table.stderr).toBe(0);
    expect(list.code).toBe(0);
    for (const out of [table.stdout, list.stdout]) {
      expect(out).not.toContain(shown[0]);
      expect(out).not.toContain(created.apiKey);
      expect(out).not.toMatch(/sk_[A-Za-z0-9]{8}/);
    }
    const keys = ConsumptionKeyListSchema.parse(JSON.parse(list.stdout));
    expect(keys.map((k) => k.name).sort()).toEqual(['ci deploy', '日本語キー']);
    expect(keys.every((k) => !('apiKey' in k))).toBe(true);

    const rows = lines(table.stdout);
    expect(cells(rows[0]!)).toEqual(HEADER);
    expect(rows).toHaveLength(3);
    const wide = rows.find((r) => r.includes('日本語キー'))!;
    expect(cells(wide)).toEqual([created.id, '日本語キー', 'credit', 'credits', 'active', 'never', expect.stringMatching(/^\d{4}-\d\d-\d\d \d\d:\d\d UTC$/), 'never']);
    // Columns line up in terminal cells, wide characters included.
    const column = (line: string, text: string) => stringWidth(line.slice(0, line.indexOf(text)));
    for (const row of rows.slice(1)) {
      expect(column(row, 'credit')).toBe(column(rows[0]!, 'keyType'));
      expect(column(row, 'never')).toBe(column(rows[0]!, 'expires'));
    }
  });

  it('a subscription key shows its end date, and "expired" once its 30 days are over', async () => {
    const other = await startTestSandbox();
    try {
      const demo = scripted(other.url);
      const before = await demo.run(other.token, ['keys', 'list']);
      expect(before.code, before.stderr).toBe(0);
      const row = cells(lines(before.stdout)[1]!);
      expect(row.slice(2, 5)).toEqual(['subscription', 'standard', 'active']);
      expect(row[5]).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d UTC$/);
      await other.advance(31 * 86_400);
      const after = await demo.run(other.token, ['keys', 'list']);
      expect(cells(lines(after.stdout)[1]!)[4]).toBe('expired');
      demo.home.remove();
    } finally {
      await other.close();
    }
  });
});

describe('keys rename, enable, disable', () => {
  it('rename and enable/disable in both modes; disable without a terminal needs --yes and changes nothing', async () => {
    const user = await sb.fundedUser(25);
    const key = await sb.creditKey(user, 'api');
    const [rename, refused] = await Promise.all([cli.run(user, ['keys', 'rename', key.id, '--name', 'api v2']), cli.run(user, ['keys', 'disable', key.id])]);
    expect(rename.code, rename.stderr).toBe(0);
    expect(rename.stdout).toBe(`Renamed the key "api" (id ${key.id}) to "api v2".\n`);
    expect(refused.code).toBe(2);
    expect(refused.stdout).toBe('');
    expect(refused.stderr).toBe(
      `keydeck: confirmation_required: stdin is not a terminal, so no confirmation can be asked and nothing was changed; to proceed run \`keydeck keys disable ${key.id} --yes\`.\n`,
    );
    expect((await listed(user))[0]).toMatchObject({ name: 'api v2', isActive: true });

    const disabled = await cli.run(user, ['keys', 'disable', key.id, '--yes', '--json']);
    expect(disabled.code, disabled.stderr).toBe(0);
    expect(ConsumptionKeySchema.parse(JSON.parse(disabled.stdout))).toMatchObject({ id: key.id, isActive: false });
    expect((await sb.infer(key.apiKey)).status).toBe(403);

    const [enabled, renamed] = await Promise.all([cli.run(user, ['keys', 'enable', key.id]), cli.run(user, ['keys', 'rename', key.id, '--name', 'api v3', '--json'])]);
    expect(enabled.code, enabled.stderr).toBe(0);
    // Named as listed (a rename may race it: either name).
    expect(enabled.stdout).toMatch(new RegExp(`^Enabled the key "api v[23]" \\(id ${key.id}\\): it works again\\.\n$`));
    expect(renamed.code, renamed.stderr).toBe(0);
    expect(JSON.parse(renamed.stdout)).toMatchObject({ id: key.id, name: 'api v3' });
    expect((await listed(user))[0]).toMatchObject({ name: 'api v3', isActive: true });
    expect((await sb.infer(key.apiKey)).status).toBe(200);

    const human = await cli.run(user, ['keys', 'disable', key.id, '-y']);
    expect(human.stdout).toMatch(/^Disabled the key .*`keydeck keys enable .*` turns it back on\.\n$/);
  });
});

describe('keys delete', () => {
  it('needs --yes without a terminal; deletes with it (human sentence or { deleted: true }); a second delete is not_found (exit 1)', async () => {
    const user = await sb.fundedUser(25);
    const [a, b] = [await sb.creditKey(user, 'a'), await sb.creditKey(user, 'b')];
    const refused = await cli.run(user, ['keys', 'delete', a.id]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/confirmation_required: .*`keydeck keys delete .* --yes`/);
    expect(await listed(user)).toHaveLength(2);

    const [human, json] = await Promise.all([cli.run(user, ['keys', 'delete', a.id, '--yes']), cli.run(user, ['keys', 'delete', b.id, '--yes', '--json'])]);
    expect(human.code, human.stderr).toBe(0);
    expect(human.stdout).toBe(`Deleted the key "a" (id ${a.id}).\n`);
    expect(json.code, json.stderr).toBe(0);
    expect(DeletedKeySchema.parse(JSON.parse(json.stdout))).toEqual({ deleted: true });
    expect(await listed(user)).toEqual([]);

    const again = await cli.run(user, ['keys', 'delete', a.id, '--yes']);
    expect(again.code).toBe(1);
    expect(again.stdout).toBe('');
    expect(again.stderr).toBe(`keydeck: not_found: no key has the id or name "${a.id}" (keydeck keys list); nothing was changed.\n`);
  });

  it('on a terminal asks y/N naming the key: the default (no) keeps it, y deletes it', { timeout: 30_000 }, async () => {
    const user = await sb.fundedUser(25);
    const key = await sb.creditKey(user, 'prod web');
    const env = cli.home.env({ KEYDECK_TOKEN: user, KEYDECK_BASE_URL: sb.url });

    const no = startApp({ args: ['keys', 'delete', key.id], env, columns: 220 });
    await no.waitFor('[y/N]');
    expect(no.screenText()).toContain(`Delete the key "prod web" (id ${key.id})? It is revoked at once and cannot be restored. [y/N]`);
    no.write('\r');
    expect((await no.exited).exitCode).toBe(1);
    await no.waitFor('keydeck: cancelled: nothing was changed.');
    expect(await listed(user)).toHaveLength(1);

    const yes = startApp({ args: ['keys', 'delete', key.id], env, columns: 220 });
    await yes.waitFor('[y/N]');
    yes.write('y\r');
    expect((await yes.exited).exitCode).toBe(0);
    await yes.waitFor(`Deleted the key "prod web" (id ${key.id}).`);
    expect(await listed(user)).toEqual([]);
  });
});

describe('a name another key has', () => {
  it('is refused in a script before anything is created, naming the key that has it, unless --allow-duplicate-name; rename too', async () => {
    const user = await sb.fundedUser(25);
    const web = await sb.creditKey(user, 'web');
    const other = await sb.creditKey(user, 'other');
    const again = await cli.run(user, ['keys', 'create', '--name', 'web']);
    expect(again.code).toBe(2);
    expect(again.stdout).toBe('');
    expect(again.stderr).toBe(
      `keydeck: name_taken: a key is already named "web", the credit key made ${String(web.createdAt).slice(0, 10)} (id ${web.id}): commands that name a key by its name could then no longer tell the two apart. Pick another name, or pass --allow-duplicate-name to create it anyway; nothing was created.\n`,
    );
    expect((await listed(user)).filter((k) => k.name === 'web')).toHaveLength(1);

    const rename = await cli.run(user, ['keys', 'rename', other.id, '--name', 'web']);
    expect(rename.code).toBe(2);
    expect(rename.stderr).toMatch(/name_taken: .*--allow-duplicate-name to rename it anyway; nothing was renamed\.\n$/);
    // Its own name is no clash.
    expect((await cli.run(user, ['keys', 'rename', web.id, '--name', 'web'])).code).toBe(0);

    const allowed = await cli.run(user, ['keys', 'create', '--name', 'web', '--allow-duplicate-name', '--json']);
    expect(allowed.code, allowed.stderr).toBe(0);
    expect(allowed.stderr).toBe('');
    expect((await listed(user)).filter((k) => k.name === 'web')).toHaveLength(2);
  });

  it('on a terminal says who has it and asks: the default (no) creates nothing, y creates it', { timeout: 30_000 }, async () => {
    const user = await sb.fundedUser(25);
    const web = await sb.creditKey(user, 'web');
    const env = cli.home.env({ KEYDECK_TOKEN: user, KEYDECK_BASE_URL: sb.url });
    const no = startApp({ args: ['keys', 'create', '--name', 'web'], env, columns: 240 });
    await no.waitFor('[y/N]');
    expect(no.screenText()).toContain(`warning: a key is already named "web", the credit key made ${String(web.createdAt).slice(0, 10)} (id ${web.id})`);
    expect(no.screenText()).toContain('Create another key named "web"? [y/N]');
    no.write('\r');
    expect((await no.exited).exitCode).toBe(1);
    await no.waitFor('keydeck: cancelled: nothing was created.');
    expect(await listed(user)).toHaveLength(1);

    const yes = startApp({ args: ['keys', 'create', '--name', 'web'], env, columns: 240 });
    await yes.waitFor('[y/N]');
    yes.write('y\r');
    expect((await yes.exited).exitCode).toBe(0);
    await yes.waitFor('Created the credit key "web"');
    expect(await listed(user)).toHaveLength(2);
  });
});

describe('key ids in a completion request', () => {
  it('offers only the ids fit for a command line: one with an escape sequence or a space from the service is left out', async () => {
    const user = await sb.fundedUser(25);
    await sb.call('POST', '/api/keys/credit', { token: user, body: { name: 'plain' } });
    const [key] = await listed(user);
    const ids = [key!.id, '\u001b]0;pwned\u0007', 'two words', '--yes'];
    const hostile = await startHostileServer((req, res) => {
      const body = JSON.stringify(ids.map((id) => ({ ...key, id })));
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) }).end(body);
    });
    try {
      const done = await cli.run(user, ['__complete', '--', 'keys', 'delete', ''], { KEYDECK_BASE_URL: hostile.url });
      expect(done.code, done.stderr).toBe(0);
      expect(done.stdout).toBe(`${key!.id}\n`);
      expect(hostile.requests.some((r) => r.path.startsWith('/api/keys'))).toBe(true);
    } finally {
      await hostile.close();
    }
  });
});

describe('failures', () => {
  it('checks input before sending anything: exit 2 even when the service is unreachable', async () => {
    const results = await Promise.all(
      [
        ['keys', 'create', '--name', '   '],
        ['keys', 'create', '--name', 'x'.repeat(129)],
        ['keys', 'rename', 'k1', '--name', ''],
        ['keys', 'delete', `sk_${'A1b2'.repeat(10)}`, '--yes'],
        ['keys', 'create'],
      ].map((args) => cli.run('sess_whatever', args, { KEYDECK_BASE_URL: UNREACHABLE })),
    );
    for (const r of results) {
      expect(r.code, r.stderr).toBe(2);
      expect(r.stdout).toBe('');
    }
    expect(results[0]!.stderr).toBe('keydeck: invalid_request: --name: name must not be empty.\n');
    expect(results[1]!.stderr).toMatch(/--name: name must be at most 128 characters/);
    // A key value where the id goes: refused by its prefix, never sent (nor put in a path).
    expect(results[3]!.stderr).toBe(
      'keydeck: invalid_request: ID|NAME: sk_A1b2A1b2… is a key value, not its id: give the key’s id or name (keydeck keys list); nothing was sent, and a key value is never put in a request’s path.\n',
    );
    expect(results[4]!.stderr).toMatch(/invalid_request: --name: give the key’s name \(keydeck keys create NAME, or --name NAME\)/);
  });

  it('network trouble is exit 4, a refused credential exit 1, no credential at all exit 1, each one sentence naming the code', async () => {
    const [down, refused, none] = await Promise.all([
      cli.run('sess_whatever', ['keys', 'list', '--json'], { KEYDECK_BASE_URL: UNREACHABLE }),
      cli.run('sess_not_a_token', ['keys', 'list', '--json']),
      cli.run(undefined, ['keys', 'list']),
    ]);
    // Under --json the failure is the one JSON document on stdout, nothing on stderr (docs/commands.md).
    const errorOf = (r: { stdout: string }) => (JSON.parse(r.stdout) as { error: { code: string; message: string; status?: number } }).error;
    expect(down.code).toBe(4);
    expect(down.stderr).toBe('');
    expect(errorOf(down)).toMatchObject({ code: 'network_error', transportCode: 'ECONNREFUSED', nothingSent: true });
    expect(errorOf(down).message).toMatch(/^network_error: could not reach the service at http:\/\/127\.0\.0\.1:9 .*ECONNREFUSED/);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toBe('');
    expect(errorOf(refused)).toMatchObject({ code: 'unauthorized', status: 401 });
    // The rejected credential is named, with where it came from and what to do (never `auth login`,
    // whose stored key KEYDECK_TOKEN would override again).
    expect(
      errorOf(refused).message.startsWith(
        'unauthorized: the service did not accept the credential in use, KEYDECK_TOKEN (session token), to list the keys: it may be mistyped, expired or deleted; unset KEYDECK_TOKEN to use the key stored for profile "default", or set a valid one',
      ),
    ).toBe(true);
    expect(refused.stdout).not.toContain('auth login');
    expect(refused.stdout).not.toContain('sess_not_a_token');
    expect(none.code).toBe(1);
    expect(none.stderr).toMatch(/no key for profile "default" at http:\/\/127\.0\.0\.1:\d+: run `keydeck auth login`, or set KEYDECK_TOKEN/);
  });

  it('a failing service (HTTP 5xx) is exit 4 server_error; a create it fails is sent once and said to be of unknown outcome', async () => {
    const failing = await startHostileServer((_req, res) => {
      res.writeHead(503, { 'content-type': 'application/json' }).end('{"error":{"code":"server_error","message":"down for maintenance"}}');
    });
    try {
      const [list, create] = await Promise.all([
        cli.run('sess_whatever', ['keys', 'list'], { KEYDECK_BASE_URL: failing.url }),
        cli.run('sess_whatever', ['keys', 'create', '--name', 'ci', '--json'], { KEYDECK_BASE_URL: failing.url }),
      ]);
      expect(list.code).toBe(4);
      // (The creation, of unknown outcome, stays recorded: a list that starts after it may name it first.)
      expect(list.stderr).toMatch(/^keydeck: server_error: the service failed to list the keys \(HTTP 503\).*down for maintenance/m);
      expect(create.code).toBe(4);
      // The list read to check the name failed too: said, and the create is sent all the same.
      expect(create.stderr).toMatch(/^warning: could not read the keys to check whether another key is named "ci" \(.*\); going on$/m);
      // Under --json the failure is the JSON document on stdout: possibly sent, never retried.
      const { error } = JSON.parse(create.stdout) as { error: { code: string; message: string; possiblySent?: boolean } };
      expect(error).toMatchObject({ code: 'server_error', status: 503, possiblySent: true });
      expect(error.message).toMatch(/^server_error: .*whether it took effect is unknown: list the keys before trying again/);
      expect(create.stderr).not.toMatch(/^keydeck: /m);
      // The creation stays recorded: its finish or undo is named.
      expect(create.stderr).toMatch(/^warning: the key "ci" may have been created: `keydeck keys create --finish ci` finds it/m);
      expect(failing.requests.filter((r) => r.method === 'POST')).toHaveLength(1);
      expect(failing.requests.filter((r) => r.method === 'GET').length).toBeGreaterThan(1);
    } finally {
      await failing.close();
    }
  });
});
