/**
 * Auto top-up killed at each of its steps (on the crash-point harness of issue
 * 42): after the kill, a rerun on the same machine, a run of another machine with the same
 * policy, both machines started at once (real processes, each with its own settle window), or a
 * resume and a rerun never make a second charge for the same fall and never pass a cap; when they
 * charge nothing while the balance is still low, they say why. The day cap is three charges, so
 * that a broken in-flight block fails the invariant, not only the table. Walked twice: with a card
 * whose credit lands at once, and with one whose credit lags (`POST /sandbox/cards/delay`), so the
 * lost answer and the charge in flight are walked with the money still in flight. The tables are
 * in docs/crash-safety.md (./harness.ts syncDocBlock says how to write them again);
 * KEYDECK_CRASH_POINTS=all walks every traced point and prints the tables instead.
 *
 * Each walk is also stopped at every step of the `autotopup` machine in process (./steps.ts), and
 * a SIGKILL is kept only where the world is one of its own. Two points are the same world when
 * nothing is done between them: a kill right before a request leaves the world of the point before
 * it, and so does one after a read's answer (`distinctWorlds`); and a boundary directly followed by
 * a step of the machine (`record.written:topups#1` by `autotopup.begin:recorded#1`, the charge's
 * `answered:topUp#1` by `autotopup.charge#1`, `record.written:topups#2` by
 * `autotopup.charge:recorded#1`) leaves what the stop there leaves: the same record on disk, the
 * same charge at the service, no lock held (the operating system drops a killed process's locks;
 * a stop releases them: src/operations/kit.ts), so the same next effect and the same recoveries,
 * which the in-process walk runs each (`withoutStepTwins`). The first point is always a real kill.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, type CliResult } from '../credentials/harness.js';
import { startTestSandbox, type TestSandbox } from '../sandbox/helpers.js';
import { scripted, type Scripted } from '../commands/scripted.js';
import { distinctWorlds, walkAndDocument, walkedAll, withoutStepTwins, type CrashOutcome, type CrashScenario } from './harness.js';
import { inThread, walkStepsAndDocument } from './steps.js';

let sb: TestSandbox;
beforeAll(async () => {
  sb = await startTestSandbox();
});
afterAll(async () => {
  await sb?.close();
});

interface World {
  readonly token: string;
  readonly machine: Scripted;
  readonly other: Scripted;
  readonly lastWords: string[];
}

/** The policy: below $20, $30 a charge, $90 a day (three charges: a second charge for one fall is within the cap). */
const POLICY = { belowUsd: 20, amountUsd: 30, maxPerDayUsd: 90, maxPerMonthUsd: 300 };

/** Writes the policy into `configDir`. */
function writePolicy(configDir: string): void {
  mkdirSync(configDir, { recursive: true, mode: 0o700 });
  const autoTopUp = { ...POLICY, since: new Date(Date.now() - 60_000).toISOString() };
  writeFileSync(path.join(configDir, 'config.json'), `${JSON.stringify({ version: 1, profiles: { default: { autoTopUp } } }, null, 2)}\n`, { mode: 0o600 });
}
const RUN = ['autotopup', 'run', '--once'];
/**
 * Each machine's settle window when both start at once: apart, so that one acts and the other
 * then finds what it did (which one acts first is not part of the table: on a busy machine the
 * second process may start late).
 */
const SETTLE = { machine: '0-0.2', other: '2-2.5' } as const;

/** What a run said, in the table's words. */
function said(r: CliResult): string {
  // Quiet for cron: a charge on stdout, nothing when nothing was needed, the rest on stderr.
  const line = r.stdout.trim() || r.stderr.trim();
  if (line.startsWith('Charged $30.00')) return 'charges once';
  if (r.code === 3 && /was sent, but its answer does not say it was credited/.test(line)) return 'charges once, its credit pending (exit 3)';
  if (line === '' && r.code === 0) return 'nothing to do (already credited)';
  // A charge whose credit lags, made by the other machine at once, is in flight when this run first
  // reads the status, or appears while it settles (it serves the fall): which one depends on when
  // each process started, and both charge nothing for the same reason.
  if (r.code === 3 && (/in flight/.test(line) || /it serves this fall/.test(line))) return 'charges nothing: a charge in flight (exit 3)';
  return `exit ${r.code}: ${line.slice(0, 60)}`;
}

