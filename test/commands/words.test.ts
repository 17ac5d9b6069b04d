/**
 * Words that say what is true: `autotopup set` names as defaults only the caps it was not given;
 * `billing credits` against the older pages' dialect (no `userId` sent) does not say "none until
 * the first top-up" beside a total of top-ups; the key details keep "last used" whole at 80
 * columns (test/tui for the panes).
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { keyDetailLines } from '../../src/tui/components/KeyDetails.js';
import { makeTempHome, runCli } from '../credentials/harness.js';
import { startTestSandbox } from '../sandbox/helpers.js';

describe('autotopup set', () => {
  it('says only the caps it was not given are defaults', async () => {
    const home = makeTempHome();
    try {
      const env = home.env({ KEYDECK_DATA_DIR: path.join(home.home, 'data') });
      const day = await runCli(['--sandbox', 'autotopup', 'set', '--below', '20', '--amount', '30', '--max-per-day', '100', '--yes'], { env });
      expect(day.code, day.stderr).toBe(0);
      expect(day.stdout).toContain('The month cap, not given, is the default (the largest charge 10 times a month); --max-per-month changes it.');
      expect(day.stdout).not.toContain('times a day');
      const none = await runCli(['--sandbox', 'autotopup', 'set', '--below', '20', '--amount', '30', '--yes'], { env });
      expect(none.stdout).toContain(
        'The day cap and the month cap, not given, are the defaults (the largest charge 2 times a day and the largest charge 10 times a month); --max-per-day and --max-per-month change them.',
      );
      const both = await runCli(['--sandbox', 'autotopup', 'set', '--below', '20', '--amount', '30', '--max-per-day', '60', '--max-per-month', '300', '--yes'], { env });
      expect(both.stdout).not.toMatch(/default/);
    } finally {
      home.remove();
    }
  });
});

describe('billing credits', () => {
  it('against the older pages (no userId sent): says the service sends none, beside a total of top-ups', async () => {
    const sandbox = await startTestSandbox({ dialect: 'docs-v1' });
    const home = makeTempHome();
    try {
      const r = await runCli(['billing', 'credits'], { env: home.env({ KEYDECK_TOKEN: sandbox.token, KEYDECK_BASE_URL: sandbox.url }) });
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toMatch(/^totalTopUp\s+125\.00 USD$/m);
      expect(r.stdout).toMatch(/^userId\s+\(not sent by this service\)$/m);
      expect(r.stdout).not.toContain('none until the first top-up');
    } finally {
      home.remove();
      await sandbox.close();
    }
  });
});

describe('the key details at 80 columns', () => {
  it('keep "last used" whole (the plan left out first)', () => {
    const now = Date.now();
    const key = {
      id: 'k1',
      name: 'batch-jobs',
      keyPlan: 'credits',
      keyType: 'credit',
      isActive: true,
      createdAt: new Date(now - 3 * 86_400_000).toISOString(),
      lastUsedAt: new Date(now - 5 * 3_600_000).toISOString(),
    };
    const [, line] = keyDetailLines(key, now, undefined, undefined, undefined, 60);
    expect(line).toMatch(/ · last used 5 h ago$/);
    expect(line!.length).toBeLessThanOrEqual(60);
  });
});
