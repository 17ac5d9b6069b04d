/**
 * `keydeck keys usage` and `keydeck key-info`, run as the built CLI against the
 * sandbox: the table with shares and deleted keys, `--json` keeping the service's figures apart
 * from keydeck's, one key's spend read by read, the budget said and never exceeded (two command
 * loops at once: 12 calls counted by the sandbox), and a consumption key's own view from stdin or
 * KEYDECK_SK that never shows the key anywhere it wrote.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../credentials/harness.js';
import { keyInfo as keyInfoExample } from '../api/docs-examples.js';
import { json, startHostileServer } from '../api/hostile-server.js';
import type { TestSandbox } from '../sandbox/helpers.js';
import { cells, lines, useScriptedSandbox, type Scripted } from './scripted.js';

let sb: TestSandbox;
let cli: Scripted;
useScriptedSandbox((s, c) => ((sb = s), (cli = c)));

/** Every file under `dir`. */
function filesUnder(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const p = path.join(dir, name);
    if (statSync(p).isDirectory()) out.push(...filesUnder(p));
    else out.push(p);
  }
  return out;
}

describe('keys usage', () => {
  it('prints who spends what, biggest first, with shares; a deleted key says so; --json keeps service and derived apart', async () => {
    const user = await sb.fundedUser(50);
    const big = await sb.creditKey(user, 'batch-jobs');
    const small = await sb.creditKey(user, 'web');
    const gone = await sb.creditKey(user, 'old-job');
    await sb.infer(big.apiKey, { sandbox_cost_usd: 3 });
    await sb.infer(small.apiKey, { sandbox_cost_usd: 1 });
    await sb.infer(gone.apiKey, { sandbox_cost_usd: 1 });
    await sb.call('DELETE', `/api/keys/${gone.id}`, { token: user });

    const human = await cli.run(user, ['keys', 'usage']);
    expect(human.code, human.stderr).toBe(0);
    const out = lines(human.stdout);
    expect(out[0]).toMatch(/^usage just now · 11 of 12 reads left · next read now \(as of \d{4}-\d\d-\d\d \d\d:\d\d UTC\)$/);
    expect(cells(out[1]!)).toEqual(['id', 'name', '24 h', '7 d', '30 d', 'all time', 'share 24 h']);
    expect(cells(out[2]!).slice(1)).toEqual(['batch-jobs', '$3.00', '$3.00', '$3.00', '$3.00', '60%']);
    expect(human.stdout).toMatch(/old-job \(deleted\)\s+\$1\.00/);

    // Kept figures: no second read (the schedule waits 72 minutes); --json from the same answer.
    const json = await cli.run(user, ['keys', 'usage', '--json', '--period', '24h']);
    expect(json.code, json.stderr).toBe(0);
    const doc = JSON.parse(json.stdout);
    expect(Object.keys(doc)).toEqual(['service', 'derived']);
    expect(doc.service.find((e: any) => e.id === big.id).usage['24h'].spend).toBe(3);
    expect(doc.derived).toMatchObject({ fresh: false, sharePeriod: '24h', budget: { readsLeft: 11, readsPerTwelveHours: 12 } });
    expect(doc.derived.keys.find((k: any) => k.id === gone.id)).toMatchObject({ name: 'old-job', status: 'deleted', share: 0.2 });
    expect((await sb.call('GET', '/sandbox/usage/calls')).body.allTime.served).toBeGreaterThanOrEqual(1);

    const one = await cli.run(user, ['keys', 'usage', big.id]);
    expect(one.code, one.stderr).toBe(0);
    expect(one.stdout).toMatch(/^batch-jobs \(id [^)]+\) · usage just now/);
    expect(one.stdout).toMatch(/spend: 24 h \$3\.00 · 7 d \$3\.00 · 30 d \$3\.00 · all time \$3\.00 · 60% of the account's 24 h spend/);
    expect(one.stdout).toMatch(/read at\s+cumulative\s+since previous\s+rate/);
    const oneJson = JSON.parse((await cli.run(user, ['keys', 'usage', big.id, '--json'])).stdout);
    expect(oneJson.service).toMatchObject({ id: big.id, name: 'batch-jobs' });
    expect(oneJson.derived.samples).toEqual([{ at: expect.any(String), cumulativeUsd: 3, last24hUsd: 3 }]);

    const bad = await cli.run(user, ['keys', 'usage', '--period', 'fortnight']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--period must be one of 24h, 7d, 30d, total/);
    const missing = await cli.run(user, ['keys', 'usage', 'nope-1']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/not_found: no key has the id or name "nope-1"/);
  });

  it('with nothing kept and --cached: no figures, and the sentence says so; a 502 keeps the last figures with their age', async () => {
    const user = await sb.newUser();
    const none = await cli.run(user, ['keys', 'usage', '--cached']);
    expect(none.code).toBe(1);
    expect(none.stderr).toMatch(/^keydeck: usage_budget: no usage figures are kept for this key and service yet/);
    expect((await cli.run(user, ['keys', 'usage'])).code).toBe(0);
    await sb.call('POST', '/sandbox/usage/unavailable', { body: { unavailable: true } });
    try {
      // Without --refresh the kept figures are the answer: exit 0.
      expect((await cli.run(user, ['keys', 'usage'])).code).toBe(0);
      // A refresh that could not happen is not a success for a cron job: the figures, their age, exit 4.
      const kept = await cli.run(user, ['keys', 'usage', '--refresh']);
      expect(kept.code, kept.stderr).toBe(4);
      expect(kept.stderr).toMatch(/could not read new usage \(server_error: .*\); these are the figures of just now/);
      expect(kept.stdout).toMatch(/10 of 12 reads left/);
      const json = await cli.run(user, ['keys', 'usage', '--json', '--refresh']);
      expect(json.code, json.stderr).toBe(4);
      expect(JSON.parse(json.stdout).derived).toMatchObject({ fresh: false, ageSeconds: expect.any(Number) });
    } finally {
      await sb.call('POST', '/sandbox/usage/unavailable', { body: { unavailable: false } });
    }
  });

  it('two command loops at once spend at most 12 reads (counted by the sandbox), then say when the next is allowed', { timeout: 90_000 }, async () => {
    const user = await sb.newUser();
    const before = (await sb.call('GET', '/sandbox/usage/calls')).body.allTime;
    const loop = async () => {
      const results = [];
      for (let i = 0; i < 7; i++) results.push(await cli.run(user, ['keys', 'usage', '--refresh']));
      return results;
    };
    const all = (await Promise.all([loop(), loop()])).flat();
    const after = (await sb.call('GET', '/sandbox/usage/calls')).body.allTime;
    expect(after.served - before.served).toBe(12);
    expect(after.refused - before.refused).toBe(0);
    // Twelve refreshes happened (exit 0); the two that could not (no read left) exit 4, with the kept figures.
    expect(all.filter((r) => r.code === 0)).toHaveLength(12);
    const declined = all.filter((r) => r.code === 4);
    expect(declined).toHaveLength(2);
    for (const r of declined) expect(r.stderr).toMatch(/--refresh could not read now \(12 of 12 reads spent in the last 12 hours: the next is allowed in (11|12) h/);
    // The twelfth read leaves none; the two after it spend nothing and say when the next is allowed.
    // (A run whose read came just before the twelfth, in the other loop, may also print the budget
    // as it is after the twelfth: "no read left" is then said more than 3 times.)
    const last = all.filter((r) => /no read left/.test(r.stdout));
    expect(last.length).toBeGreaterThanOrEqual(3);
    expect(last[0]!.stdout).toMatch(/usage (just now|\d+ s ago|1 min ago) · no read left of 12 per 12 h · next in (11|12) h/);
  });
});

describe('key-info', () => {
  it('prints an sk_’s budget from stdin or KEYDECK_SK, by its prefix only: never on stdout, stderr or disk', async () => {
    const user = await sb.fundedUser(30);
    const key = await sb.creditKey(user, 'on-call app');
    await sb.infer(key.apiKey, { sandbox_cost_usd: 2 });
    const env = cli.home.env({ KEYDECK_BASE_URL: sb.url });
    const piped = await runCli(['key-info'], { env, input: `${key.apiKey}\n` });
    expect(piped.code, piped.stderr).toBe(0);
    expect(piped.stdout).toMatch(new RegExp(`^key\\s+${key.apiKey.slice(0, 11)}… "on-call app" · credit key`, 'm'));
    expect(piped.stdout).toMatch(/^budget\s+\$2\.00 spent · no limit$/m);
    expect(piped.stdout).toMatch(/^rate limits\s+60 requests\/min · no token limit$/m);
    expect(piped.stdout).toMatch(/^balance\s+\$28\.00 \(the account's credit balance\)$/m);
    const json = await runCli(['key-info', '--json'], { env: { ...env, KEYDECK_SK: key.apiKey } });
    expect(json.code, json.stderr).toBe(0);
    expect(JSON.parse(json.stdout)).toMatchObject({ service: { budget: { spent: 2 } }, derived: { keyPrefix: key.apiKey.slice(0, 11), fresh: true } });

    await sb.call('PUT', `/api/keys/${key.id}`, { token: user, body: { isActive: false } });
    const off = await runCli(['key-info'], { env: { ...env, KEYDECK_SK: key.apiKey } });
    expect(off.code).toBe(1);
    expect(off.stderr).toMatch(/forbidden/);
    const notSk = await runCli(['key-info'], { env, input: 'mk_0123456789abcdefghij\n' });
    expect(notSk.code).toBe(2);
    expect(notSk.stderr).toMatch(/not a consumption key \(sk_… or sk-…\): it starts with "mk_"/);
    const empty = await runCli(['key-info'], { env });
    expect(empty.code).toBe(2);
    expect(empty.stderr).toMatch(/set KEYDECK_SK or pipe the key on stdin \(it is never taken from the command line\)/);
    const argv = await runCli(['key-info', key.apiKey], { env });
    expect(argv.code).toBe(2);
    expect(argv.stderr).toMatch(/never takes the key on the command line .*set KEYDECK_SK or pipe it on stdin/);

    for (const r of [piped, json, off, notSk, empty, argv]) expect(`${r.stdout}${r.stderr}`).not.toContain(key.apiKey);
    for (const file of filesUnder(cli.home.home)) expect(readFileSync(file).includes(key.apiKey), file).toBe(false);
  });
});

describe('key-info against the real service’s edges', () => {
  it('reads an sk- key (the newer keys page’s form), by its prefix only; follows the service’s own 429 and Retry-After, never a budget of its own', { timeout: 60_000 }, async () => {
    const SK = `sk-${'Ab3'.repeat(16)}`;
    let limited = false;
    const server = await startHostileServer((req, res) => {
      if (req.path !== '/v1/usage') return json(res, 404, { error: 'not found' });
      if (req.headers.authorization !== `Bearer ${SK}`) return json(res, 401, { error: 'Invalid API key' });
      if (limited) {
        res.writeHead(429, { 'content-type': 'application/json', 'retry-after': '30' }).end(JSON.stringify({ error: 'Too many requests' }));
        return;
      }
      json(res, 200, keyInfoExample);
    });
    const env = cli.home.env({ KEYDECK_BASE_URL: server.url, KEYDECK_SK: SK });
    try {
      // Thirteen reads in a row: all sent (no page says /v1/usage counts against the 12 per 12 hours).
      for (let i = 0; i < 13; i++) {
        const r = await runCli(['key-info'], { env });
        expect(r.code, r.stderr).toBe(0);
        if (i === 0) {
          expect(r.stdout).toMatch(new RegExp(`^key\\s+${SK.slice(0, 11)}… "prod-key" · subscription key`, 'm'));
          expect(r.stdout).toMatch(/^figures\s+read just now$/m);
        }
        expect(`${r.stdout}${r.stderr}`).not.toContain(SK);
      }
      expect(server.requests.filter((q) => q.path === '/v1/usage')).toHaveLength(13);
      // The service's own 429: the kept answer, with its age and the wait; no read until it is over.
      limited = true;
      const waited = await runCli(['key-info'], { env });
      expect(waited.code, waited.stderr).toBe(0);
      expect(waited.stderr).toMatch(/could not read new figures \(.*too many requests/i);
      expect(waited.stdout).toMatch(/^figures\s+from just now · the service asked to wait: the next read is allowed in (30|29) s$/m);
      const again = await runCli(['key-info', '--json'], { env });
      expect(again.code, again.stderr).toBe(0);
      expect(JSON.parse(again.stdout).derived).toMatchObject({ fresh: false, nextReadAt: expect.any(String) });
      expect(server.requests.filter((q) => q.path === '/v1/usage')).toHaveLength(14);
    } finally {
      await server.close();
    }
  });
});
