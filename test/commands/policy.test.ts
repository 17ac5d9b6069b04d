/**
 * `keydeck plan` and `keydeck apply` as the built CLI against the sandbox (docs/guardrails.md):
 * - a key with `limit: 5, period: day, action: disable` that spends $6 is disabled after the next
 *   usage read (`keys list --json` shows it inactive with the guardrail's reason), its hook ran
 *   once per threshold, and it is active again once the sandbox clock crosses UTC midnight;
 * - `plan` on a file naming three keys, one missing and one past `maxAge`, lists exactly those two
 *   changes and exits 2; `apply --yes` makes them (the new key delivered to its destination); a
 *   second `plan` exits 0; a key the file does not name is left alone and listed;
 * - two `apply --once` processes at once act once: each threshold is said once;
 * - a plan that cannot be made exits 1, never 2 (which means changes).
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parse } from 'dotenv';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTempHome, runCli, type CliResult } from '../credentials/harness.js';
import { startTestSandbox } from '../sandbox/helpers.js';

let root: string;
beforeAll(() => {
  root = mkdtempSync(path.join(tmpdir(), 'keydeck-policy-cmd-'));
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** A world: its own sandbox (the tests move its clock), a funded user, a home, an app directory with the policy file. */
async function world(policy: string) {
  const sb = await startTestSandbox();
  const token = await sb.fundedUser(50);
  const home = makeTempHome();
  const app = mkdtempSync(path.join(root, 'app-'));
  const file = path.join(app, 'keydeck.policy.yaml');
  writeFileSync(file, policy, { mode: 0o600 });
  const env = home.env({ KEYDECK_BASE_URL: sb.url, KEYDECK_TOKEN: token, KEYDECK_DATA_DIR: path.join(home.home, 'data') });
  const run = (args: string[], runner?: 'process'): Promise<CliResult> =>
    runCli([...args, ...(['plan', 'apply'].includes(args[0]!) ? ['--file', file] : [])], { env, timeoutMs: 60_000, ...(runner && { runner }) });
  const keys = async () => {
    const r = await sb.call('GET', '/api/keys', { token });
    return r.body as Array<{ id: string; name: string; isActive: boolean }>;
  };
  const dotenv = () => (existsSync(path.join(app, '.env')) ? parse(readFileSync(path.join(app, '.env'), 'utf8')) : {});
  /** Moves the sandbox clock to the next `HH:MM` UTC (or that many days on); returns the new time. */
  const clockTo = async (hhmm: string, days = 1) => {
    const now = Date.parse((await sb.call('POST', '/sandbox/clock', { body: { advanceSeconds: 0 } })).body.now);
    const d = new Date(now);
    const target = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate() + days, Number(hhmm.slice(0, 2)), Number(hhmm.slice(3)));
    await sb.advance(Math.round((target - now) / 1000));
    return target;
  };
  /** The key value `value` works on the service (`GET /v1/usage` answers for an active key). */
  const works = async (value: string | undefined) => value !== undefined && (await sb.call('GET', '/v1/usage', { token: value })).status === 200;
  const dispose = async () => {
    await sb.close();
    home.remove();
  };
  return { sb, token, home, app, file, env, run, keys, dotenv, clockTo, works, dispose };
}

