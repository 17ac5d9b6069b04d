/**
 * The `--on-guardrail` hook (src/terminal/notify.ts): its figures in its environment, none of
 * keydeck's secrets there (the one filter, ./secretEnv.ts), waited for, its failure one sentence.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { onGuardrailEnvironment, runUserHook } from '../../src/terminal/notify.js';

const dir = mkdtempSync(path.join(tmpdir(), 'keydeck-hook-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the guardrail hook', () => {
  it('hears the figures in its environment and never a key value', async () => {
    const out = path.join(dir, 'env');
    const secrets = { KEYDECK_TOKEN: 'mk_0123456789abcdefghij', KEYDECK_TOKEN_PROD: 'x', OPENAI_API_KEY: 'sk_live_0123456789abcdefghij', SHELL: '/bin/sh', PATH: process.env.PATH };
    const notice = {
      what: 'disabled',
      rule: 'budget',
      action: 'disable',
      key: { id: 'k_1', name: 'web\u001b[2J' },
      period: 'day',
      limitUsd: 5,
      spentUsd: 6.129,
      overshootUsd: 0.3,
      until: '2026-05-11T00:00:00.000Z',
    };
    const problem = await runUserHook('--on-guardrail', `env > ${out}`, onGuardrailEnvironment(notice, 'prod', 'https://api.example.com', secrets), { env: secrets });
    expect(problem).toBeUndefined();
    const env = Object.fromEntries(
      readFileSync(out, 'utf8')
        .trim()
        .split('\n')
        .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
    );
    expect(env).toMatchObject({
      KEYDECK_EVENT: 'guardrail',
      KEYDECK_GUARDRAIL: 'disabled',
      KEYDECK_GUARDRAIL_RULE: 'budget',
      KEYDECK_GUARDRAIL_ACTION: 'disable',
      KEYDECK_PROFILE: 'prod',
      KEYDECK_KEY_ID: 'k_1',
      KEYDECK_PERIOD: 'day',
      KEYDECK_LIMIT_USD: '5.00',
      KEYDECK_SPENT_USD: '6.12',
      KEYDECK_OVERSHOOT_USD: '0.30',
      KEYDECK_UNTIL: '2026-05-11T00:00:00.000Z',
    });
    expect(env.KEYDECK_KEY_NAME).not.toContain('\u001b');
    expect(Object.keys(env).filter((k) => ['KEYDECK_TOKEN', 'KEYDECK_TOKEN_PROD', 'OPENAI_API_KEY'].includes(k))).toEqual([]);
    expect(readFileSync(out, 'utf8')).not.toMatch(/[ms]k_[0-9a-z_]{16,}/);
  });

  it('says a failure in one sentence', async () => {
    expect(await runUserHook('--on-guardrail', 'exit 3', {}, { env: { SHELL: '/bin/sh', PATH: process.env.PATH } })).toBe('--on-guardrail exited with 3');
  });
});
