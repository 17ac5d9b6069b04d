/**
 * A card-on-file charge killed at every step (the one top-up procedure, src/operations/topUp.ts):
 * `keydeck billing topup --method card_direct` killed with SIGKILL at each boundary it passes, then
 * it and the TUI's top-up (rendered in this thread, through the walk-through's keys) stopped at
 * each step of the machine `topup` in process (./steps.ts); then `billing history` and the TUI's
 * next start. Checked after each: no card
 * charge the service made is missing from the record (each one is on record, verifying or
 * credited), and nothing is on record as credited that the service did not credit. The tables in
 * docs/crash-safety.md are the walks' (./harness.ts syncDocBlock says how to write them again).
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TopUpJournal, type JournalEntry } from '../../src/billing/journal.js';
import { topUpRecords } from './topUpRecords.js';
import { makeTempHome, runCli, type TempHome } from '../credentials/harness.js';
import { startTestSandbox, type TestSandbox } from '../tui/harness.js';
import { openBilling, recordingDeps } from '../tui/billing/billingHarness.js';
import { KEYS } from '../tui/render.js';
import { failpointsFrom } from '../../src/failpoints/index.js';
import { crashTable, distinctWorlds, syncDocBlock, walkCrashPoints, walkedAll, withoutStepTwins, type CrashOutcome } from './harness.js';
import { inThread, stepEnv, walkStepsAndDocument } from './steps.js';

const STOPPED = "stopped at the kit's failpoint";

let sb: TestSandbox;
beforeAll(async () => {
  sb = await startTestSandbox();
});
afterAll(async () => {
  await sb.close();
});

interface World {
  readonly home: TempHome;
  readonly env: NodeJS.ProcessEnv;
  readonly token: string;
}

const ARGS = ['billing', 'topup', '--amount', '25', '--method', 'card_direct', '--yes'];

async function freshWorld(): Promise<World> {
  const home = makeTempHome();
  const token = await sb.newUser();
  return { home, token, env: home.env({ KEYDECK_BASE_URL: sb.url, KEYDECK_DATA_DIR: path.join(home.home, 'data'), KEYDECK_TOKEN: token }) };
}

const records = (w: World): Promise<JournalEntry[]> => topUpRecords(w.env);

/** The card-on-file charges the sandbox lists for the account (credited or in flight). */
async function cardCharges(token: string): Promise<number> {
  const data = (await sb.call('GET', '/api/billing/status', { token })).body.data;
  return [...data.recentTopUps, ...data.pendingTopUps].filter((t: { method: string }) => t.method === 'card_direct').length;
}

/** `billing history --json` in a few words: each record's state. */
async function history(w: World): Promise<string> {
  const r = await runCli(['billing', 'history', '--json'], { env: w.env });
  if (r.code !== 0) return `exit ${r.code}`;
  const items = JSON.parse(r.stdout) as Array<{ state: string }>;
  return items.length === 0 ? 'no record' : `${items.length === 1 ? '1 record' : `${items.length} records`}: ${items.map((i) => i.state.replace('_', ' ')).join(', ')}`;
}

/** The TUI's next start on the Billing pane (in this thread): what it does with what it finds. */
async function tuiStart(w: World): Promise<string> {
  const journal = new TopUpJournal({ env: w.env });
  const unfinished = (await journal.list()).find((e) => e.state === 'verifying');
  const screen = openBilling(sb, w.token, { deps: recordingDeps(journal), profile: 'default' });
  try {
    if (!unfinished) {
      const frame = await screen.tui.waitFor(/remaining \$/, 15_000);
      return /\$25\.00\s+card direct\s+credited/.test(frame) ? 'shows it credited' : 'nothing to reopen';
    }
    // A charge its answer names: the billing status names it paid, and it is credited at once.
    if (unfinished.paymentId !== undefined) {
      await screen.tui.waitFor(/\$25\.00\s+card direct\s+credited/, 15_000);
      const entry = (await journal.list()).find((e) => e.id === unfinished.id);
      return entry?.state === 'credited' && /^the billing status lists/.test(entry.evidence ?? '') ? 'credits it: the billing status names it paid' : `shows it ${entry?.state ?? 'gone'}`;
    }
    await screen.tui.waitFor('⚠ unfinished top-up of $25.00', 15_000);
    return 'lists it: unfinished, its outcome unknown';
  } finally {
    screen.close();
    journal.close();
  }
}

const recoveries = { 'billing history': history, 'the TUI’s next start': tuiStart };

