// Where the money goes: parsing a usage answer of 10,000 keys through the tolerant
// reader (src/api/usageSchemas.ts), history.db after 30 days of 12 usage reads a day for 1,000
// keys (src/billing/keyHistory.ts: samples and the retention a running keydeck applies, the last
// answer kept by the budget), and the Keys pane of the real app (in process, the test suites' fake
// terminal) with 1,000 keys: its first frame with the spend columns against the same pane without
// them, alternating in one run, and key → frame while sorted by spend against sorted by creation.
// The sandbox runs in a process of its own (bench/fixtures/harness.mjs startSandboxProcess).
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { atMost, bundle, median, QUICK, report, ROOT, round, startSandboxProcess } from './fixtures/harness.mjs';

const src = (p) => JSON.stringify(join(ROOT, p));
const entry = await bundle(
  {
    contents: [
      `export { parseBody } from ${src('src/api/failures.ts')};`,
      `export { readAnswer } from ${src('src/api/reader.ts')};`,
      `export { UsageListSchema } from ${src('src/api/usageSchemas.ts')};`,
      `export { BalanceHistoryStore, originOf } from ${src('src/billing/historyStore.ts')};`,
      `export { KeyHistory } from ${src('src/billing/keyHistory.ts')};`,
      `export { UsageBudget, credentialIdOf } from ${src('src/billing/usageBudget.ts')};`,
      `export { readUsageList } from ${src('src/billing/usageReads.ts')};`,
      `export { KeydeckClient } from ${src('src/api/client.ts')};`,
      `export { startSandbox, createContext } from ${src('src/sandbox/index.ts')};`,
      `export { openKeysPane } from ${src('bench/fixtures/keysPane.tsx')};`,
    ].join('\n'),
  },
  'usage-bench',
);
const m = await import(pathToFileURL(entry).href);
const dir = mkdtempSync(join(tmpdir(), 'keydeck-bench-usage-'));
process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
const figures = [];

// 1. Parsing a usage answer of 10,000 keys (the newer page's envelope, 4 periods each).
const KEYS = 10_000;
const period = (i, f) => ({ spend: Math.round(i * f * 100) / 1e4, requests: i * f, tokens: i * f * 400 });
const body = JSON.stringify({
  success: true,
  data: Array.from({ length: KEYS }, (_, i) => ({
    id: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
    name: `key-${i}`,
    keyType: 'credit',
    keyPlan: 'credits',
    isActive: true,
    usage: { '24h': period(i, 1), '7d': period(i, 7), '30d': period(i, 30), total: period(i, 90) },
    maxBudget: 1000,
    subscription: null,
  })),
});
const parses = [];
for (let i = 0; i < (QUICK ? 5 : 21); i++) {
  const t0 = performance.now();
  const read = m.readAnswer({ schema: m.UsageListSchema }, m.parseBody(body));
  parses.push(performance.now() - t0);
  if (!read.ok || read.data.keys.length !== KEYS) throw new Error('the usage answer was not read');
}
figures.push(atMost(`parse a usage answer of ${KEYS} keys (${round(body.length / 1e6, 1)} MB of JSON, median)`, round(median(parses), 1), 50, 'ms'));

// 2. history.db after 30 days of 12 reads a day for 1,000 keys.
const DAY = 86_400_000;
const days = QUICK ? 3 : 30;
const file = join(dir, 'history.db');
const store = m.BalanceHistoryStore.open({ path: file });
const history = new m.KeyHistory(store.database, store.series('default', 'https://api.example.com').id);
const budget = new m.UsageBudget(store.database);
const now = Date.now();
const start = now - days * DAY;
let report1k;
const writeStarted = performance.now();
for (let r = 0; r < days * 12; r++) {
  const t = start + r * (DAY / 12);
  report1k = {
    keys: Array.from({ length: 1000 }, (_, i) => ({
      id: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
      name: `key-${i}`,
      periods: { '24h': { spend: (i % 50) / 10 }, total: { spend: r * (i % 50) + i } },
    })),
    periods: ['24h', 'total'],
    raw: null,
  };
  history.record(report1k, t);
}
// The last answer kept as a read keeps it (the service's answer and the figures as read beside it).
{
  const answer = m.readAnswer({ schema: m.UsageListSchema }, m.parseBody(JSON.stringify({ success: true, data: JSON.parse(body).data.slice(0, 1000) })));
  const kept = await m.readUsageList({ usage: { list: async () => answer.data } }, { budget, credential: 'bench', origin: 'https://api.example.com', mode: 'demand' });
  if (!kept.fresh) throw new Error('the last answer was not kept');
}
const writeMs = performance.now() - writeStarted;
store.checkpoint();
const bytes = statSync(file).size;
store.close();
figures.push({ figure: `usage reads recorded (${days} d × 12 a day × 1,000 keys)`, value: days * 12 * 1000 });
figures.push({ figure: 'recording them (one transaction a read)', value: round(writeMs / 1000, 1), unit: 's' });
figures.push(atMost(`history.db after ${days} days of 12 reads a day for 1,000 keys (and the last answer kept)`, round(bytes / 1e6, 2), 20, 'MB'));

