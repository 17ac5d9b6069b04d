/**
 * The policy file (src/config/policyFile.ts): the form is read, JSON too; every problem
 * names the file, its line and the field; the file is trusted as keydeck's own files are.
 */
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parsePolicy, PolicyFileError, readPolicyFile } from '../../src/config/policyFile.js';

const dir = mkdtempSync(path.join(tmpdir(), 'keydeck-policy-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The problem `parsePolicy` throws for `text`. */
function problem(text: string): string {
  try {
    parsePolicy(text, 'keydeck.policy.yaml');
  } catch (err) {
    expect(err).toBeInstanceOf(PolicyFileError);
    return (err as Error).message;
  }
  throw new Error('no problem found');
}

describe('the policy file', () => {
  it("reads the issue's form: keys with destinations, budget and max age", () => {
    const policy = parsePolicy(
      [
        'keys:',
        '  - name: web',
        '    type: credit',
        '    to: [".env:OPENAI_API_KEY"]          # the destinations of --to-file / --to-command',
        '    budget: { limit: 5, period: day, action: disable, thresholds: [0.8, 0.95] }',
        '    maxAge: 90d',
        '  - name: batch',
        '    to: [{ command: "gh secret set BATCH_KEY" }]',
        'budgets:',
        '  - { match: "ci-*", limit: 20, period: week }',
        'account: { alertBelow: 5, autoTopUp: off }',
      ].join('\n'),
      'keydeck.policy.yaml',
    );
    expect(policy.keys[0]).toEqual({
      name: 'web',
      type: 'credit',
      to: [{ file: '.env:OPENAI_API_KEY' }],
      budget: { limit: 5, period: 'day', action: 'disable', thresholds: [0.8, 0.95] },
      maxAgeSeconds: 90 * 86_400,
      line: 2,
    });
    expect(policy.keys[1]!.to).toEqual([{ command: 'gh secret set BATCH_KEY' }]);
    // A budget without an action warns.
    expect(policy.budgets[0]).toMatchObject({ match: 'ci-*', action: 'warn' });
    expect(policy.account).toEqual({ alertBelow: 5, autoTopUp: 'off' });
  });

  it('reads JSON the same way', () => {
    const policy = parsePolicy('{ "keys": [{ "name": "web", "budget": { "limit": 5, "period": "month" } }] }', 'p.json');
    expect(policy.keys[0]!.budget).toEqual({ limit: 5, period: 'month', action: 'warn' });
  });

  it('names the line, the column and the field of each problem', () => {
    expect(problem('keys:\n  - name: web\n    budget: { limit: -5, period: day }\n')).toBe('keydeck.policy.yaml:3:22: keys[0].budget.limit: must be above 0');
    expect(problem('keys:\n  - name: web\n    budget: { limit: 5, period: fortnight }\n')).toMatch(/^keydeck\.policy\.yaml:3:33: keys\[0\]\.budget\.period: must be day, week, month/);
    expect(problem('keys:\n  - name: web\n    maxAge: 90\n')).toMatch(/^keydeck\.policy\.yaml:3:13: keys\[0\]\.maxAge: must be a duration with its unit/);
    // An unknown field (a typo) is refused where it stands.
    expect(problem('keys:\n  - name: web\n    budegt: { limit: 5 }\n')).toMatch(/^keydeck\.policy\.yaml:2:5: keys\[0\]: Unrecognized key: "budegt"/);
    expect(problem('keys:\n  - name: web\n  - name: web\n')).toMatch(/^keydeck\.policy\.yaml:3:11: keys\[1\]\.name: "web" is named twice/);
    expect(problem('keys:\n  - name: s\n    type: subscription\n    expiresIn: 30d\n')).toMatch(/:4:16: keys\[0\]\.expiresIn: only a credit key expires by rule/);
    expect(problem('keys: [\n')).toMatch(/^keydeck\.policy\.yaml:\d+:\d+: not YAML or JSON/);
    expect(problem('keys:\n  - name: web\n    to: ".env"\n')).toMatch(/^keydeck\.policy\.yaml:3:9: keys\[0\]\.to: /);
  });

  it("is read only when it is the user's and no one else may write it (it says where keys go)", async () => {
    const file = path.join(dir, 'keydeck.policy.yaml');
    writeFileSync(file, 'keys: []\n', { mode: 0o600 });
    await expect(readPolicyFile('keydeck.policy.yaml', dir)).resolves.toMatchObject({ path: file, dir, keys: [] });
    chmodSync(file, 0o666);
    await expect(readPolicyFile(file)).rejects.toMatchObject({ code: 'policy_untrusted', message: expect.stringMatching(/^the policy file .* is writable by group or others \(mode 0666\)/) });
    await expect(readPolicyFile(path.join(dir, 'none.yaml'))).rejects.toMatchObject({ code: 'policy_missing' });
  });
});
