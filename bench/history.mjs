// The balance history: the database after 30 days of polling every 15 s (readings
// written through src/billing/historyStore.ts in simulated time, the retention applied every
// simulated hour as a running keydeck does every 10 minutes), what the Billing pane computes
// before its first frame with that history (seeding the in-memory history from the database,
// the four burn rates, the 24 h chart: historyRecorder.ts, history.ts, chart.ts), and the time
// of one `GET /metrics` scrape of `keydeck monitor --metrics` (src/metrics/) with the
// same history (median of 200 over loopback).
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { atMost, bundle, median, QUICK, report, ROOT, round } from './fixtures/harness.mjs';

const src = (p) => JSON.stringify(join(ROOT, 'src', p));
const entry = await bundle(
  {
    contents: [
      `export { BalanceHistoryStore } from ${src('billing/historyStore.ts')};`,
      `export { HistoryRecorder } from ${src('billing/historyRecorder.ts')};`,
      `export { trendOf } from ${src('billing/history.ts')};`,
      `export { balanceChart } from ${src('billing/chart.ts')};`,
      `export { AccountMetrics } from ${src('metrics/account.ts')};`,
      `export { Exposition } from ${src('metrics/exposition.ts')};`,
      `export { serveMetrics } from ${src('metrics/server.ts')};`,
      `export { WEEK_WINDOW_MS } from ${src('billing/history.ts')};`,
    ].join('\n'),
  },
  'history-bench',
);
const { BalanceHistoryStore, HistoryRecorder, trendOf, balanceChart, AccountMetrics, Exposition, serveMetrics, WEEK_WINDOW_MS } = await import(pathToFileURL(entry).href);

const dir = mkdtempSync(join(tmpdir(), 'keydeck-bench-history-'));
process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
const file = join(dir, 'history.db');
const DAY = 86_400_000;
const HOUR = 3_600_000;
const days = QUICK ? 3 : 30;
const now = Date.now();
const start = now - days * DAY;

// Readings every 15 s: $0.40/h spent, a $50 top-up every 7 days; retention every simulated hour.
const store = BalanceHistoryStore.open({ path: file });
const series = store.series('default', 'https://api.example.com');
let readings = 0;
const writeStarted = performance.now();
for (let hour = start; hour < now; hour += HOUR) {
  const batch = [];
  for (let t = hour; t < Math.min(hour + HOUR, now); t += 15_000) {
    const totalTopUp = 100 + 50 * Math.floor((t - start) / (7 * DAY));
    batch.push({ t, remaining: Math.round((totalTopUp - ((t - start) / HOUR) * 0.4) * 1e6) / 1e6, totalTopUp });
  }
  series.appendMany(batch);
  readings += batch.length;
  series.compact(hour + HOUR);
}
const writeMs = performance.now() - writeStarted;
store.checkpoint();
const kept = series.load(0).length;
const fileBytes = statSync(file).size;
store.close();

// The Billing pane's work before its first frame, with that history (a fresh process would open the file too).
const paneRuns = [];
for (let i = 0; i < (QUICK ? 3 : 10); i++) {
  const t0 = performance.now();
  const s = BalanceHistoryStore.open({ path: file });
  const recorder = new HistoryRecorder({ series: s.series('default', 'https://api.example.com'), now });
  const trend = trendOf(recorder.history, undefined, now);
  const chart = balanceChart(recorder.history.since(now - 30 * HOUR), { window: '24h', now, width: 98, height: 10 });
  paneRuns.push(performance.now() - t0);
  if (!trend.week || chart.lines.length === 0) throw new Error('the seeded history gave no trend or chart');
  s.close();
}

// One scrape of the exporter, seeded with the same history.
const s2 = BalanceHistoryStore.open({ path: file });
const seed = s2.series('default', 'https://api.example.com').load(now - WEEK_WINDOW_MS);
const metrics = new AccountMetrics({ profile: 'default', origin: 'https://api.example.com', seed });
metrics.reading({ remaining: 50, totalTopUp: 150, hasCreditKey: true, creditKeyCount: 1, userId: 'u' });
const exposition = new Exposition();
const served = await serveMetrics({ host: '127.0.0.1', port: 0 }, { metrics: () => exposition.text(undefined, [metrics]) });
const scrapes = [];
for (let i = 0; i < 200; i++) {
  const t0 = performance.now();
  const text = await (await fetch(served.url)).text();
  scrapes.push(performance.now() - t0);
  if (!text.includes('keydeck_burn_rate_usd_per_second')) throw new Error('scrape without burn rates');
}
await served.close();
s2.close();

report('history', `Balance history: ${days} days of 15 s polling, pane start, metrics scrape`, [
  { figure: `readings written (${days} d × 15 s), retention hourly`, value: readings },
  { figure: 'readings kept after retention (48 h full, then 5 min)', value: kept },
  atMost(`history.db size after ${days} days`, round(fileBytes / 1e6, 2), 2, 'MB'),
  { figure: 'writing them (batched by hour)', value: round(writeMs / 1000, 1), unit: 's' },
  atMost(`Billing pane start work with the full history: open, seed ${kept} readings, 4 burn rates, 24 h chart (median)`, round(median(paneRuns), 1), 100, 'ms'),
  atMost('GET /metrics scrape, loopback (median of 200)', round(median(scrapes), 2), 20, 'ms'),
]);
