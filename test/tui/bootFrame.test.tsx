/**
 * The frame drawn while the app loads (src/tui/BootFrame.tsx) is the app's own first frame where
 * it draws: the header and the tabs line for line, in the full and the compact layouts, LIVE and
 * SANDBOX; the body stays blank, and below 60×15 it draws nothing (the app's notice follows).
 */
import { describe, expect, it, onTestFinished } from 'vitest';
import { BootFrame } from '../../src/tui/BootFrame.js';
import { renderTui } from './render.js';
import { noKeychainStore, renderApp, testServices } from './harness.js';

const BASE_URL = 'https://api.example.test';
const lines = (frame: string) => frame.split('\n');

function firstFrames(columns: number, rows: number, target: 'live' | 'sandbox') {
  const { store } = noKeychainStore();
  const app = renderApp(testServices({ store, baseUrl: BASE_URL, target, profile: 'work' }), { columns, rows });
  const boot = renderTui(<BootFrame target={target} profileName="work" baseUrl={BASE_URL} />, { columns, rows });
  onTestFinished(() => boot.unmount());
  return { app: app.frames()[0] ?? '', boot: boot.frames()[0] ?? '' };
}

describe('the first frame, drawn while the app loads', () => {
  it.each([
    { columns: 80, rows: 24, target: 'live' as const, chrome: 3, badge: 'LIVE' },
    { columns: 100, rows: 30, target: 'sandbox' as const, chrome: 3, badge: 'SANDBOX' },
    { columns: 70, rows: 20, target: 'live' as const, chrome: 2, badge: 'LIVE' },
  ])('is the app’s own header and tabs at $columns×$rows ($target)', ({ columns, rows, target, chrome, badge }) => {
    const { app, boot } = firstFrames(columns, rows, target);
    expect(lines(boot).slice(0, chrome)).toEqual(lines(app).slice(0, chrome));
    const head = lines(boot).slice(0, chrome).join('\n');
    expect(head).toContain(badge);
    expect(head).toContain('api.example.test');
    expect(head).toMatch(/1 Keys/);
    expect(head).toContain('connecting…');
    // Nothing else yet: no half-drawn pane the app would then move.
    expect(
      lines(boot)
        .slice(chrome)
        .every((line) => line.trim() === ''),
    ).toBe(true);
  });

  it('draws nothing below 60×15', () => {
    const boot = renderTui(<BootFrame target="live" profileName="work" baseUrl={BASE_URL} />, { columns: 50, rows: 12 });
    onTestFinished(() => boot.unmount());
    expect((boot.frames()[0] ?? '').trim()).toBe('');
  });
});
