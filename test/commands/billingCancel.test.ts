/**
 * `keydeck billing cancel SUBSCRIPTION_ID [--yes] [--json]`, the built CLI
 * against the sandbox in the newer and the older pages' dialects: the cancel is sent once and the
 * status then says `cancel at period end: yes`; without `--yes` and a terminal nothing is sent;
 * an id the status does not list, and one already cancelled, send nothing. Against a local server
 * whose status still says "renews" after the cancel: exit 1 `not_confirmed`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newerStatus } from '../api/docs-examples.js';
import { json, startHostileServer } from '../api/hostile-server.js';
import { startTestSandbox, type TestSandbox } from '../sandbox/helpers.js';
import { scripted, type Scripted } from './scripted.js';

for (const dialect of ['docs-v2', 'docs-v1'] as const) {
  describe(`keydeck billing cancel (${dialect})`, { timeout: 60_000 }, () => {
    let sb: TestSandbox;
    let cli: Scripted;
    beforeAll(async () => {
      sb = await startTestSandbox({ dialect });
      cli = scripted(sb.url);
    });
    afterAll(async () => {
      cli?.home.remove();
      await sb?.close();
    });

    /** A fresh user with one pool pledge; its token and the pledge's id. */
    async function pledged(): Promise<{ token: string; id: string }> {
      const token = await sb.newUser();
      const p = await sb.call('POST', '/sandbox/subscriptions', { token, body: { pool: 'kimi26', blocks: ['europe'] } });
      expect(p.status).toBe(200);
      return { token, id: p.body.id as string };
    }

    it('sends the cancel once, and the status then says cancel at period end: yes', async () => {
      const { token, id } = await pledged();
      const before = await cli.run(token, ['billing', 'status']);
      expect(before.stdout).toContain('cancel at period end: no');
      const r = await cli.run(token, ['billing', 'cancel', id, '--yes']);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toMatch(
        new RegExp(`^Cancelled the renewal of the (pool pledge kimi26 \\(europe\\)|subscription kimi26), id ${id}: it stays active until \\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d UTC, then ends\\.\\n$`),
      );
      const after = await cli.run(token, ['billing', 'status']);
      expect(after.stdout).toContain('cancel at period end: yes');
      // Its key says so too.
      await sb.call('POST', '/api/keys/subscription', { token, body: { name: 'night', subscriptionId: id } });
      expect((await cli.run(token, ['keys', 'show', 'night'])).stdout).toMatch(/^renewal\s+none: its pledge’s renewal was cancelled, so it ends with the period$/m);
      // Again: nothing is sent, and it says so.
      const again = await cli.run(token, ['billing', 'cancel', id, '--yes', '--json']);
      expect(again.code, again.stderr).toBe(0);
      expect(JSON.parse(again.stdout)).toMatchObject({ answer: null, subscription: { id, cancelAtPeriodEnd: true } });
    });

    it('without --yes and without a terminal nothing is sent (exit 2); an id the status does not list is refused before sending (exit 1)', async () => {
      const { token, id } = await pledged();
      const unasked = await cli.run(token, ['billing', 'cancel', id]);
      expect(unasked.code).toBe(2);
      expect(unasked.stderr).toContain(
        `confirmation_required: stdin is not a terminal, so no confirmation can be asked and nothing was changed; to proceed run \`keydeck billing cancel ${id} --yes\``,
      );
      expect((await cli.run(token, ['billing', 'status'])).stdout).toContain('cancel at period end: no');
      const unknown = await cli.run(token, ['billing', 'cancel', 'pledge-that-is-not-there', '--yes']);
      expect(unknown.code).toBe(1);
      expect(unknown.stderr).toMatch(/subscription_unknown: the billing status lists no subscription or pool pledge with id pledge-that-is-not-there .*nothing was sent/);
      const bad = await cli.run(token, ['billing', 'cancel', 'a/b', '--yes']);
      expect(bad.code).toBe(2);
      expect(bad.stderr).toMatch(/invalid_request: SUBSCRIPTION_ID: subscriptionId must be letters/);
    });
  });
}

describe('keydeck billing cancel against a service whose status disagrees', { timeout: 60_000 }, () => {
  it('the service accepts the cancel but its status still says it renews: exit 1 not_confirmed, sent once', async () => {
    const server = await startHostileServer((req, res) => {
      if (req.path === '/api/billing/status') {
        const renewing = structuredClone(newerStatus);
        renewing.data.poolPledges[0]!.cancelAtPeriodEnd = false;
        return json(res, 200, renewing);
      }
      if (req.path === '/api/billing/cancel') return json(res, 200, { success: true });
      return json(res, 404, { error: 'not found' });
    });
    const cli = scripted(server.url);
    try {
      const r = await cli.run('session-token', ['billing', 'cancel', 'pledge_uuid', '--yes']);
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(/not_confirmed: the service accepted the cancel, but its billing status still says the pool pledge kimi26, id pledge_uuid renews at its period end/);
      const sent = server.requests.filter((q) => q.path === '/api/billing/cancel');
      expect(sent).toHaveLength(1);
      expect(JSON.parse(sent[0]!.body)).toEqual({ subscriptionId: 'pledge_uuid' });
    } finally {
      cli.home.remove();
      await server.close();
    }
  });
});
