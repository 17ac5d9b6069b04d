/**
 * Auto top-up killed at each of its steps (issue 47 item 8, on the crash-point harness of issue
 * 42): after the kill, a rerun on the same machine, or a run of another machine with the same
 * policy, never makes a second charge for the same fall and never passes a cap; when it charges
 * nothing while the balance is still low, it says why. The table is in docs/crash-safety.md
 * (./harness.ts syncDocBlock says how to write it again).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestSandbox, type TestSandbox } from '../sandbox/helpers.js';
import { scripted, type Scripted } from '../commands/scripted.js';
import { crashTable, walkCrashPoints, type CrashScenario, distinctWorlds, syncDocBlock } from './harness.js';

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

/** Writes the policy below $20, $30 a charge, $30 a day (so a second charge would pass the cap) into `configDir`. */
function writePolicy(configDir: string): void {
  mkdirSync(configDir, { recursive: true, mode: 0o700 });
  const autoTopUp = { belowUsd: 20, amountUsd: 30, maxPerDayUsd: 30, maxPerMonthUsd: 300, since: new Date(Date.now() - 60_000).toISOString() };
  writeFileSync(path.join(configDir, 'config.json'), `${JSON.stringify({ version: 1, profiles: { default: { autoTopUp } } }, null, 2)}\n`, { mode: 0o600 });
}
const RUN = ['autotopup', 'run', '--once'];

async function runOn(world: World, cli: Scripted): Promise<string> {
  const r = await cli.run(world.token, RUN);
  world.lastWords.push(`${r.code}: ${r.stdout}${r.stderr}`);
  // Quiet for cron: a charge on stdout, nothing when nothing was needed, the rest on stderr.
  const line = (r.stdout.trim() || r.stderr.trim());
  if (line.startsWith('Charged $30.00')) return 'charges once';
  if (line === '' && r.code === 0) return 'nothing to do (already credited)';
  if (/in flight/.test(line) && r.code === 3) return 'charges nothing: a charge in flight (exit 3)';
  return `exit ${r.code}: ${line.slice(0, 60)}`;
}

const scenario: CrashScenario<World> = {
  operation: 'autotopup run --once',
  async prepare() {
    const token = await sb.fundedUser(25);
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
  // A kill right before a request, or after a read's answer, leaves the world of the point before.
  points: (traced) => distinctWorlds(traced, ['getCredits', 'getBillingStatus']),
  run(world) {
    return { args: RUN, env: world.machine.home.env({ KEYDECK_BASE_URL: sb.url, KEYDECK_TOKEN: world.token }) };
  },
  recoveries: {
    'rerun on this machine': (world) => runOn(world, world.machine),
    'a run on another machine': (world) => runOn(world, world.other),
    'resume, then rerun': async (world) => {
      expect((await world.machine.run(world.token, ['autotopup', 'resume'])).code).toBe(0);
      return runOn(world, world.machine);
    },
  },
  async invariants(world) {
    const broken: string[] = [];
    const { totalTopUp, remaining } = await sb.credits(world.token);
    if (totalTopUp > 55) broken.push(`charged twice for one fall (totalTopUp ${totalTopUp})`);
    if (totalTopUp > 25 + 30) broken.push(`passed the day's cap of 30 (totalTopUp ${totalTopUp})`);
    const said = world.lastWords.at(-1) ?? '';
    if (remaining < 20 && !/^[13]: \S/.test(said)) broken.push(`the balance is still low and the run did not say why: ${said}`);
    return broken;
  },
};

describe('auto top-up killed at each step', () => {
  it('never charges twice for one fall nor past a cap, and says why when it charges nothing', async () => {
    const { traced, outcomes } = await walkCrashPoints(scenario);
    expect(traced.length).toBeGreaterThanOrEqual(8);
    expect(new Set(outcomes.map((o) => o.point)).size).toBeGreaterThanOrEqual(5);
    expect(outcomes.flatMap((o) => o.violations.map((v) => `${o.point} / ${o.recovery}: ${v}`))).toEqual([]);
    const table = crashTable(outcomes);
    expect(await syncDocBlock('auto-topup', table), 'the walk changed: KEYDECK_CRASH_DOCS=write npx vitest run test/crash (test/crash/harness.ts)').toBe(table);
  }, 120_000);
});
