/**
 * The balance chart: axes, labels and ticks within the width, the line where the
 * readings are, top-ups marked under the stretch they happened in, blank before the first
 * reading, readable at the Billing pane's 80×24 size.
 */
import stringWidth from 'string-width';
import { describe, expect, it } from 'vitest';
import { balanceChart, CHART_WINDOWS, nextWindow, parseWindow } from '../../src/billing/chart.js';
import type { BalanceSample } from '../../src/billing/history.js';

const HOUR = 3_600_000;
const NOW = Date.UTC(2026, 2, 2, 9, 30);

/** 30 h of readings every minute: $2.10/h spent, a $50 top-up 10 h ago. */
function day(): BalanceSample[] {
  const out: BalanceSample[] = [];
  for (let t = NOW - 30 * HOUR; t <= NOW; t += 60_000) {
    const totalTopUp = t > NOW - 10 * HOUR ? 150 : 100;
    out.push({ t, remaining: Math.round((totalTopUp - ((t - (NOW - 30 * HOUR)) / HOUR) * 2.1) * 100) / 100, totalTopUp });
  }
  return out;
}

describe('balance chart', () => {
  it('puts each ▲ in the column where the line steps up, and the line reaches now', () => {
    for (const width of [78, 98]) {
      for (const window of ['1h', '24h'] as const) {
        // Readings every 5 min for 50 min, a $25 top-up 20 min ago: one step up in the line.
        const samples: BalanceSample[] = [];
        for (let t = NOW - 50 * 60_000; t <= NOW; t += 5 * 60_000) samples.push({ t, remaining: t >= NOW - 20 * 60_000 ? 75 : 50, totalTopUp: t >= NOW - 20 * 60_000 ? 125 : 100 });
        const chart = balanceChart(samples, { window, now: NOW, width, height: 6 });
        const plot = chart.lines.slice(0, -3);
        const marks = chart.lines.at(-1)!;
        const up = plot.map((row) => row.indexOf('╭')).filter((i) => i >= 0);
        expect(up, `${window} at ${width}`).toHaveLength(1);
        expect(
          [...marks].flatMap((c, i) => (c === '▲' ? [i] : [])),
          `${window} at ${width}`,
        ).toEqual(up);
        // The row is named in words (a lone ▲ in the label column read as a top-up at the start).
        expect(marks).toMatch(/^ *top-up +▲$/);
        // The line's last cell is under "now".
        const axis = chart.lines.at(-3)!;
        expect(Math.max(...plot.map((row) => row.length))).toBe(axis.length);
      }
    }
  });

  it('draws 24 h with a USD axis, time ticks to now, and the top-up marked', () => {
    const chart = balanceChart(day(), { window: '24h', now: NOW, width: 78, height: 8 });
    if (process.env.SHOW_CHART) console.log(chart.lines.join('\n'));
    for (const line of chart.lines) expect(stringWidth(line)).toBeLessThanOrEqual(78);
    expect(chart.lines.length).toBe(8 + 3);
    // Highest and lowest balances of the window label the axis.
    expect(chart.lines[0]).toMatch(/^\s*\$1\d\d\.\d\d ┤/);
    expect(chart.lines.join('\n')).toMatch(/\$\d+\.\d\d ┤/);
    expect(chart.lines.at(-2)).toMatch(/-24h .* -18h .* -12h .* -6h .* now$/);
    const marks = chart.lines.at(-1)!;
    expect(marks).toMatch(/^ *▲ top-up +▲$/);
    expect(chart.legend).toBe('▲ top-up +$50.00');
    // The ▲ sits 10 h before now: 14/24 of the way along the line.
    const axisStart = chart.lines.at(-3)!.indexOf('└') + 1;
    const col = marks.lastIndexOf('▲') - axisStart;
    expect(col / chart.columns).toBeCloseTo(14 / 24, 1);
    expect(chart.topUps).toEqual([{ t: NOW - 10 * HOUR + 60_000, amount: 50, totalTopUp: 150 }]);
  });

  it('leaves the time before the first reading blank, and draws nothing without a reading', () => {
    const recent = day().filter((s) => s.t > NOW - 2 * HOUR);
    const chart = balanceChart(recent, { window: '6h', now: NOW, width: 60, height: 4 });
    if (process.env.SHOW_CHART) console.log(chart.lines.join('\n'));
    const plotted = chart.lines.slice(0, -2).join('\n');
    // The first two thirds of the plot area are empty.
    const axis = chart.lines.at(-2)!;
    const start = axis.indexOf('└') + 1;
    for (const line of chart.lines.slice(0, -2)) expect(line.slice(start, start + Math.floor(chart.columns * 0.6)).trim()).toBe('');
    expect(plotted).toMatch(/[─╭╮╯╰]/);
    expect(balanceChart([], { window: '1h', now: NOW, width: 60, height: 4 }).lines).toEqual([]);
  });

  it('cycles and parses the windows', () => {
    expect(CHART_WINDOWS.map((w) => nextWindow(w))).toEqual(['6h', '24h', '7d', '30d', '1h']);
    expect(parseWindow('7D')).toBe('7d');
    expect(parseWindow('2h')).toBeUndefined();
  });
});
