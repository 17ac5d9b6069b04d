// USDC on chain, against a real anvil chain behind a counting JSON-RPC proxy:
// HTTP round trips (and JSON-RPC calls) per check of one hash, the time of one check, the rate of
// `eth_getLogs` of the deposit watch when polled as fast as it lets itself be, and the bytes of the
// chain reader (viem) on the static start graph of the built app (it must load lazily, never at
// start: dist/main.js and every chunk it imports statically, dynamic imports excluded).
import { createServer } from 'node:http';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { atLeast, atMost, bundle, DIST, median, QUICK, report, ROOT, round } from './fixtures/harness.mjs';

const src = (p) => JSON.stringify(join(ROOT, p));
const entry = await bundle(
  {
    contents: [
      `export { startSandboxChain } from ${src('src/sandbox/chain/anvil.ts')};`,
      `export { checkTransaction } from ${src('src/billing/chainChecks.ts')};`,
      `export { DepositWatch, WATCH_INTERVAL_MS } from ${src('src/billing/chainWatch.ts')};`,
    ].join('\n'),
  },
  'chain-bench',
);
const m = await import(pathToFileURL(entry).href);
const chain = await m.startSandboxChain();
process.on('exit', () => void chain.close());

// The counting proxy: every HTTP request, and every JSON-RPC method in it, forwarded to anvil.
const counts = { http: 0, calls: 0, getLogs: 0 };
/** When each eth_getLogs reached the proxy (ms, performance.now). */
const logTimes = [];
const proxy = createServer((req, res) => {
  let body = '';
  req.on('data', (d) => (body += d));
  req.on('end', async () => {
    counts.http++;
    const parsed = JSON.parse(body);
    for (const call of Array.isArray(parsed) ? parsed : [parsed]) {
      counts.calls++;
      if (call.method === 'eth_getLogs') {
        counts.getLogs++;
        logTimes.push(performance.now());
      }
    }
    const upstream = await fetch(chain.rpcUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    res.writeHead(upstream.status, { 'content-type': 'application/json' });
    res.end(await upstream.text());
  });
});
await new Promise((resolve) => proxy.listen(0, '127.0.0.1', resolve));
const rpcUrl = `http://127.0.0.1:${proxy.address().port}`;
const settings = { enabled: true, rpcUrl, source: 'flag' };
const figures = [];

// 1. One check of a real transfer: round trips and time.
const deposit = '0x9f3c00000000000000000000000000000000abcd';
const hash = await chain.transfer(deposit, 25_000_000n);
const CHECKS = QUICK ? 10 : 50;
const times = [];
const before = { ...counts };
for (let i = 0; i < CHECKS; i++) {
  const t0 = performance.now();
  const result = await m.checkTransaction(settings, { txHash: hash, amount: 25, depositAddress: deposit });
  times.push(performance.now() - t0);
  if (result.kind !== 'passed') throw new Error(`the check did not pass: ${JSON.stringify(result)}`);
}
figures.push(atMost('HTTP round trips per check of one hash', round((counts.http - before.http) / CHECKS, 2), 3));
figures.push({ figure: 'JSON-RPC calls per check (batched in those round trips)', value: round((counts.calls - before.calls) / CHECKS, 2) });
figures.push({ figure: 'one check, median (loopback anvil)', value: round(median(times), 2), unit: 'ms' });

// 2. The watch polled as fast as it allows for a while: eth_getLogs per 4 s.
const SECONDS = QUICK ? 9 : 30;
const watch = new m.DepositWatch(rpcUrl, deposit, Date.now());
const logsBefore = counts.getLogs;
const end = Date.now() + SECONDS * 1000;
let polls = 0;
while (Date.now() < end) {
  await watch.poll();
  polls++;
}
const gaps = logTimes.slice(1).map((t, i) => t - logTimes[i]);
figures.push({ figure: `eth_getLogs sent, the watch polled back to back for ${SECONDS} s`, value: counts.getLogs - logsBefore });
figures.push(atLeast('least time between two eth_getLogs of one watch', round(Math.min(...gaps) / 1000, 2), 4, 's'));

// 3. The chain reader on the start path of the built app: bytes of viem in main.js's static graph.
const seen = new Set();
const visit = (file) => {
  if (seen.has(file)) return;
  seen.add(file);
  const text = readFileSync(file, 'utf8');
  for (const match of text.matchAll(/(?:^|[;}\s])import\s*(?:[\w*{}\s,$]+from\s*)?["'](\.{1,2}\/[^"']+)["']/g)) visit(join(dirname(file), match[1]));
};
visit(join(DIST, 'main.js'));
let viemBytes = 0;
for (const file of seen) {
  const text = readFileSync(file, 'utf8');
  if (/eth_getTransactionReceipt|parseEventLogs|TransactionReceiptNotFoundError/.test(text)) viemBytes += text.length;
}
figures.push(atMost(`chain-reader bytes on the start path (${seen.size} files statically imported by dist/main.js)`, viemBytes, 0, 'bytes'));

report('chain', `USDC on chain: ${CHECKS} checks of one hash, the watch for ${SECONDS} s (${polls} polls asked), against anvil on loopback`, figures);
proxy.close();
await chain.close();
process.exit(0);
