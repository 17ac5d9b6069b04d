/**
 * The order in which vitest starts the test files (vitest.config.ts `sequence.sequencer`). With
 * the durations of a previous run (node_modules/.vite/vitest), vitest's own: each project's files
 * longest first. Without them (a clean clone: CI), vitest orders by file size, which says nothing
 * of how long a file waits: `test/tui/pollFrames.test.tsx`, 10 s of polls for 0.14 s of CPU, is
 * among the smallest, so it starts near the end, and the run can end on it with the other workers
 * done. There the files of {@link LONGEST_FIRST} start first, in that order, then the rest by size.
 *
 * Each project's files stay together, as vitest has them: a worker is kept for the next file only
 * when that file is of the same project (vitest's pool), so files of the two projects taken in
 * turns would start a new worker, and import every module again, at nearly every file.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * The files that take longest on this 2-core machine (wall time in a whole run, `npm run test:cpu`
 * or `vitest --reporter=json`), longest first in each project: they wait on polls, processes, the
 * crash walks' worlds, so starting them early costs the files beside them nothing.
 */
export const LONGEST_FIRST = [
  // process
  'test/crash/tui-keys.test.ts',
  'test/crash/apply.test.ts',
  'test/commands/autotopup-machines.test.ts',
  'test/crash/autotopup-race.test.ts',
  'test/crash/keys-create.test.ts',
  'test/package/pack.test.ts',
  'test/exporter/exporter.test.ts',
  'test/crash/keys-rotate.test.ts',
  'test/e2e/readme.test.ts',
  'test/credentials/keychain.test.ts',
  'test/e2e/firstHourScreens.test.ts',
  // Their SIGKILL walks keep the kills whose world is their own (the rest are walked in process): 46–54 s → 15–20 s.
  'test/crash/autotopup.test.ts',
  'test/crash/usdc-topup.test.ts',
  // quick
  'test/tui/idleFrames.test.tsx',
  // Waits for a key's end and a last use's minute, seconds after the app starts: ~22 s.
  'test/tui/clockWords.test.tsx',
  // Watches the usage figures' age through its 60 and 90 s boundaries, two apps at once: ~10 s.
  'test/tui/usageMinute.test.tsx',
  'test/tui/billing/soak.test.tsx',
  'test/tui/rotate.test.tsx',
  'test/tui/keys.test.tsx',
  'test/docs/render.test.ts',
  'test/billing/journal.test.ts',
  'test/tui/pollFrames.test.tsx',
];

const ROOT = path.resolve(import.meta.dirname, '..');
const gone = LONGEST_FIRST.filter((file) => !existsSync(path.join(ROOT, file)));
if (gone.length > 0) throw new Error(`test/sequencer.ts names files that are gone: ${gone.join(', ')}`);

/** vitest's order, or in a run with no duration recorded {@link LONGEST_FIRST} first within each project (see the module comment). */
export class LongestFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    // A duration recorded for any file: not a clean clone (a new file alone has none), vitest's order.
    if (files.some((file) => this.ctx.cache.getTestSpecificationResult(file) !== undefined)) return sorted;
    const projects = new Map<string, number>();
    for (const [i, file] of sorted.entries()) if (!projects.has(file.project.name)) projects.set(file.project.name, i);
    const rank = (file: TestSpecification) => {
      const at = LONGEST_FIRST.indexOf(path.relative(ROOT, file.moduleId).split(path.sep).join('/'));
      return at === -1 ? LONGEST_FIRST.length : at;
    };
    const keyed = sorted.map((file, i) => ({ file, key: [projects.get(file.project.name)!, rank(file), i] as const }));
    keyed.sort((a, b) => a.key[0] - b.key[0] || a.key[1] - b.key[1] || a.key[2] - b.key[2]);
    return keyed.map(({ file }) => file);
  }
}