describe('a budget that disables', () => {
  it('disables a key that spent $6 of $5 at the next usage read, runs the hook once per threshold, and re-enables it after UTC midnight', { timeout: 120_000 }, async () => {
    const w = await world('keys:\n  - name: web\n    to: [".env:OPENAI_API_KEY"]\n    budget: { limit: 5, period: day, action: disable }\n');
    try {
      const hookLog = path.join(w.app, 'hook.log');
      const hook = ['--on-guardrail', `printf '%s %s %s\\n' "$KEYDECK_GUARDRAIL" "$KEYDECK_THRESHOLD" "$KEYDECK_SPENT_USD" >> ${hookLog}`];
      const midnight = (await w.clockTo('01:00')) + 23 * 3_600_000;
      const made = await w.run(['apply', '--yes']);
      expect(made.code, made.stderr).toBe(0);
      const key = w.dotenv().OPENAI_API_KEY!;
      expect(await w.works(key)).toBe(true);
      expect((await w.sb.infer(key, { sandbox_cost_usd: 6 })).status).toBe(200);
      // The next usage read the schedule allows (72 minutes after apply's own).
      await w.sb.advance(2 * 3600);
      const once = await w.run(['apply', '--once', ...hook]);
      expect(once.code, once.stderr).toBe(0);
      expect(once.stdout).toMatch(
        /^disabled "web": it spent \$6\.00 of its \$5\.00 budget today; it comes back at \d{4}-\d\d-\d\d 00:00 UTC; `keydeck keys enable \S+` brings it back now, and wins until then$/m,
      );
      expect(readFileSync(hookLog, 'utf8')).toBe('threshold 0.8 6.00\nthreshold 0.95 6.00\ndisabled  6.00\n');
      const listed = JSON.parse((await w.run(['keys', 'list', '--json'])).stdout).find((k: { name: string }) => k.name === 'web');
      expect(listed).toMatchObject({ isActive: false, guardrail: { reason: 'budget', limitUsd: 5, period: 'day', until: new Date(midnight).toISOString() } });
      expect(await w.works(key)).toBe(false);
      const shown = await w.run(['keys', 'show', 'web']);
      expect(shown.stdout).toMatch(/^guardrail\s+disabled by its budget until \d{4}-\d\d-\d\d 00:00 UTC \(keydeck keys enable \S+ brings it back now\)$/m);
      expect(shown.stdout).toMatch(/^guardrail\s+budget: \$6\.00 of \$5\.00 today \(120 %\); at the limit it disables the key until the period ends; resets/m);
      expect(JSON.parse((await w.run(['keys', 'show', 'web', '--json'])).stdout)).toMatchObject({
        guardrail: { reason: 'budget' },
        details: { guardrail: { budget: { limitUsd: 5, spentUsd: 6, ratio: 1.2 } } },
      });
      // Again the same day: nothing more is said or done.
      await w.sb.advance(2 * 3600);
      expect((await w.run(['apply', '--once', ...hook])).stdout).toBe('');
      expect(readFileSync(hookLog, 'utf8').split('\n').filter(Boolean)).toHaveLength(3);
      // Past UTC midnight: active again, said once.
      await w.clockTo('00:01', 1);
      const next = await w.run(['apply', '--once', ...hook]);
      expect(next.code, next.stderr).toBe(0);
      expect(next.stdout).toMatch(/^re-enabled "web": a new period began/m);
      expect(await w.works(key)).toBe(true);
      const after = JSON.parse((await w.run(['keys', 'list', '--json'])).stdout).find((k: { name: string }) => k.name === 'web');
      expect(after.isActive).toBe(true);
      expect(after.guardrail).toBeUndefined();
      // Yesterday's $6 is in the rolling 24 h still, not in the new day: not disabled again.
      await w.sb.advance(2 * 3600);
      expect((await w.run(['apply', '--once', ...hook])).code).toBe(0);
      expect(await w.works(key)).toBe(true);
      expect(readFileSync(hookLog, 'utf8').split('\n').filter(Boolean).slice(3)).toEqual(['enabled  ']);
    } finally {
      await w.dispose();
    }
  });

  it('acts once when two apply --once run at the same time (processes)', { timeout: 120_000 }, async () => {
    const w = await world('keys:\n  - name: web\n    to: [".env:K"]\n    budget: { limit: 5, period: day, action: disable, thresholds: [0.5, 0.8, 0.9, 0.95] }\n');
    try {
      const hookLog = path.join(w.app, 'hook.log');
      const hook = ['--on-guardrail', `echo "$KEYDECK_GUARDRAIL $KEYDECK_THRESHOLD" >> ${hookLog}`];
      await w.clockTo('01:00');
      expect((await w.run(['apply', '--yes'])).code).toBe(0);
      await w.sb.infer(w.dotenv().K!, { sandbox_cost_usd: 6 });
      // The figures both see: read once now (a plan spends the read the schedule allows).
      await w.sb.advance(2 * 3600);
      expect((await w.run(['plan'])).code).toBe(2);
      const runs = await Promise.all([w.run(['apply', '--once', ...hook], 'process'), w.run(['apply', '--once', ...hook], 'process')]);
      for (const r of runs) expect(r.code, r.stderr).toBe(0);
      expect(readFileSync(hookLog, 'utf8').split('\n').filter(Boolean).sort()).toEqual(['disabled ', 'threshold 0.5', 'threshold 0.8', 'threshold 0.9', 'threshold 0.95']);
      expect((await w.keys()).find((k) => k.name === 'web')?.isActive).toBe(false);
    } finally {
      await w.dispose();
    }
  });
});

