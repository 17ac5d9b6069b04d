/**
 * The crash-point harness: kills the built CLI (SIGKILL) at each boundary of its own
 * process that a multi-step operation passes — a request sent or answered, a credential stored, a
 * file renamed, a command started or ended, a record committed (src/failpoints) — then recovers
 * the way a user would (`--finish`, `--undo`, a plain rerun, the TUI's next start) and checks the
 * operation's invariants against the sandbox's truth and the files.
 *
 * Points are found, not listed by hand: {@link tracePoints} runs the operation once to its end
 * with `KEYDECK_FAILPOINT_TRACE`, and {@link walkCrashPoints} then starts a fresh world for each
 * point and each recovery, kills the run there with `KEYDECK_FAILPOINT=<name>#<n>`
 * ({@link runUntilKilled}), recovers and checks. A boundary added to the code is walked the next
 * time without a change here; a point no longer reached fails the walk (the trace is stale).
 *
 * The killed run is always a process of its own (a kill in the test's thread would kill the test);
 * the recoveries may run in the thread like any one-shot run. Every operation and face (the TUI,
 * rendered in the test's thread, included) is also stopped in process at each step of its machine
 * (./steps.ts: the same failpoints, `KEYDECK_FAILPOINT_ACTION=halt`).
 */
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pLimit from 'p-limit';
import { expect } from 'vitest';
import { isBoundary } from '../../src/failpoints/index.js';
import { runCli, type CliResult } from '../credentials/harness.js';

/** A point as src/failpoints writes it in a trace: `<name>#<n>` (`answered:createCreditKey#1`). */
export type CrashPoint = string;

/** How to run the operation: the CLI's whole environment, and its stdin. */
export interface CrashRunOptions {
  readonly env: NodeJS.ProcessEnv;
  readonly input?: string;
  /** Default 20,000 ms. */
  readonly timeoutMs?: number;
}

/**
 * Runs `keydeck …args` once, to its end, as a process, with a trace of the boundaries it passes.
 * @returns the run's result and its points, in the order reached; `all`: the boundaries and the
 *   steps of the kit's machines together, in the order reached
 */
