/**
 * `keydeck keys show ID|NAME [--json]` and the `limits` of `keys list --json`,
 * the built CLI against the sandbox in the newer pages' dialect: a pool key (its pledge, its
 * blocks, where it stands in them, its limits per the pages), a legacy plan's key (its limits per
 * The service's own `GET /api/plans`), a credit key (its spend from the last usage answer kept,
 * no read spent), a name two keys share, and a name no key has.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestSandbox, type TestSandbox } from '../sandbox/helpers.js';
import { scripted, type Scripted } from './scripted.js';

let sb: TestSandbox;
let cli: Scripted;
beforeAll(async () => {
  sb = await startTestSandbox({ dialect: 'docs-v2' });
  cli = scripted(sb.url);
});
afterAll(async () => {
  cli?.home.remove();
  await sb?.close();
});

/** A credit key of `token` (the newer dialect envelopes every /api/* answer). */
async function creditKey(token: string, name: string): Promise<{ id: string; apiKey: string }> {
  const made = (await sb.creditKey(token, name)) as unknown as { data: { id: string; apiKey: string } };
  return made.data;
}

describe('keydeck keys show', { timeout: 60_000 }, () => {
  it('a pool key: its pledge and blocks, where it stands in them now, and its limits per the pages', async () => {
    const token = await sb.newUser();
    const pledge = (await sb.call('POST', '/sandbox/subscriptions', { token, body: { pool: 'kimi26', blocks: ['europe'] } })).body.id as string;
    const minted = await sb.call('POST', '/api/keys/subscription', { token, body: { name: 'pool-prod', subscriptionId: pledge } });
    expect(minted.status).toBe(200);
    const hour = new Date((await sb.call('POST', '/sandbox/clock', { body: { advanceSeconds: 0 } })).body.now).getUTCHours();
    const inside = hour >= 8 && hour < 16;

    const human = await cli.run(token, ['keys', 'show', 'pool-prod']);
    expect(human.code, human.stderr).toBe(0);
    expect(human.stdout).toMatch(/^type\s+subscription key · plan pool$/m);
    expect(human.stdout).toMatch(inside ? /^status\s+active · in block europe, \d+ (h|min) left$/m : /^status\s+active · outside its blocks: next europe in \d+ (h|min)$/m);
    expect(human.stdout).toMatch(new RegExp(`^pledge\\s+${pledge} · blocks europe`, 'm'));
    expect(human.stdout).toMatch(/^renewal\s+with its pledge: renewed each period \(keydeck billing cancel stops it\)$/m);
    expect(human.stdout).toMatch(/^limits\s+in its blocks only, unlimited, 1 concurrent \(the service’s docs\)$/m);
    expect(human.stdout).not.toMatch(/new payment/);

    const json = await cli.run(token, ['keys', 'show', 'pool-prod', '--json']);
    expect(json.code, json.stderr).toBe(0);
    const doc = JSON.parse(json.stdout);
    expect(doc).toMatchObject({
      name: 'pool-prod',
      keyPlan: 'pool',
      limits: { requestsPerMinute: null, tokensPerMinute: null, concurrentRequests: 1, onlyInBlocks: true, source: 'pages' },
      details: { status: 'active', pledge, blocks: ['europe'], reservedHours: { inside } },
    });
    expect(doc).not.toHaveProperty('apiKey');
  });

  it('a legacy plan’s key: its limits per the service’s own GET /api/plans, the service’s limits for the rest; by id as by name', async () => {
    const token = await sb.newUser();
    const sub = await sb.subscription(token, 'standard');
    const r = await cli.run(token, ['keys', 'show', sub.id, '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).limits).toEqual({
      requestsPerMinute: 60,
      tokensPerMinute: 3333,
      concurrentRequests: 2,
      onlyInBlocks: false,
      boundedByBalance: false,
      source: 'plans',
      sources: { requestsPerMinute: 'plans', tokensPerMinute: 'plans', concurrentRequests: 'spec' },
    });
    const human = await cli.run(token, ['keys', 'show', sub.id]);
    expect(human.stdout).toMatch(/^limits\s+60 req\/min, 3,333 tok\/min \(the service’s plans\); 2 concurrent \(the service’s published limits\)$/m);
    expect(human.stdout).toMatch(/^expires\s+\d{4}-\d\d-\d\d \d\d:\d\d UTC · (29|30) days of paid time left$/m);
    // A key of the spec's model is its own subscription (the sandbox's newer dialect names it): no pledge is made up.
    expect(human.stdout).not.toMatch(/^pledge/m);
  });

  it('a credit key: its spend from the last usage answer kept (none spent by show), and every listed key carries its limits', async () => {
    const token = await sb.fundedUser(20);
    const key = await creditKey(token, 'batch');
    const before = await cli.run(token, ['keys', 'show', 'batch']);
    expect(before.code, before.stderr).toBe(0);
    expect(before.stdout).toMatch(/^spend\s+no usage answer kept yet: keydeck keys usage reads one/m);
    expect(before.stdout).toMatch(/^expires\s+never \(credit keys never expire while a balance remains\)$/m);
    const served = async () => (await sb.call('GET', '/sandbox/usage/calls')).body.allTime.served as number;
    await sb.infer(key.apiKey, { sandbox_cost_usd: 1.25 });
    expect((await cli.run(token, ['keys', 'usage'])).code).toBe(0);
    const reads = await served();
    const after = await cli.run(token, ['keys', 'show', key.id]);
    expect(after.code, after.stderr).toBe(0);
    expect(after.stdout).toMatch(/^spend\s+24 h \$1\.25 · 7 d \$1\.25 · 30 d \$1\.25 · all time \$1\.25 \(as of just now\); draws on the shared credit balance$/m);
    expect(await served()).toBe(reads);

    const list = await cli.run(token, ['keys', 'list', '--json']);
    expect(list.code, list.stderr).toBe(0);
    expect(JSON.parse(list.stdout)).toEqual([
      expect.objectContaining({ id: key.id, limits: expect.objectContaining({ requestsPerMinute: 60, tokensPerMinute: null, boundedByBalance: true, source: 'pages' }) }),
    ]);
  });

  it('a name two keys share names their ids; a name no key has says so (exit 1)', async () => {
    const token = await sb.fundedUser(20);
    const a = await creditKey(token, 'twin');
    const b = await creditKey(token, 'twin');
    const twin = await cli.run(token, ['keys', 'show', 'twin']);
    expect(twin.code).toBe(1);
    expect(twin.stderr).toMatch(/^keydeck: ambiguous: 2 keys are named "twin": name one by its id/m);
    // Each candidate by id, with its status and creation date.
    expect(twin.stderr).toContain(`${a.id} (active, created `);
    expect(twin.stderr).toContain(`${b.id} (active, created `);
    const none = await cli.run(token, ['keys', 'show', 'nobody']);
    expect(none.code).toBe(1);
    expect(none.stderr).toMatch(/^keydeck: not_found: no key has the id or name "nobody" \(keydeck keys list\); nothing was changed\.\n$/m);
  });
});