async function invariants(w: World): Promise<string[]> {
  const broken: string[] = [];
  const list = await records(w);
  const charges = await cardCharges(w.token);
  const onRecord = list.filter((e) => e.method === 'card_direct' && (e.state === 'verifying' || e.state === 'credited')).length;
  if (onRecord < charges) broken.push(`${charges} card charge${charges === 1 ? '' : 's'} at the service, ${onRecord} on the record`);
  const { totalTopUp } = await sb.credits(w.token);
  const credited = list.filter((e) => e.state === 'credited').reduce((sum, e) => sum + (e.credited ?? e.amount), 0);
  if (credited > totalTopUp) broken.push(`credited ${credited} on the record, ${totalTopUp} by the service`);
  return broken;
}

/** The points of a top-up: the record's writes and the charge's request (a poll of the balance is not one). */
const topUpPoints = (traced: readonly string[]) =>
  walkedAll() ? [...traced] : distinctWorlds(traced, ['getCredits']).filter((p) => p.startsWith('record.written:topups') || /^(request|answered):topUp#/.test(p));

describe('a card-on-file charge killed at every step', () => {
  it('billing topup --method card_direct: no charge is ever missing from the record; docs/crash-safety.md has the table', { timeout: 180_000 }, async () => {
    const { outcomes, traced } = await walkCrashPoints(
      {
        operation: 'billing topup --method card_direct',
        prepare: freshWorld,
        dispose: (w) => w.home.remove(),
        run: (w) => ({ args: ARGS, env: w.env }),
        recoveries,
        // A boundary directly followed by a step of the machine (the charge on record, its answer, the
        // credit on record) leaves the same record, the same charge at the service and no lock held as
        // the in-process stop there, so the same recoveries: walked in the test below (withoutStepTwins).
        points: (t, all) => (walkedAll() ? [...t] : withoutStepTwins([t[0]!, ...topUpPoints(t)], all)),
        invariants,
      },
      { concurrency: 3 },
    );
    expect(traced).toContain('answered:topUp#1');
    expect(outcomes.filter((o) => o.violations.length > 0).map((o) => `${o.point}, ${o.recovery}: ${o.violations.join('; ')} (${o.outcome})`)).toEqual([]);
    await document('card-topup', outcomes);
  });

  it('billing topup --method card_direct stopped at every step of its machine, in process: the same; docs/ has the table', { timeout: 180_000 }, async () => {
    const { traced } = await walkStepsAndDocument(
      inThread<World>({
        operation: "billing topup --method card_direct (the kit's steps)",
        prepare: freshWorld,
        dispose: (w) => w.home.remove(),
        run: (w) => ({ args: ARGS, env: w.env }),
        recoveries,
        invariants: (w) => invariants(w),
      }),
      'card-topup-steps',
    );
    expect(traced).toEqual(['topup.begin:recorded#1', 'topup.request#1', 'topup.request:recorded#1']);
  });

  it('the TUI’s top-up (t, 25, d, Charge) stopped at every step of its machine, in this thread: the same', { timeout: 240_000 }, async () => {
    const { traced } = await walkStepsAndDocument<World>(
      {
        operation: 'the TUI’s top-up',
        prepare: freshWorld,
        dispose: (w) => w.home.remove(),
        async run(w, points) {
          const journal = new TopUpJournal({ env: w.env });
          const failpoints = failpointsFrom(stepEnv(points));
          const screen = openBilling(sb, w.token, { deps: recordingDeps(journal), profile: 'default', ...(failpoints && { failpoints }) });
          const { tui } = screen;
          try {
            await tui.waitFor('remaining $0.00', 15_000);
            await tui.press('t');
            await tui.waitFor('1/3 amount');
            await tui.type('25');
            await tui.press(KEYS.enter);
            await tui.waitFor('2/3 method');
            await tui.press('d', KEYS.enter);
            await tui.waitFor('to the card on file?');
            await tui.press(KEYS.tab, KEYS.enter);
            const end = await tui.waitFor((f) => f.includes('Credited $25.00') || f.replace(/[│\s]+/g, ' ').includes(STOPPED), 15_000);
            return { stopped: end.replace(/[│\s]+/g, ' ').includes(STOPPED), said: tui.frames().join('\n') };
          } finally {
            screen.close();
            journal.close();
          }
        },
        recoveries,
        invariants: (w) => invariants(w),
      },
      'tui-card-topup',
      { concurrency: 2 },
    );
    expect(traced).toEqual(['topup.begin:recorded#1', 'topup.request#1', 'topup.request:recorded#1']);
  });
});

/** Keeps docs/crash-safety.md's block `block` equal to the walk's table (printed instead with KEYDECK_CRASH_POINTS=all). */
async function document(block: string, outcomes: readonly CrashOutcome[]): Promise<void> {
  const table = crashTable(outcomes);
  if (walkedAll()) console.log(`${block}\n${table}`);
  else expect(await syncDocBlock(block, table), 'the walk changed: KEYDECK_CRASH_DOCS=write npx vitest run test/crash (test/crash/harness.ts)').toBe(table);
}
