import { defineConfig } from 'vitest/config';

/**
 * Suites that start programs: the built CLI, the app in a pseudo-terminal, the real keychain,
 * npm pack. `npm test` (and CI) runs them with the rest; `npm run test:quick` (the `quick`
 * project: unit, component and HTTP suites in-process) leaves them out for the edit-test loop.
 * A new suite that spawns a program goes in one of these folders or is listed here.
 */
const PROCESS_SUITES = [
  'test/e2e/**',
  'test/resilience/**',
  'test/package/**',
  'test/build/**',
  'test/commands/**',
  'test/secrets/**',
  'test/terminal/pty-output.test.ts',
  'test/terminal/cli-output.test.ts',
  'test/terminal/heap.test.ts',
  'test/credentials/keychain.test.ts',
  'test/credentials/origin.test.ts',
  'test/sandbox/cli.test.ts',
  'test/config/trust.test.ts',
  'test/delivery/deliver.test.ts',
  'test/metrics/promtool.test.ts',
  'test/metrics/contrib.test.ts',
  'test/exporter/exporter.test.ts',
  'test/exporter/prometheus.test.ts',
  // A local anvil chain (issue 25), and solc-js (235 MB, kept out of the quick project's shared workers).
  'test/chain/bytecode.test.ts',
  'test/chain/reader.test.ts',
  'test/chain/checks.test.ts',
  'test/chain/sandbox-chain.test.ts',
  'test/tui/billing/usdcChain.test.tsx',
];

export default defineConfig({
  test: {
    globalSetup: ['test/global-setup.ts'],
    // Where the CLI runs keep their compile cache (test/compile-cache.ts); with `npm run test:cpu`
    // (scripts/suite-cpu.mjs), what each file costs in CPU time.
    setupFiles: ['test/compile-cache.ts', ...(process.env.KEYDECK_TEST_CPU ? ['test/cpu-probe.ts'] : [])],
    testTimeout: 20_000,
    hookTimeout: 20_000,
    // Three files at once on this 2-core machine: most suites wait (on servers, pseudo-terminals,
    // child processes, Retry-After), so a third worker fills the idle CPU (2 workers: 175 s and
    // ~45 % of both cores busy; 3: 135 s; 4: 128 s, not worth the load on timing-sensitive suites).
    // Measured again on 3197f6a, the whole suite, 2 rounds alternating: 4 workers 213 and 201 s,
    // 3 workers 228 and 203 s; the CPU is ~90 % busy either way, so a fourth gains nothing sure.
    // And on 8e8ffce: 4 workers 211 and 213 s (386 and 394 s of CPU), 3 workers 207 and 192 s
    // (365 and 329 s): the fourth adds CPU time (more contention) and no speed.
    // On 2026ee9, the process project alone, 2 rounds alternating: 3 workers 159 and 165 s, 4 workers
    // 150 and 172 s; with the suites that mostly wait spread out among the others (a sequencer),
    // 148 and 167 s (3 workers), 151 and 194 s (4). And the quick project in a second vitest beside
    // the process project (one more file at once, no gap between the projects): 214 and 217 s for
    // the whole, against 203 s for `vitest run`. The CPUs are 85-95 % busy (npm run test:cpu):
    // more at once only adds contention. The quick project alone, 2 rounds: 3 workers 39 and 47 s,
    // 4 workers 39 and 50 s (with 10-20 % more CPU), 2 workers 46 and 50 s.
    maxWorkers: 3,
    env: { NO_COLOR: '1' },
    // Every suite shares its worker's module cache (`isolate: false`): vitest, Ink, React, zod,
    // Fastify and the sources are imported once per worker, not once per file. For the process
    // suites that is a fifth of their run (process project alone, 2 rounds alternating: 216-218 s
    // and 382-390 s of CPU isolated, 176-181 s and 311-321 s shared). So a suite must not leave
    // state behind (mocks, globals, timers, servers, children): each cleans up after itself.
    isolate: false,
    projects: [
      { extends: true, test: { name: 'quick', include: ['test/**/*.test.{ts,tsx}'], exclude: PROCESS_SUITES } },
      { extends: true, test: { name: 'process', include: PROCESS_SUITES.map((p) => (p.endsWith('**') ? `${p}/*.test.{ts,tsx}` : p)) } },
    ],
  },
});