describe('the account as a file', () => {
  const POLICY = ['keys:', '  - name: a', '    to: [".env:A"]', '  - name: b', '    to: [".env:B"]', '  - name: c', '    to: [".env:C"]', '    maxAge: 30d', ''].join('\n');

  it('plans exactly a missing key and one past maxAge (exit 2), applies them, and plans nothing the second time (exit 0)', { timeout: 120_000 }, async () => {
    const w = await world(POLICY);
    try {
      const first = await w.run(['apply', '--yes']);
      expect(first.code, first.stderr).toBe(0);
      expect((await w.run(['plan'])).code).toBe(0);
      const other = await w.sb.creditKey(w.token, 'not-in-the-file');
      const b = (await w.keys()).find((k) => k.name === 'b')!;
      expect((await w.sb.call('DELETE', `/api/keys/${b.id}`, { token: w.token })).status).toBe(200);
      const oldC = (await w.keys()).find((k) => k.name === 'c')!;
      const oldValue = w.dotenv().C!;
      await w.sb.advance(31 * 86_400);

      const plan = await w.run(['plan']);
      expect(plan.code, plan.stderr).toBe(2);
      const changes = plan.stdout.split('\n').filter((l) => /^ {2}[+~-] /.test(l));
      expect(changes).toEqual(['  + create "b" → .env (B)', expect.stringMatching(/^ {2}~ rotate "c": older than its maxAge; its successor → \.env \(C\), the old key deactivated$/)]);
      expect(plan.stdout).toContain(`"not-in-the-file" (id ${other.id}) is not in the file: left alone`);
      const json = JSON.parse((await w.run(['plan', '--json'])).stdout);
      expect(json.changes.map((c: { kind: string; name: string }) => `${c.kind} ${c.name}`)).toEqual(['create b', 'rotate c']);

      const applied = await w.run(['apply', '--yes']);
      expect(applied.code, applied.stderr).toBe(0);
      const env = w.dotenv();
      expect(await w.works(env.B)).toBe(true);
      expect(env.C).not.toBe(oldValue);
      expect(await w.works(env.C)).toBe(true);
      expect(await w.works(oldValue)).toBe(false);
      const keys = await w.keys();
      expect(keys.find((k) => k.id === oldC.id)).toMatchObject({ isActive: false, name: expect.stringMatching(/^c \(rotated /) });
      expect(keys.find((k) => k.id === other.id)?.isActive).toBe(true);

      const again = await w.run(['plan']);
      expect(again.code, again.stdout).toBe(0);
      expect(again.stdout).toContain('No changes: the account is as the file says.');
      expect((await w.run(['apply', '--yes'])).stdout).toContain('Nothing was changed.');
    } finally {
      await w.dispose();
    }
  });

  it('exits 1 for a plan it cannot make: a file with a mistake, two active keys of a declared name, a mistyped flag', { timeout: 60_000 }, async () => {
    const w = await world('keys:\n  - name: a\n    budget: { limit: five, period: day }\n');
    try {
      const bad = await w.run(['plan']);
      expect(bad.code).toBe(1);
      expect(bad.stderr).toMatch(/^keydeck: policy_invalid: .*keydeck\.policy\.yaml:3:22: keys\[0\]\.budget\.limit: must be an amount in USD/m);
      writeFileSync(w.file, 'keys:\n  - name: twin\n', { mode: 0o600 });
      await w.sb.creditKey(w.token, 'twin');
      await w.sb.creditKey(w.token, 'twin');
      const twins = await w.run(['plan']);
      expect(twins.code).toBe(1);
      expect(twins.stdout).toMatch(/Problem: 2 active keys are named "twin"/);
      const apply = await w.run(['apply', '--yes']);
      expect(apply.code).toBe(1);
      expect(apply.stderr).toMatch(/policy_problem: nothing was changed/);
      expect((await w.run(['plan', '--detailed'])).code).toBe(1);
    } finally {
      await w.dispose();
    }
  });
});
