/**
 * The kit's crash walks (src/operations/kit.ts): each operation stopped at every point of its
 * machine's loop — once a step's effect is done and its result not yet recorded
 * (`<machine>.<step>`), and once its record is written (`<machine>.<step>:recorded`) — in
 * process, then recovered each way a user would and checked against the same invariants as the
 * SIGKILL walks (./harness.ts, ./keyWorld.ts). A stop is an OperationError `crashed` thrown by the
 * loop itself, where no step catches it: the face ends there as a killed process would (its locks
 * released). The commands run in the test's thread (`KEYDECK_FAILPOINT` in the run's own environment, with `KEYDECK_FAILPOINT_ACTION=halt`: src/failpoints
 * `failpointsFrom`; whatever runner the
 * suite uses otherwise), the TUI in ink-testing-library (its services' `failpoints`).
 *
 * Every point a traced run passes is walked (they are cheap in process); the SIGKILL walks keep
 * the boundaries only a process has (a request sent, its answer lost, a command killed half way).
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pLimit from 'p-limit';
import { expect } from 'vitest';
import { isBoundary } from '../../src/failpoints/index.js';
import { runCli } from '../credentials/harness.js';
import { crashTable, syncDocBlock, walkedAll, type CrashOutcome, type CrashScenario } from './harness.js';

/** The kit's failpoints of one run: a file to trace them into, or the one to stop at (`<point>#<n>`). */
export interface StepPoints {
  readonly trace?: string;
  readonly armed?: string;
}

/**
 * The environment that arms `points` in one context (src/failpoints `failpointsFrom`): the armed
 * point halts the drive in this thread instead of killing it.
 */
export function stepEnv(points: StepPoints): Record<string, string> {
  return { ...(points.trace && { KEYDECK_FAILPOINT_TRACE: points.trace }), ...(points.armed && { KEYDECK_FAILPOINT: points.armed, KEYDECK_FAILPOINT_ACTION: 'halt' }) };
}

/** One operation walked by {@link walkStepPoints} (a {@link CrashScenario} whose run is in process). */
export interface StepScenario<World> extends Omit<CrashScenario<World>, 'run' | 'points'> {
  /** The points to stop at, from the trace (default: every one; a variant of a walk keeps the worlds it adds). */
  points?(traced: readonly string[]): string[];
  /**
   * Runs the operation in `world`, in process, with the kit's failpoints `points`, until it ends or
   * is stopped. @returns `stopped`: the armed point was reached
   */
  run(world: World, points: StepPoints): Promise<{ readonly stopped: boolean; readonly said: string }>;
}

/** A command's scenario as an in-process one: the same args, the CLI run in the test's thread with the kit's failpoints. */
export function inThread<World>(scenario: CrashScenario<World>): StepScenario<World> {
  const { run, points: _points, ...rest } = scenario;
  return {
    ...rest,
    async run(world, points) {
      const { args, env, input } = run(world);
      const r = await runCli(args, {
        runner: 'thread',
        ...(input !== undefined && { input }),
        env: { ...env, ...stepEnv(points) },
      });
      const said = `${r.stdout}\n${r.stderr}`;
      if (!points.armed && r.code !== (scenario.tracedCode ?? 0)) throw new Error(`${scenario.operation}: the run to trace failed (${r.code})\n${said}`);
      return { stopped: /\bcrashed: stopped at the kit's failpoint/.test(r.stderr), said };
    },
  };
}

/**
 * Walks every kit point of `scenario`: one traced run to the end, then for each point and each
 * recovery a fresh world, a run stopped there, the recovery and the invariants.
 * @throws Error when a point is not reached again (the walk changed)
 */
export async function walkStepPoints<World>(scenario: StepScenario<World>, options: { concurrency?: number } = {}): Promise<{ traced: string[]; outcomes: CrashOutcome[] }> {
  const dir = mkdtempSync(path.join(tmpdir(), 'keydeck-steps-'));
  let traced: string[];
  try {
    const first = await scenario.prepare();
    try {
      const trace = path.join(dir, 'trace');
      await scenario.run(first, { trace });
      let text = '';
      try {
        text = readFileSync(trace, 'utf8');
      } catch {
        // No point reached.
      }
      // The process's boundaries reach the same trace (the run's environment arms both), counted per
      // process, not per run: the steps are walked here, the boundaries by the SIGKILL walks.
      traced = text.split('\n').filter((p) => p !== '' && !isBoundary(p));
    } finally {
      await scenario.dispose?.(first);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  if (traced.length === 0) throw new Error(`${scenario.operation}: the traced run reached no point of the kit`);
  const limit = pLimit(options.concurrency ?? 3);
  const points = scenario.points ? scenario.points(traced) : traced;
  const jobs = points.flatMap((point) =>
    Object.entries(scenario.recoveries).map(([recovery, recover]) =>
      limit(async (): Promise<CrashOutcome> => {
        const world = await scenario.prepare();
        try {
          const { stopped, said } = await scenario.run(world, { armed: point });
          if (!stopped) throw new Error(`${scenario.operation} was to stop at ${point} but ran to its end\n${said}`);
          const outcome = await recover(world);
          const violations = await scenario.invariants(world, recovery);
          return { operation: scenario.operation, point, recovery, outcome, violations };
        } finally {
          await scenario.dispose?.(world);
        }
      }),
    ),
  );
  return { traced, outcomes: await Promise.all(jobs) };
}

/**
 * Walks `scenario` ({@link walkStepPoints}), expects no invariant broken at any point and
 * recovery, and keeps docs/crash-safety.md's block `block` equal to the walk's table (under
 * `KEYDECK_CRASH_POINTS=all`, whose walks are the process's, the table is printed too).
 */
export async function walkStepsAndDocument<World>(scenario: StepScenario<World>, block: string, options: { concurrency?: number } = {}): Promise<{ traced: string[]; outcomes: CrashOutcome[] }> {
  const walk = await walkStepPoints(scenario, options);
  const violations = walk.outcomes.filter((o) => o.violations.length > 0).map((o) => `${o.point} / ${o.recovery}: ${o.violations.join('; ')} (${o.outcome})`);
  expect(violations).toEqual([]);
  const table = crashTable(walk.outcomes);
  if (walkedAll()) console.log(`${scenario.operation} (the kit's steps): ${walk.traced.length} points\n${table}`);
  expect(await syncDocBlock(block, table), 'the walk changed: KEYDECK_CRASH_DOCS=write npx vitest run test/crash (test/crash/harness.ts)').toBe(table);
  return walk;
}