export async function tracePoints(args: readonly string[], options: CrashRunOptions): Promise<{ result: CliResult; points: CrashPoint[]; all: CrashPoint[] }> {
  const dir = mkdtempSync(path.join(tmpdir(), 'keydeck-trace-'));
  const trace = path.join(dir, 'trace');
  try {
    const result = await runCli(args, { ...options, runner: 'process', env: { ...options.env, KEYDECK_FAILPOINT_TRACE: trace } });
    let text = '';
    try {
      text = readFileSync(trace, 'utf8');
    } catch {
      // No boundary reached.
    }
    // The operations' steps are walked in process (./steps.ts); a SIGKILL walk keeps the process's own boundaries.
    const all = text.split('\n').filter((p) => p !== '');
    return { result, points: all.filter((p) => isBoundary(p)), all };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Runs `keydeck …args` as a process and has it kill itself at `point`.
 * @throws Error when the run ended any other way (the point was not reached: its output is in the message)
 */
export async function runUntilKilled(point: CrashPoint, args: readonly string[], options: CrashRunOptions): Promise<CliResult> {
  const result = await runCli(args, { ...options, runner: 'process', env: { ...options.env, KEYDECK_FAILPOINT: point } });
  if (result.signal !== 'SIGKILL') {
    throw new Error(`keydeck ${args.join(' ')} was to be killed at ${point} but ended with code ${result.code}\nstdout: ${result.stdout}\nstderr: ${result.stderr}`);
  }
  return result;
}

/**
 * One operation walked by {@link walkCrashPoints}. `World` is whatever a scenario needs to find
 * again: the sandbox user, the temp home, the files.
 */
export interface CrashScenario<World> {
  /** The operation as docs/ names it in the table (`keys create --to-file`). */
  readonly operation: string;
  /** A fresh world: a new sandbox user, home and files, everything before the operation. */
  prepare(): Promise<World>;
  /** Removes what `prepare` made (default: nothing). */
  dispose?(world: World): Promise<void> | void;
  /** The operation's arguments and environment in `world`. */
  run(world: World): { args: readonly string[] } & CrashRunOptions;
  /**
   * The ways a user recovers, by name (`--finish`, `--undo`, `rerun`): each runs them in `world`
   * after the kill and says in a few words what came out (for the table in docs/).
   */
  readonly recoveries: Readonly<Record<string, (world: World) => Promise<string>>>;
  /** The invariants after the recovery `recovery`: one sentence for each one broken, else none. */
  invariants(world: World, recovery: string): Promise<string[]>;
  /**
   * The points to kill at, from the trace of a run to its end (default: every one); `all` is that
   * trace with the steps of the kit's machines among the boundaries ({@link withoutStepTwins}).
   */
  points?(traced: readonly CrashPoint[], all: readonly CrashPoint[]): CrashPoint[];
  /** The exit code of the run to its end (default 0: an operation that ends otherwise, such as a charge whose credit lags, says so here). */
  readonly tracedCode?: number;
}

/** One kill and one recovery of a walk. */
export interface CrashOutcome {
  readonly operation: string;
  readonly point: CrashPoint;
  readonly recovery: string;
  /** What the recovery said came out. */
  readonly outcome: string;
  /** The invariants broken (empty when none). */
  readonly violations: readonly string[];
}

/** Options of {@link walkCrashPoints}. */
export interface WalkOptions {
  /** Kills and recoveries at once (default 3: each mostly waits on processes and the sandbox). */
  readonly concurrency?: number;
}

/**
 * Walks every crash point of `scenario`: one traced run to the end (which must end with its
 * `tracedCode`, 0 by default), then for
 * each point and each recovery a fresh world, a run killed there, the recovery and the invariants.
 * @throws Error when the traced run fails, or a point is not reached again
 */
export async function walkCrashPoints<World>(scenario: CrashScenario<World>, options: WalkOptions = {}): Promise<{ traced: CrashPoint[]; outcomes: CrashOutcome[] }> {
  const first = await scenario.prepare();
  let traced: CrashPoint[];
  let whole: CrashPoint[];
  try {
    const { args, ...runOptions } = scenario.run(first);
    const { result, points, all } = await tracePoints(args, runOptions);
    if (result.code !== (scenario.tracedCode ?? 0)) throw new Error(`${scenario.operation}: the run to trace failed (${result.code})\nstdout: ${result.stdout}\nstderr: ${result.stderr}`);
    traced = points;
    whole = all;
  } finally {
    await scenario.dispose?.(first);
  }
  const points = scenario.points ? scenario.points(traced, whole) : traced;
  const limit = pLimit(options.concurrency ?? 3);
  const jobs = points.flatMap((point) =>
    Object.entries(scenario.recoveries).map(([recovery, recover]) =>
      limit(async (): Promise<CrashOutcome> => {
        const world = await scenario.prepare();
        try {
          const { args, ...runOptions } = scenario.run(world);
          await runUntilKilled(point, args, runOptions);
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
 * The outcomes as a Markdown table, one row a crash point and a column a recovery (the table of
 * docs/ for one operation): each cell the outcome, and "VIOLATED: …" with the invariants broken.
 */
export function crashTable(outcomes: readonly CrashOutcome[]): string {
  const recoveries = [...new Set(outcomes.map((o) => o.recovery))];
  const points = [...new Set(outcomes.map((o) => o.point))];
  const cell = (o: CrashOutcome | undefined) => (o === undefined ? '—' : o.violations.length > 0 ? `VIOLATED: ${o.violations.join('; ')}` : o.outcome).replace(/\|/g, '\\|');
  return [
    `| killed at | ${recoveries.join(' | ')} |`,
    `|---|${recoveries.map(() => '---').join('|')}|`,
    ...points.map((p) => `| \`${p}\` | ${recoveries.map((r) => cell(outcomes.find((o) => o.point === p && o.recovery === r))).join(' | ')} |`),
  ].join('\n');
}

/** docs/crash-safety.md, whose marker blocks hold the walks' tables. */
export const CRASH_DOC = path.join(import.meta.dirname, '../../docs/crash-safety.md');

/** The text between `<!-- crash:NAME -->` and `<!-- /crash:NAME -->` in `doc` (trimmed). */
export function docBlock(doc: string, name: string): string {
  const open = `<!-- crash:${name} -->`;
  const close = `<!-- /crash:${name} -->`;
  const a = doc.indexOf(open);
  const b = doc.indexOf(close);
  if (a === -1 || b < a) throw new Error(`docs/crash-safety.md has no block ${open} … ${close}`);
  return doc.slice(a + open.length, b).trim();
}

/**
 * Keeps the block `name` of docs/crash-safety.md equal to `text` (a walk's table): returns the
 * block as the doc has it, for the test to compare. With `KEYDECK_CRASH_DOCS=write` it writes
 * `text` into the block first (under a lock file: several walks may write at once), so that
 * `KEYDECK_CRASH_DOCS=write npx vitest run test/crash` regenerates every table.
 */
export async function syncDocBlock(name: string, text: string): Promise<string> {
  if (process.env.KEYDECK_CRASH_DOCS === 'write') {
    const lock = `${CRASH_DOC}.lock`;
    let fd: number | undefined;
    for (let i = 0; fd === undefined; i++) {
      try {
        fd = openSync(lock, 'wx');
      } catch {
        if (i > 200) throw new Error(`${lock} is held: remove it if no walk runs`);
        await new Promise((r) => setTimeout(r, 50));
      }
    }
    try {
      const doc = readFileSync(CRASH_DOC, 'utf8');
      const open = `<!-- crash:${name} -->`;
      const close = `<!-- /crash:${name} -->`;
      writeFileSync(CRASH_DOC, `${doc.slice(0, doc.indexOf(open) + open.length)}\n${text}\n${doc.slice(doc.indexOf(close))}`);
    } finally {
      closeSync(fd);
      unlinkSync(lock);
    }
  }
  return docBlock(readFileSync(CRASH_DOC, 'utf8'), name);
}

/**
 * The points a walk kills at: `chosen` (a suite keeps its cost modest: the boundaries where the
 * world differs), or with `KEYDECK_CRASH_POINTS=all` every point traced (a thorough run by hand;
 * its table is then printed, not compared with docs/). A chosen point the trace does not have
 * fails the walk (the operation changed: choose again).
 */
export function chosenPoints(traced: readonly CrashPoint[], chosen: readonly CrashPoint[]): CrashPoint[] {
  if (process.env.KEYDECK_CRASH_POINTS === 'all') return [...traced];
  const missing = chosen.filter((p) => !traced.includes(p));
  if (missing.length > 0) throw new Error(`not reached any more: ${missing.join(', ')} (traced: ${traced.join(', ')})`);
  return traced.filter((p) => chosen.includes(p));
}

/**
 * The points of `traced` after which a kill can leave a world of its own: a `request:` point is
 * reached right after the point before it with nothing done between (the request is about to be
 * sent); the answer of a read (`reads`: operation names, `listManagementKeys`) changed nothing
 * since its request; a `file.renamed:` point directly followed by `store.written:` or
 * `store.deleted` is the store's own write (the credential file renamed, then the store says so);
 * and one directly followed by `record.written:` is the record's (the top-up record's summary,
 * written between its commit and the point that says so: src/billing/journal.ts).
 * The first point is always kept.
 */
export function distinctWorlds(traced: readonly CrashPoint[], reads: readonly string[] = []): CrashPoint[] {
  const read = (p: string) => reads.some((op) => p.startsWith(`answered:${op}#`));
  const ownWrite = (p: string | undefined) => p !== undefined && (p.startsWith('store.written:') || p.startsWith('store.deleted') || p.startsWith('record.written:'));
  return traced.filter((p, i) => i === 0 || (!p.startsWith('request:') && !(read(p) && i > 0) && !(p.startsWith('file.renamed:') && ownWrite(traced[i + 1]))));
}

/**
 * `points` without those whose world the walk of the kit's steps (./steps.ts) stops at too: a
 * boundary directly followed, in the run's whole trace `all`, by a step of the kit's machine
 * (`<machine>.<step>`, `<machine>.<step>:recorded`), with nothing done between the two. The walk of
 * the steps stops the same operation there in process ("as a killed process would":
 * src/operations/kit.ts), recovers it the same ways and checks the same invariants, so a SIGKILL
 * walk beside it keeps what only a killed process has: a command still running, a point outside
 * the kit's steps (the rules stored, a read's answer), and its first point, killed for real
 * (a walk always kills somewhere). Under `KEYDECK_CRASH_POINTS=all`, every point of `points`.
 */
export function withoutStepTwins(points: readonly CrashPoint[], all: readonly CrashPoint[]): CrashPoint[] {
  if (walkedAll()) return [...points];
  const twin = (p: CrashPoint) => {
    const at = all.indexOf(p);
    return at >= 0 && at + 1 < all.length && !isBoundary(all[at + 1]!);
  };
  return points.filter((p, i) => i === 0 || !twin(p));
}

/** True when the walk ran every traced point (`KEYDECK_CRASH_POINTS=all`): its table is not docs/'s. */
export function walkedAll(): boolean {
  return process.env.KEYDECK_CRASH_POINTS === 'all';
}

/**
 * Walks `scenario` ({@link walkCrashPoints}), expects no invariant broken at any point and
 * recovery, and keeps docs/crash-safety.md's block `block` equal to the walk's table
 * ({@link syncDocBlock}); under `KEYDECK_CRASH_POINTS=all` the table is printed instead.
 * @returns the walk, for a suite's own checks
 */
export async function walkAndDocument<World>(scenario: CrashScenario<World>, block: string, options: WalkOptions = {}): Promise<{ traced: CrashPoint[]; outcomes: CrashOutcome[] }> {
  const walk = await walkCrashPoints(scenario, options);
  const violations = walk.outcomes.filter((o) => o.violations.length > 0).map((o) => `${o.point} / ${o.recovery}: ${o.violations.join('; ')} (${o.outcome})`);
  expect(violations).toEqual([]);
  const table = crashTable(walk.outcomes);
  if (walkedAll()) console.log(`${scenario.operation}: ${walk.traced.length} points\n${table}`);
  else expect(await syncDocBlock(block, table)).toBe(table);
  return walk;
}
