// Sandbox load benchmark (not a test): the built dist/sandbox.js on a temp database whose demo
// user holds 1,000 credit keys, loaded with autocannon over loopback for ~5 s per endpoint.
// The server runs in a child process, so the load generator does not share its event loop.
// A bare Fastify route in the same child is measured last as a reference: the ceiling of this
// machine, under its current load, for this harness (compare against it, not against a number).
// Prints: endpoint, requests/s, p50 ms, p99 ms, then the start-up time of an in-memory sandbox.
// Needs `node scripts/build.mjs` first (bench/run.mjs does it).
// Target: ≥ 5,000 requests/s for GET /api/billing/credits on a 2-core machine.
// Env: BENCH_DURATION_S (default 5), BENCH_CONNECTIONS (default 32).
import autocannon from 'autocannon';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const KEYS = 1_000;
const DURATION_S = Number(process.env.BENCH_DURATION_S ?? 5);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);

if (process.argv[2] === '--serve') {
  // Child: run the sandbox (and the reference server) until stdin closes.
  const { startSandbox } = await import('../dist/sandbox.js');
  const sandbox = await startSandbox({ dbPath: process.argv[3], port: 0 });
  // Reference: a bare Fastify route answering a constant of the same size as the credits answer.
  const { default: fastify } = await import('fastify');
  const bare = fastify({ logger: false });
  const constant = { success: true, data: { totalTopUp: 25, remaining: 25, hasCreditKey: true, creditKeyCount: 1000, userId: '00000000-0000-4000-8000-000000000000' } };
  bare.get('/', async () => constant);
  await bare.listen({ host: '127.0.0.1', port: 0 });
  process.stdout.write(`${JSON.stringify({ url: sandbox.url, token: sandbox.token, bareUrl: `http://127.0.0.1:${bare.server.address().port}` })}\n`);
  process.stdin.resume();
  process.stdin.on('end', async () => {
    await bare.close();
    await sandbox.close();
    process.exit(0);
  });
} else {
  // Start-up of an in-memory sandbox (what test suites pay per start), median of 9 after a warm-up.
  const { startSandbox } = await import('../dist/sandbox.js');
  const starts = [];
  for (let i = 0; i < 10; i++) {
    const t = performance.now();
    const s = await startSandbox({});
    if (i > 0) starts.push(performance.now() - t);
    await s.close();
  }
  starts.sort((a, b) => a - b);
  const startMedianMs = starts[Math.floor(starts.length / 2)];

  const dir = mkdtempSync(join(tmpdir(), 'keydeck-bench-'));
  const server = spawn(process.execPath, [fileURLToPath(import.meta.url), '--serve', join(dir, 'sandbox.db')], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const serverExit = new Promise((resolve) => server.once('exit', resolve));
  const { url, token, bareUrl } = await new Promise((resolve, reject) => {
    createInterface({ input: server.stdout }).once('line', (line) => resolve(JSON.parse(line)));
    server.once('exit', (code) => reject(new Error(`the sandbox process exited (${code})`)));
  });
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };

  // 1,000 credit keys for the demo user (it starts with a $25 balance).
  for (let i = 0; i < KEYS; i++) {
    const res = await fetch(`${url}/api/keys/credit`, { method: 'POST', headers, body: JSON.stringify({ name: `bench key ${i}` }) });
    if (!res.ok) throw new Error(`creating key ${i}: HTTP ${res.status}`);
    await res.arrayBuffer();
  }

  const rows = [];
  const targets = [
    ['GET /api/billing/credits', `${url}/api/billing/credits`],
    [`GET /api/keys (${KEYS} keys)`, `${url}/api/keys`],
    ['reference: bare Fastify, constant JSON', `${bareUrl}/`],
  ];
  for (const [label, target] of targets) {
    const result = await autocannon({
      url: target,
      headers: { authorization: `Bearer ${token}` },
      connections: CONNECTIONS,
      duration: DURATION_S,
    });
    const failures = result.errors + result.timeouts + result.non2xx;
    rows.push({
      endpoint: label,
      'requests/s': Math.round(result.requests.average),
      'p50 ms': result.latency.p50,
      'p99 ms': result.latency.p99,
      ...(failures > 0 && { failures }),
    });
  }

  server.stdin.end();
  await serverExit;
  rmSync(dir, { recursive: true, force: true });

  console.log(`sandbox (${KEYS} keys, ${CONNECTIONS} connections, ${DURATION_S} s each, server in a child process)`);
  console.table(rows);
  console.log(`startSandbox() in memory: ${startMedianMs.toFixed(1)} ms (median of 9, after a warm-up start)`);
}