// 3. The Keys pane with 1,000 keys: first frame with and without the spend columns; key → frame by sort.
const dbPath = join(dir, 'sandbox.db');
// The demo user (made at the first start), then 1,000 credit keys for it through the sandbox's own
// store (no HTTP), each with spend an hour ago.
const first = await m.startSandbox({ dbPath });
const token = first.token;
await first.close();
{
  const c = m.createContext(dbPath);
  const user = c.users.userIdForSession(token);
  c.db.exec('BEGIN');
  for (let i = 0; i < 1000; i++) {
    const { row } = c.keys.createCredit(user, `bench-${String(i).padStart(4, '0')}`, Date.now());
    c.usage.record(user, row.id, Date.now() - 3_600_000, (i % 97) * 10_000, 100);
  }
  c.db.exec('COMMIT');
  c.db.close();
}
// The sandbox in a process of its own (the service is elsewhere: its work does not share the
// TUI's event loop, as a real service's does not).
const live = await startSandboxProcess(dbPath);
const usageStore = m.BalanceHistoryStore.open({ path: join(dir, 'tui-history.db') });
// The usage answer is kept beforehand, as after a read (the pane's first frame spends none).
{
  const client = new m.KeydeckClient({ baseUrl: live.url, token });
  const origin = m.originOf(live.url);
  const read = await m.readUsageList(client, { budget: new m.UsageBudget(usageStore.database), credential: m.credentialIdOf(origin, token), origin, mode: 'demand' });
  if (!read.fresh) throw new Error('no usage answer to keep');
  client.close();
}
// The main thread's CPU time (V8's helper threads, busy with the garbage of the figures above, are left out).
const cpuMs = (since) => {
  const { user, system } = process.threadCpuUsage(since);
  return (user + system) / 1000;
};
const firstFrame = async (withUsage) => {
  const t0 = performance.now();
  const cpu0 = process.threadCpuUsage();
  const ui = m.openKeysPane({ baseUrl: live.url, token, configDir: join(dir, 'config'), ...(withUsage && { store: usageStore }) });
  // When each frame was written, and the process's CPU time then (Ink writes a frame to the
  // terminal at once, in debug mode one per commit): what runs after it in the same turn of the
  // event loop (another answer, another commit) does not delay what the user sees, so it is not counted.
  const writtenAt = [];
  const cpuAt = [];
  const write = ui.stdout.write;
  ui.stdout.write = (chunk) => {
    const wrote = write(chunk);
    const count = ui.frames().length;
    // Frames written before this wrapper (the first one) have no time.
    while (writtenAt.length < count - 1) {
      writtenAt.push(undefined);
      cpuAt.push(undefined);
    }
    if (writtenAt.length < count) {
      writtenAt.push(performance.now());
      cpuAt.push(cpuMs(cpu0));
    }
    return wrote;
  };
  // The list read (its place in the bottom border: 1/1005, the 1,000 keys and the demo account's
  // own), and with usage the spend figures:
  // each frame is looked at as it was written, so both are timed alike.
  const ready = (f) => /\d\/10\d\d ─/.test(f) && (!withUsage || /\$\d+\.\d\d │/.test(f));
  let seen = 0;
  let ms;
  let cpu;
  for (const deadline = performance.now() + 30_000; ms === undefined;) {
    const frames = ui.frames();
    for (; seen < frames.length && ms === undefined; seen++) {
      if (!ready(frames[seen])) continue;
      ms = (writtenAt[seen] ?? performance.now()) - t0;
      cpu = cpuAt[seen] ?? cpuMs(cpu0);
    }
    if (ms === undefined) {
      if (performance.now() > deadline) throw new Error(`the Keys pane never showed the list; its last frame:\n${frames.at(-1) ?? '(none)'}`);
      await new Promise((r) => setImmediate(r));
    }
  }
  return { ui, ms, cpu };
};
const plain = [];
const spend = [];
const plainCpu = [];
const spendCpu = [];
for (let i = 0; i < (QUICK ? 2 : 8); i++) {
  for (const withUsage of i % 2 === 0 ? [false, true] : [true, false]) {
    const { ui, ms, cpu } = await firstFrame(withUsage);
    (withUsage ? spend : plain).push(ms);
    (withUsage ? spendCpu : plainCpu).push(cpu);
    ui.unmount();
  }
}
figures.push({ figure: 'Keys pane with 1,000 keys, first frame without spend columns (median)', value: round(median(plain), 1), unit: 'ms' });
figures.push({ figure: 'Keys pane with 1,000 keys, first frame with spend columns (median)', value: round(median(spend), 1), unit: 'ms' });
figures.push(atMost('first frame with spend columns ÷ without', round(median(spend) / median(plain), 2), 1.1, '×'));
figures.push({ figure: "main thread's CPU time to that frame, with spend columns ÷ without (medians, same runs)", value: round(median(spendCpu) / median(plainCpu), 2), unit: '×' });

const keyToFrame = async (sortPresses) => {
  const { ui } = await firstFrame(true);
  for (let i = 0; i < sortPresses; i++) await ui.press('s');
  if (sortPresses > 0) await ui.waitFor('sorted biggest spend first');
  const times = [];
  for (let i = 0; i < (QUICK ? 20 : 120); i++) {
    const before = ui.frames().length;
    const t0 = performance.now();
    ui.stdin.write('j');
    // A press that draws nothing would spin here for ever (it did once, 16 min at a full core): bounded.
    for (const deadline = performance.now() + 5_000; ui.frames().length === before;) {
      if (performance.now() > deadline) throw new Error(`j (press ${i + 1}) drew no frame within 5 s`);
      await new Promise((r) => setImmediate(r));
    }
    times.push(performance.now() - t0);
  }
  ui.unmount();
  return median(times);
};
const byCreated = await keyToFrame(0);
const bySpend = await keyToFrame(4);
figures.push({ figure: 'key → frame (j), sorted newest first, 1,000 keys with spend (median)', value: round(byCreated, 2), unit: 'ms' });
figures.push({ figure: 'key → frame (j), sorted by spend (median)', value: round(bySpend, 2), unit: 'ms' });
figures.push(atMost('key → frame sorted by spend − sorted newest first', round(bySpend - byCreated, 2), 1, 'ms'));

usageStore.close();
await live.close();
report('usage', 'Spend per key: parsing, history.db, the Keys pane with spend columns', figures);
process.exit(0);
