/**
 * Notifications: the terminal sequence for the terminal in use, the opt-in desktop
 * notifier spawned without a shell, and `--on-low` run by the user's shell with the figures in
 * its environment only: service text in the event never reaches the command line.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createNotifier, notificationText, type NotifySteps } from '../../src/terminal/notify.js';

describe('notify', () => {
  it('names the next steps in the words of the face that sends it, and none when it gives none', () => {
    const commands: NotifySteps = { signIn: 'keydeck auth login', autoTopUpStatus: 'keydeck autotopup status', autoTopUpResume: 'keydeck autotopup resume', billingStatus: 'keydeck billing status' };
    const failed = { kind: 'auto_top_up', outcome: 'failed', amount: 30, reason: 'card declined', paused: true } as const;
    const unknown = { kind: 'auto_top_up', outcome: 'unknown', amount: 30 } as const;
    expect(notificationText(failed, 'work', commands).body).toBe('$30.00 not charged: card declined; paused after 3 failures: keydeck autotopup resume');
    expect(notificationText(unknown, 'work', commands).body).toBe('the charge of $30.00 was sent, its outcome is unknown: check the card statement (keydeck autotopup status)');
    expect(notificationText({ kind: 'key_rejected' }, 'work', commands).body).toBe('the service refused keydeck’s key: sign in again (keydeck auth login)');
    const tui: NotifySteps = { ...commands, autoTopUpStatus: 'the Billing pane' };
    expect(notificationText(unknown, 'work', tui).body).toBe('the charge of $30.00 was sent, its outcome is unknown: check the card statement (the Billing pane)');
    expect(notificationText(failed, 'work').body).toBe('$30.00 not charged: card declined; paused after 3 failures');
    expect(notificationText({ kind: 'key_rejected' }, 'work').body).toBe('the service refused keydeck’s key: sign in again');
  });

  it('writes the terminal’s notification (OSC 777 on a VTE terminal, wrapped for tmux) and the desktop one without a shell', () => {
    const written: string[] = [];
    const spawned: { cmd: string; args: readonly string[]; shell: unknown }[] = [];
    const fakeSpawn = ((cmd: string, args: readonly string[], opts: { shell?: unknown }) => {
      spawned.push({ cmd, args, shell: opts.shell });
      return { on: () => undefined, unref: () => undefined };
    }) as unknown as typeof spawn;
    const notifier = createNotifier({
      write: (s) => written.push(s),
      desktop: true,
      profile: 'work',
      origin: 'https://api.example.com',
      env: { VTE_VERSION: '7600', TMUX: '/tmp/tmux,1,0' },
      platform: 'linux',
      spawn: fakeSpawn,
    });
    notifier.notify({ kind: 'top_up_credited', amount: 25, remaining: 40, totalTopUp: 75 });
    expect(written).toEqual(['\x1bPtmux;\x1b\x1b]777;notify;keydeck: the total of top-ups rose (work);+$25.00, $40.00 left\x07\x1b\\']);
    expect(spawned).toEqual([{ cmd: 'notify-send', args: ['--app-name=keydeck', '--', 'keydeck: the total of top-ups rose (work)', '+$25.00; $40.00 left'], shell: false }]);
  });

  it('runs --on-low once per crossing with the figures in the environment, never in the command line', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'keydeck-onlow-'));
    const out = path.join(dir, 'out');
    const problems: string[] = [];
    try {
      const notifier = createNotifier({
        profile: 'work',
        origin: 'https://api.example.com',
        onLow: `printf '%s|%s|%s|%s' "$KEYDECK_EVENT" "$KEYDECK_REMAINING_USD" "$KEYDECK_THRESHOLD_USD" "$KEYDECK_PROFILE" > '${out}'`,
        env: { PATH: process.env.PATH, SHELL: '/bin/sh' },
        onProblem: (s) => problems.push(s),
      });
      notifier.notify({ kind: 'low_balance', remaining: 4.5, threshold: 5, totalTopUp: 25 });
      // Key rejected and top-ups do not run the command.
      notifier.notify({ kind: 'key_rejected', detail: '$(touch pwned)' });
      const deadline = Date.now() + 5000;
      while (Date.now() < deadline) {
        try {
          if (readFileSync(out, 'utf8').length > 0) break;
        } catch {
          // not yet
        }
        await new Promise((r) => setTimeout(r, 50));
      }
      expect(readFileSync(out, 'utf8')).toBe('low_balance|4.50|5.00|work');
      expect(problems).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('subscription time reaches the notification channels', () => {
  it('a subscription key within 3 days of its end is notified once, with its time left; amounts are cut to the cent', async () => {
    const { dueSubscriptionEvents } = await import('../../src/tui/hooks/useSubscriptionNotifications.js');
    const now = Date.parse('2026-11-23T12:00:00Z');
    const sub = (id: string, expires: string) => ({
      id,
      name: `sub ${id}`,
      keyPlan: 'standard',
      keyType: 'subscription',
      isActive: true,
      subscriptionStatus: 'active',
      subscriptionExpiresAt: expires,
      createdAt: '2026-10-25T12:00:00Z',
    });
    const keys = [sub('a', '2026-11-23T23:00:00Z'), sub('b', '2026-12-20T12:00:00Z')] as never;
    const sent = new Set<string>();
    const first = dueSubscriptionEvents(keys, now, sent);
    expect(first).toHaveLength(1);
    expect(first[0]).toMatchObject({ kind: 'subscription_expiring', keyName: 'sub a' });
    // Once per key: the next poll sends nothing more.
    expect(dueSubscriptionEvents(keys, now + 60_000, sent)).toEqual([]);

    const written: string[] = [];
    const notifier = createNotifier({ write: (s) => written.push(s), profile: 'work', origin: 'https://api.example.com', env: { TERM_PROGRAM: 'iTerm.app' }, platform: 'linux' });
    notifier.notify(first[0]!);
    expect(written.join('')).toContain('"sub a" expires in 11 h');
    expect(written.join('')).toContain('a new payment creates a new key');
    // A pool key's time is its pledge's: it renews unless cancelled.
    const pool = dueSubscriptionEvents([{ ...sub('p', '2026-11-23T23:00:00Z'), keyPlan: 'pool' }] as never, now, new Set());
    expect(pool[0]).toMatchObject({ kind: 'subscription_expiring', pool: true });
    notifier.notify(pool[0]!);
    expect(written.at(-1)).toContain('"sub p": its pledge\'s period ends in 11 h');
    expect(written.at(-1)).toContain('it renews unless cancelled');
    expect(written.at(-1)).not.toContain('new payment');
    notifier.notify({ kind: 'low_balance', remaining: 4.999, threshold: 5 });
    expect(written.join('')).toContain('$4.99 left');
    expect(written.join('')).not.toContain('$5.00 left');
  });
});

describe('runaway keys reach the notification channels', () => {
  it('says the key and its rate, names the likely key of a fast-falling balance as likely, and runs --on-anomaly with the figures in its environment only', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'keydeck-onanomaly-'));
    const out = path.join(dir, 'out');
    const written: string[] = [];
    const problems: string[] = [];
    try {
      const notifier = createNotifier({
        write: (s) => written.push(s),
        profile: 'work',
        origin: 'https://api.example.com',
        onLow: `printf low >> '${out}.low'`,
        onAnomaly: `printf '%s|%s|%s|%s|%s|%s\\n' "$KEYDECK_EVENT" "$KEYDECK_ANOMALY" "$KEYDECK_KEY_ID" "$KEYDECK_KEY_NAME" "$KEYDECK_RATE_USD_PER_HOUR" "$KEYDECK_BASELINE_USD_PER_HOUR" >> '${out}'`,
        env: { PATH: process.env.PATH, SHELL: '/bin/sh', TERM_PROGRAM: 'iTerm.app' },
        onProblem: (s) => problems.push(s),
      });
      notifier.notify({ kind: 'key_runaway', anomaly: 'runaway', keyId: 'k1', keyName: 'batch $(touch pwned)', usdPerHour: 5.009, baselineUsdPerHour: 0.5 });
      notifier.notify({ kind: 'account_burn', usdPerHour: 6, baselineUsdPerHour: 0.5, likelyKeyId: 'k1', likelyKeyName: 'batch' });
      expect(written.join('')).toContain('"batch $(touch pwned)" spends $5.00/h, 10× its usual $0.50/h');
      expect(written.join('')).toContain('$6.00/h, 12× its usual $0.50/h; likely "batch" (the top spender at the last usage read)');
      const deadline = Date.now() + 5000;
      while (Date.now() < deadline) {
        try {
          if (readFileSync(out, 'utf8').split('\n').length > 2) break;
        } catch {
          // not yet
        }
        await new Promise((r) => setTimeout(r, 50));
      }
      expect(readFileSync(out, 'utf8').split('\n').filter(Boolean).sort()).toEqual(['account_burn|account|k1|batch|6.00|0.50', 'key_runaway|runaway|k1|batch $(touch pwned)|5.00|0.50']);
      expect(() => readFileSync(`${out}.low`)).toThrow();
      expect(problems).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('the hooks never get keydeck’s credentials', () => {
  it('withoutSecrets drops KEYDECK_TOKEN*, KEYDECK_SK* and any value that is a key, and keeps the figures', async () => {
    const { withoutSecrets } = await import('../../src/terminal/secretEnv.js');
    const kept = withoutSecrets({
      PATH: '/bin',
      KEYDECK_TOKEN: 'mk_abcdefghijklmnopqrstuvwx',
      KEYDECK_TOKEN_PROD: 'sess_whatever',
      KEYDECK_SK: 'sk_abcdefghijklmnopqrstuvwx',
      OPENAI_API_KEY: 'sk-abcdefghijklmnopqrstuvwx',
      KEYDECK_AUTOTOPUP_OUTCOME: 'credited',
      KEYDECK_REMAINING_USD: '45.00',
    });
    expect(kept).toEqual({ PATH: '/bin', KEYDECK_AUTOTOPUP_OUTCOME: 'credited', KEYDECK_REMAINING_USD: '45.00' });
  });

  it('an --on-low hook and a destination command get the same environment: one filter, the wider one', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'keydeck-hookenv-'));
    const secrets = {
      KEYDECK_TOKEN: 'sess_whatever',
      KEYDECK_TOKEN_PROD: 'x',
      KEYDECK_SK: 'not a key at all',
      KEYDECK_SK_PROD: 'not a key either',
      LIVE_KEY: 'sk_live-abc_def-0123456789',
      IN_A_HEADER: 'Authorization: Bearer mk-0123456789abcdef_0123',
    };
    const env = { PATH: process.env.PATH, SHELL: '/bin/sh', NOT_A_KEY: 'task_0123456789abcdefghij', ...secrets };
    try {
      const hookOut = path.join(dir, 'hook.env');
      const notifier = createNotifier({ profile: 'work', origin: 'https://api.example.com', onLow: `env > '${hookOut}'`, env });
      notifier.notify({ kind: 'low_balance', remaining: 4.5, threshold: 5, totalTopUp: 25 });
      const { deliverKey } = await import('../../src/delivery/deliver.js');
      const { parseCommandDestination } = await import('../../src/delivery/destinations.js');
      const commandOut = path.join(dir, 'command.env');
      const [o] = await deliverKey('sk_TestKeyValue0123456789abcdefghij', [parseCommandDestination(`sh -c "env > ${commandOut}"`, { env: { PATH: env.PATH } })], { lockDir: dir, env });
      expect(o!.ok, o!.sentence).toBe(true);
      const names = async (file: string) => {
        const deadline = Date.now() + 5000;
        while (Date.now() < deadline) {
          try {
            const text = readFileSync(file, 'utf8');
            if (text.includes('\n'))
              return text
                .split('\n')
                .map((l) => l.split('=')[0]!)
                .filter((n) => n !== '');
          } catch {
            // not yet
          }
          await new Promise((r) => setTimeout(r, 50));
        }
        throw new Error(`${file} was not written`);
      };
      const hook = await names(hookOut);
      const command = await names(commandOut);
      for (const name of Object.keys(secrets)) {
        expect(hook, name).not.toContain(name);
        expect(command, name).not.toContain(name);
      }
      expect(hook).toContain('NOT_A_KEY');
      expect(command).toContain('NOT_A_KEY');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
