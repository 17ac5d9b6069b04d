// Sandbox load benchmark (not a test): the built sandbox (dist/sandbox.js) on a temp database
// whose demo user holds 1,000 credit keys, loaded with autocannon over loopback for 5 s per
// endpoint, 32 connections. The server runs in a child process, so the load generator does not
// share its event loop (on 2 cores the two still share the machine).
// A bare Fastify route in the same child, answering a constant of the credits answer's size, is
// measured last as a reference: the ceiling of this machine, under its current load, for this
// harness (compare against it, not only against a number).
// Also: the start-up time of an in-memory sandbox (what each test suite pays).
// Target: ≥ 5,000 requests/s for GET /api/billing/credits on a 2-core machine.
// Env: BENCH_DURATION_S (default 5; BENCH_QUICK=1: 2), BENCH_CONNECTIONS (default 32).
import autocannon from 'autocannon';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath, pathToFileURL } from 'node:url';

const KEYS = 1_000;
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);

if (process.argv[2] === '--serve') {
  // Child: run the sandbox (and the reference server) until stdin closes.
  const { startSandbox } = await import(pathToFileURL(process.argv[4]).href);
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
  const { atLeast, DIST, median, QUICK, report, round } = await import('./fixtures/harness.mjs');
  const DURATION_S = Number(process.env.BENCH_DURATION_S ?? (QUICK ? 2 : 5));
  const sandboxJs = join(DIST, 'sandbox.js');
  // Start-up of an in-memory sandbox (what test suites pay per start), median of 9 after a warm-up.
  const { startSandbox } = await import(pathToFileURL(sandboxJs).href);
  const starts = [];
  for (let i = 0; i < 10; i++) {
    const t = performance.now();
    const s = await startSandbox({});
    if (i > 0) starts.push(performance.now() - t);
    await s.close();
  }
  const startMedianMs = median(starts);

  const dir = mkdtempSync(join(tmpdir(), 'keydeck-bench-'));
  const server = spawn(process.execPath, [fileURLToPath(import.meta.url), '--serve', join(dir, 'sandbox.db'), sandboxJs], {
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

  const results = [];
  try {
    const targets = [
      ['GET /api/billing/credits', `${url}/api/billing/credits`],
      [`GET /api/keys (${KEYS.toLocaleString('en-US')} keys)`, `${url}/api/keys`],
      ['reference: bare Fastify route, constant JSON', `${bareUrl}/`],
    ];
    for (const [label, target] of targets) {
      const result = await autocannon({
        url: target,
        headers: { authorization: `Bearer ${token}` },
        connections: CONNECTIONS,
        duration: DURATION_S,
      });
      results.push({ label, rps: Math.round(result.requests.average), p50: result.latency.p50, p99: result.latency.p99, failures: result.errors + result.timeouts + result.non2xx });
    }
  } finally {
    server.stdin.end();
    await serverExit;
    rmSync(dir, { recursive: true, force: true });
  }

  const figures = [];
  for (const [i, r] of results.entries()) {
    const failed = r.failures > 0 ? ` (${r.failures} failed)` : '';
    figures.push(i === 0 ? atLeast(`${r.label}: requests/s${failed}`, r.rps, 5000, 'req/s') : { figure: `${r.label}: requests/s${failed}`, value: r.rps, unit: 'req/s' }, {
      figure: `${r.label}: latency p50 / p99`,
      value: `${r.p50} / ${r.p99} ms`,
    });
  }
  figures.push({ figure: 'startSandbox() in memory (median of 9, after a warm-up start)', value: round(startMedianMs), unit: 'ms' });
  report('sandbox', `sandbox: autocannon, ${CONNECTIONS} connections, ${DURATION_S} s per endpoint, the server in a child process`, figures);
}
