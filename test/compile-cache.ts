/**
 * A setup file of every suite (vitest.config.ts): the CLI runs that a test starts as processes
 * keep Node's compile cache beside the run's snapshot of dist/
 * (test/global-setup.ts), which is removed after the run. Set in this worker's environment, which
 * every CLI run's environment is copied from, after the worker has started: Node reads
 * NODE_COMPILE_CACHE when a process starts, so vitest's worker does not cache its own modules
 * there (and the runs in its thread do not turn the cache on: test/credentials/thread.ts).
 */
import { inject } from 'vitest';

process.env.NODE_COMPILE_CACHE = inject('cliCompileCache');
