/**
 * A new user's first hour on screen, the built app in a pseudo-terminal at 80×24 and
 * 100×30, `keydeck --sandbox` on a fresh data dir with two hours of balance history: the setup's
 * wrapped lines keep their indent; the Keys pane's lines (and a new key's spend cells) are whole;
 * the Billing pane draws its chart with no rows left blank and its burn rates whole; `?` opens at
 * the pane's keys; the USDC walk-through's QR words and the credited hash are whole; the pools'
 * seats are whole. A line the screen means to show that is cut or missing fails the test.
 */
import { writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { BalanceHistoryStore } from '../../src/billing/historyStore.js';
import type { PtyApp } from './pty.js';
import { cleanEnv, e2eRig, DEMO_BALANCE } from './session.js';

const rig = e2eRig();

/** Lines that end in a cut: "…" right after a character, at the end or before a border. */
function cutLines(screen: readonly string[]): string[] {
  return screen.filter((l) => /\S…\s*[│╮╯]?\s*$/.test(l));
}

/** The longest run of empty lines between rows `from` and `to` (inclusive). */
function longestBlankRun(screen: readonly string[], from: number, to: number): number {
  let longest = 0;
  let run = 0;
  for (let i = from; i <= to; i++) {
    run = (screen[i] ?? '').trim() === '' ? run + 1 : 0;
    longest = Math.max(longest, run);
  }
  return longest;
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as { port: number };
  await new Promise<void>((r) => server.close(() => r()));
  return port;
}

/** A fresh user's environment with two hours of readings of the sandbox profile at the port it will start on. */
async function withHistory(dir: string): Promise<NodeJS.ProcessEnv> {
  const env = cleanEnv(dir);
  const port = await freePort();
  writeFileSync(`${env.KEYDECK_SANDBOX_DB}.port`, `${port}\n`);
  const store = BalanceHistoryStore.open({ path: path.join(env.KEYDECK_DATA_DIR!, 'history.db') });
  try {
    const series = store.series('sandbox', `http://127.0.0.1:${port}`);
    const now = Date.now();
    for (let t = now - 2 * 3_600_000; t < now - 60_000; t += 60_000) series.append({ t, remaining: 84.2 + ((now - t) / 3_600_000) * 1.5, totalTopUp: 125 });
  } finally {
    store.close();
  }
  return env;
}

for (const [columns, rows] of [
  [80, 24],
  [100, 30],
] as const) {
  describe(`keydeck --sandbox at ${columns}×${rows}`, () => {
    it('shows every line it means to show whole, and leaves no rows blank', { timeout: 120_000 }, async () => {
      const env = await withHistory(rig.tempDir('keydeck-e2e-first-hour-'));
      const app: PtyApp = rig.start({ args: ['--sandbox'], env, columns, rows });
      const whole = (where: string) => expect(cutLines(app.screen()), `${where}:\n${app.screenText()}`).toEqual([]);

      // The demo account opens by itself; its setup (S): the choices' descriptions keep their indent when they wrap.
      await app.waitFor('demo session token (kept in the data dir)', 20_000);
      app.write('S');
      await app.waitFor('Press enter to use the sandbox’s demo session token', 20_000);
      app.write('\r');
      await app.waitFor('Where to keep the key');
      const choices = app.screen();
      const first = choices.findIndex((l) => l.includes('1  Store it in a plaintext file'));
      const last = choices.findIndex((l) => l.includes('3  Quit, and set KEYDECK_TOKEN myself'));
      for (const line of choices.slice(first + 1, last + 3).filter((l) => l.trim() !== '' && !/^\S*\s*[123] {2}/.test(l.replace('▶', ' ')))) {
        // Under its own description's column (Ink keeps the space a line was broken at).
        expect(line, choices.join('\n')).toMatch(/^ {5}\S/);
      }
      whole('setup');
      app.write('2');
      await app.waitFor('batch-jobs');
      await app.waitFor(`${DEMO_BALANCE} left`);
      await app.waitFor((s) => !s.includes('setup done'), 20_000);

      // Keys: the details panel says its limits and budget whole. The budget comes with the first
      // usage read, which can land after the panel is drawn (before it: "usage not read yet").
      await app.waitFor('limits: 60 req/min');
      await app.waitFor('max_budget $125.00', 20_000);
      expect(app.screenText()).toMatch(/budget: the shared balance, max_budget \$125\.00/);
      whole('Keys');

      // A new key: its spend cells say "—" (not read yet), never blank.
      app.write('n');
      await app.waitFor('a new credit key');
      app.write('j\r');
      await app.waitFor('New credit key');
      app.write('fresh\r');
      await app.waitFor('Where should the new key');
      app.write('\r');
      await app.waitFor('I have saved it');
      app.write('y');
      // The whole row, as many cells as the table's top border: a screen read while the frame is
      // being written can hold half of it.
      await app.waitFor((s) => {
        const lines = s.split('\n');
        const top = lines.find((l) => l.includes('┌'));
        const fresh = lines.find((l) => /│ ▶ fresh/.test(l));
        return top !== undefined && fresh !== undefined && fresh.trimEnd().endsWith('│') && fresh.split('│').length === top.split('┬').length + 2;
      });
      const row = app.screen().find((l) => /│ ▶ fresh/.test(l))!;
      expect(
        row
          .split('│')
          .slice(-3, -1)
          .map((c) => c.trim()),
      ).toEqual(['—', '—']);

      // Billing: the chart is drawn, the burn rates are whole, nothing is left blank.
      app.write('3');
      await app.waitFor('top spenders');
      await app.waitFor(/burn 15 min \$\d+\.\d\d\/h/, 20_000);
      await app.waitFor('└');
      const billing = app.screen();
      expect(billing.join('\n')).toMatch(/\$\d+\.\d\d ┤/);
      expect(billing.join('\n')).toMatch(/-24h .* now/);
      expect(longestBlankRun(billing, 3, rows - 3), billing.join('\n')).toBeLessThanOrEqual(1);
      whole('Billing');

      // Help: opens at the Billing pane's keys, nothing cut.
      app.write('?');
      await app.waitFor(/Key bindings \d+–\d+ of \d+/);
      const help = app.screen();
      const top = help.findIndex((l) => l.includes('Key bindings'));
      expect(help[top + 1]).toMatch(/│ Billing pane \(3\) +│/);
      whole('help');
      app.write('\x1b');
      await app.waitFor('top spenders');

      // The USDC walk-through: the QR view's words whole, the credited hash whole.
      app.write('t');
      await app.waitFor('amount USD:');
      app.write('30');
      await app.waitFor(/amount USD: 30 *│/);
      app.write('\r');
      await app.waitFor('2/3 method');
      app.write('u\r');
      await app.waitFor(/To address\s+0x[0-9a-fA-F]{40}/);
      whole('USDC step');
      app.write('v');
      await app.waitFor((s) => s.replace(/\s+/g, ' ').includes('v or esc back'));
      expect(app.screenText().replace(/\s+/g, ' ')).toMatch(
        columns === 80 ? /The QR code needs \d+×\d+ cells; this area is \d+×\d+: enlarge the terminal\. v or esc back/ : /Scan with a wallet: 30 USDC .*on Base to 0x[0-9a-fA-F]{40} · v or esc back/,
      );
      whole('QR');
      app.write('v');
      await app.waitFor('s simulate');
      app.write('s');
      await app.waitFor((s) => s.replace(/\s+/g, ' ').includes('press enter to verify it'));
      whole('hash filled in');
      app.write('\r');
      await app.waitFor('Credited $30.00', 20_000);
      expect(app.screenText()).toMatch(/^\s*│?\s*0x[0-9a-f]{64}\s*│?\s*$/m);
      expect(app.screenText().replace(/[│\s]+/g, ' ')).toContain('How keydeck knows: the service’s answer to verifying this transaction hash says it was credited.');
      whole('credited');
      app.write('\r');
      await app.waitFor('recent top-ups (1)');

      // Pools: one pool's seats whole.
      app.write('p');
      await app.waitFor('pools (GET /api/pools)');
      await app.waitFor('kimi26');
      app.write('\r');
      await app.waitFor('free seats by UTC hour');
      expect(
        app
          .screen()
          .filter((l) => /of \d+ fr/.test(l))
          .every((l) => /\d+ of \d+ free/.test(l)),
      ).toBe(true);
      whole('pool');
      app.write('q');
    });
  });
}
