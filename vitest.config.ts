import { defineConfig } from 'vitest/config';
import { LongestFirstSequencer } from './test/sequencer.js';

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
  'test/credentials/keychain.test.ts',
  'test/credentials/origin.test.ts',
  'test/sandbox/cli.test.ts',
  'test/config/trust.test.ts',
  'test/delivery/deliver.test.ts',
  'test/operations/tokenFileRace.test.ts',
  // The crash-point harness: kills the built CLI at each boundary of an operation.
  'test/crash/**',
  'test/metrics/promtool.test.ts',
  'test/metrics/contrib.test.ts',
  'test/exporter/exporter.test.ts',
  'test/exporter/autotopup.test.ts',
  'test/exporter/guardrails.test.ts',
  'test/exporter/prometheus.test.ts',
  'test/exporter/longrun.test.ts',
  'test/exporter/setup.test.ts',
  'test/package/docker.test.ts',
  // A local anvil chain, and solc-js (235 MB, kept out of the quick project's shared workers).
  'test/chain/bytecode.test.ts',
  'test/chain/reader.test.ts',
  'test/chain/checks.test.ts',
  'test/chain/sandbox-chain.test.ts',
  'test/tui/billing/usdcChain.test.tsx',
];

export default defineConfig({
  // The suites' JSX for React's production build, the one the app ships with (test/react-production.ts).
  oxc: { jsx: { development: false } },
  test: {
    globalSetup: ['test/global-setup.ts'],
    // Where the CLI runs keep their compile cache (test/compile-cache.ts); with `npm run test:cpu`
    // (scripts/suite-cpu.mjs), what each file costs in CPU time.
    // With `npm run test:count` (scripts/count-assertions.mjs), how many tests and assertions each file ran.
    setupFiles: [
      'test/compile-cache.ts',
      // Ink's string-width as the app's (src/tui/fastStringWidth.ts), before Ink is loaded.
      'test/fast-string-width.ts',
      'test/react-production.ts',
      ...(process.env.KEYDECK_TEST_CPU ? ['test/cpu-probe.ts'] : []),
      ...(process.env.KEYDECK_TEST_COUNT ? ['test/assertion-count.ts'] : []),
    ],
    testTimeout: 20_000,
    hookTimeout: 20_000,
    // Four files at once on this 2-core machine: most suites wait (on servers, pseudo-terminals,
    // child processes, Retry-After, exporter polls, the crash walks' killed processes), and since
    // such suites were added a fourth worker fills the CPU they leave (two pairs run back to back:
    // 4 workers 202 s and 181 s, 3 workers 243 s and 209 s). CI too: there a fourth worker saved
    // about 15 s of 225 (clean clones, quiet machine); it had been kept at three because each such
    // run found a pseudo-terminal test reading a frame the pty had delivered only in part, which
    // test/e2e/pty.ts's waitFor no longer does (it reads once xterm has parsed the output and it
    // has paused). Every arrangement measured is in docs/development.md, "How many files at once".
    maxWorkers: 4,
    // In a run without the durations of a previous one (a clean clone), the files that take longest start first (test/sequencer.ts).
    sequence: { sequencer: LongestFirstSequencer },
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