/** The environment of `cli`'s runs in `world`, with the settle wait `settle` (seconds). */
function envOf(world: World, cli: Scripted, settle: string): NodeJS.ProcessEnv {
  return cli.home.env({ KEYDECK_BASE_URL: sb.url, KEYDECK_TOKEN: world.token, KEYDECK_AUTOTOPUP_SETTLE_SECONDS: settle });
}

async function runOn(world: World, cli: Scripted): Promise<string> {
  const r = await runCli(RUN, { env: envOf(world, cli, '0'), timeoutMs: 45_000 });
  world.lastWords.push(`${r.code}: ${r.stdout}${r.stderr}`);
  return said(r);
}

/** The card-on-file charges the sandbox lists for the account (credited or in flight). */
async function cardCharges(token: string): Promise<number> {
  const data = (await sb.call('GET', '/api/billing/status', { token })).body.data;
  return [...data.recentTopUps, ...data.pendingTopUps].filter((t: { method: string }) => t.method === 'card_direct').length;
}

/** The reads whose answer changes nothing (./harness.ts distinctWorlds). */
const READS = ['getCredits', 'getBillingStatus'];
/** The whole trace (boundaries and steps) of each SIGKILL walk's run to its end, by its credit's lag. */
const wholeTraces = new Map<number, string[]>();

/** The walk of `autotopup run --once`, its card's credit lagging by `lagSeconds` (0: credited at once). */
function scenario(lagSeconds: number): CrashScenario<World> {
  return {
    operation: `autotopup run --once${lagSeconds > 0 ? ' (credit lagging)' : ''}`,
    ...(lagSeconds > 0 && { tracedCode: 3 }),
    async prepare() {
      const token = await sb.fundedUser(25);
      if (lagSeconds > 0) expect((await sb.call('POST', '/sandbox/cards/delay', { token, body: { seconds: lagSeconds } })).status).toBe(200);
      const machine = scripted(sb.url);
      const other = scripted(sb.url);
      // The policy as `keydeck autotopup set` writes it (tested in test/commands/autotopup.test.ts),
      // written directly: two CLI runs a world would double the walk's cost.
      for (const cli of [machine, other]) writePolicy(cli.home.configDir);
      const key = await sb.creditKey(token, 'spender');
      expect((await sb.infer(key.apiKey, { sandbox_cost_usd: 10 })).status).toBe(200);
      return { token, machine, other, lastWords: [] };
    },
    dispose(world) {
      world.machine.home.remove();
      world.other.home.remove();
    },
    // A kill right before a request, or after a read's answer, leaves the world of the point before;
    // one directly before a step of the machine, the world its in-process walk stops at (see above).
    points: (traced, all) => {
      wholeTraces.set(lagSeconds, [...all]);
      return walkedAll() ? [...traced] : withoutStepTwins(distinctWorlds(traced, READS), all);
    },
    run(world) {
      return { args: RUN, env: envOf(world, world.machine, '0') };
    },
    recoveries: {
      'rerun on this machine': (world) => runOn(world, world.machine),
      'a run on another machine': (world) => runOn(world, world.other),
      'both machines at once': async (world) => {
        const [here, there] = await Promise.all((['machine', 'other'] as const).map((who) => runCli(RUN, { env: envOf(world, world[who], SETTLE[who]), runner: 'process', timeoutMs: 45_000 })));
        for (const r of [here!, there!]) world.lastWords.push(`${r.code}: ${r.stdout}${r.stderr}`);
        return [said(here!), said(there!)].sort().join(' / ');
      },
      'resume, then rerun': async (world) => {
        expect((await runCli(['autotopup', 'resume'], { env: envOf(world, world.machine, '0') })).code).toBe(0);
        return runOn(world, world.machine);
      },
    },
    async invariants(world) {
      const broken: string[] = [];
      const charges = await cardCharges(world.token);
      const { totalTopUp, remaining } = await sb.credits(world.token);
      if (charges > 1) broken.push(`charged ${charges} times for one fall`);
      if (charges * 30 > POLICY.maxPerDayUsd) broken.push(`passed the day's cap of ${POLICY.maxPerDayUsd} (${charges} charges)`);
      if (lagSeconds === 0 && totalTopUp !== 25 + charges * 30) broken.push(`the service credited ${totalTopUp - 25} for ${charges} charges`);
      const words = world.lastWords.slice(-2);
      if (remaining < 20 && !words.every((w) => /^[013]: \S/.test(w))) broken.push(`the balance is still low and a run did not say why: ${words.join(' / ')}`);
      return broken;
    },
  };
}

