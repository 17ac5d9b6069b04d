/**
 * The order of the test files in a run without recorded durations (test/sequencer.ts): a clean
 * clone starts the files that take longest first, keeps each project's files together (a worker
 * is reused only for a file of its own project), and leaves vitest's order alone once it has
 * durations.
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { BaseSequencer, type TestSpecification, type Vitest } from 'vitest/node';
import { LONGEST_FIRST, LongestFirstSequencer } from './sequencer.js';

const ROOT = path.resolve(import.meta.dirname, '..');

/** A test file of `project` as the sequencer sees it (its path, its project's name and settings). */
function spec(file: string, project: 'process' | 'quick'): TestSpecification {
  return { moduleId: path.join(ROOT, file), project: { name: project, config: { sequence: { groupOrder: 0 }, isolate: false } } } as unknown as TestSpecification;
}

/** The context of a run whose cache holds a duration for the files `known` (their paths), and for no other. */
function context(known: (file: string) => boolean): Vitest {
  const result = (s: TestSpecification) => (known(path.relative(ROOT, s.moduleId)) ? { duration: 1000, failed: false } : undefined);
  return { cache: { getTestSpecificationResult: result } } as unknown as Vitest;
}
const NONE = () => false;

const files = [
  spec('test/commands/words.test.ts', 'process'),
  spec('test/terminal/outputGuard.test.ts', 'quick'),
  spec('test/tui/pollFrames.test.tsx', 'quick'),
  spec('test/crash/apply.test.ts', 'process'),
  spec('test/tui/billing/soak.test.tsx', 'quick'),
  spec('test/commands/billing.test.ts', 'process'),
];
const names = (sorted: TestSpecification[]) => sorted.map((s) => path.relative(ROOT, s.moduleId));

describe('the order of the test files', () => {
  it('without recorded durations: the longest first in each project, the projects one after the other, the rest by size', async () => {
    const sorted = names(await new LongestFirstSequencer(context(NONE)).sort(files));
    expect(sorted).toEqual([
      'test/crash/apply.test.ts',
      // the largest of the rest first, as vitest orders files it has no duration for
      'test/commands/billing.test.ts',
      'test/commands/words.test.ts',
      'test/tui/billing/soak.test.tsx',
      'test/tui/pollFrames.test.tsx',
      'test/terminal/outputGuard.test.ts',
    ]);
    // vitest's own order, by size: the crash walk after the larger files.
    const plain = names(await new BaseSequencer(context(NONE)).sort(files));
    expect(plain.indexOf('test/crash/apply.test.ts')).toBeGreaterThan(plain.indexOf('test/commands/billing.test.ts'));
  });

  it('with a duration recorded for any file (not a clean clone, a new file among others): vitest’s own order', async () => {
    for (const known of [() => true, (file: string) => file !== 'test/tui/pollFrames.test.tsx']) {
      expect(names(await new LongestFirstSequencer(context(known)).sort(files))).toEqual(names(await new BaseSequencer(context(known)).sort(files)));
    }
  });

  it('names each file once (one that is gone fails the run as the config loads)', () => {
    expect(new Set(LONGEST_FIRST).size).toBe(LONGEST_FIRST.length);
  });
});
