import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.{ts,tsx}'],
    globalSetup: ['test/global-setup.ts'],
    testTimeout: 20_000,
    hookTimeout: 20_000,
    // Two cores: keep the pool small so servers started by suites are not starved.
    maxWorkers: 2,
    env: { NO_COLOR: '1' },
  },
});