/** The machine's steps a walk stops at in process: the charge on record, its request sent, its answer on record. */
const STEPS = ['autotopup.begin:recorded#1', 'autotopup.charge#1', 'autotopup.charge:recorded#1'];

/**
 * The distinct worlds of a SIGKILL walk that it did not kill at (`killed`) are each directly
 * followed, in the run's whole trace, by a step of the machine that the in-process walk stopped at
 * (`stopped`) and recovered every way. @returns the worlds the two walks cover together
 */
function expectTwinsWalked(traced: readonly string[], killed: ReadonlySet<string>, lagSeconds: number, stopped: readonly CrashOutcome[]): Set<string> {
  const all = wholeTraces.get(lagSeconds)!;
  const twins = distinctWorlds(traced, READS).filter((p) => !killed.has(p));
  if (twins.length > 0) expect(stopped.length, 'the in-process walk (the test before this one in the file) ran').toBeGreaterThan(0);
  for (const p of twins) {
    const twin = all[all.indexOf(p) + 1]!;
    expect(
      stopped.filter((o) => o.point === twin).map((o) => o.recovery),
      `${p}: its twin ${twin} recovered every way in process`,
    ).toEqual(RECOVERIES);
  }
  return new Set([...killed, ...twins]);
}

/** The ways the walks recover, in the tables' order. */
const RECOVERIES = Object.keys(scenario(0).recoveries);

/** The steps a walk stopped at, each with every recovery (the in-process walk's outcomes). */
function expectEveryRecovery(outcomes: readonly CrashOutcome[]): void {
  for (const step of STEPS)
    expect(
      outcomes.filter((o) => o.point === step).map((o) => o.recovery),
      step,
    ).toEqual(RECOVERIES);
}

describe('auto top-up killed at each step', () => {
  let stoppedAtOnce: readonly CrashOutcome[] = [];
  let stoppedLagging: readonly CrashOutcome[] = [];

  it('stopped at every step of its machine, in process: the same invariants; the table is in docs/', async () => {
    const { traced, outcomes } = await walkStepsAndDocument(inThread(scenario(0)), 'auto-topup-steps');
    expect(traced).toEqual(STEPS);
    expectEveryRecovery(outcomes);
    stoppedAtOnce = outcomes;
  }, 180_000);

  it('never charges twice for one fall nor past a cap, and says why when it charges nothing', async () => {
    const { traced, outcomes } = await walkAndDocument(scenario(0), 'auto-topup');
    expect(traced.length).toBeGreaterThanOrEqual(8);
    // The charge's answer is one record write (its payment id and its credit at once): 4 worlds,
    // the first killed, the others stopped at in process (the test above).
    expect(expectTwinsWalked(traced, new Set(outcomes.map((o) => o.point)), 0, stoppedAtOnce).size).toBeGreaterThanOrEqual(4);
  }, 180_000);

  it('with the card’s credit lagging, stopped at every step of its machine, in process: the same; the table is in docs/', async () => {
    const { traced, outcomes } = await walkStepsAndDocument(inThread(scenario(600)), 'auto-topup-lagging-steps');
    expect(traced).toEqual(STEPS);
    expectEveryRecovery(outcomes);
    stoppedLagging = outcomes;
  }, 180_000);

  it('with the card’s credit lagging: the same, with the money still in flight', async () => {
    const { traced, outcomes } = await walkAndDocument(scenario(600), 'auto-topup-lagging');
    expect(traced).toContain('answered:topUp#1');
    expect(expectTwinsWalked(traced, new Set(outcomes.map((o) => o.point)), 600, stoppedLagging).size).toBeGreaterThanOrEqual(4);
  }, 180_000);
});
