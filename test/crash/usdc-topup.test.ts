/**
 * A USDC top-up killed at every step (I4; the machine over the top-up record of
 * src/billing/journalEntry.ts and verifyUsdc.ts): the instruction (`billing topup --method usdc`)
 * and its verify (`billing verify --tx HASH`, here the second verify of the instruction, after one
 * with a hash the service did not know, and without `--amount`) are each killed
 * with SIGKILL at every boundary they pass, then taken up by a plain rerun, by the next `billing
 * history` and by the TUI's next start (rendered in this thread on the Billing pane), and I4 is
 * checked against the sandbox's balance and the record:
 *
 * - one instruction is one record: every record has its deposit address, and the verify's record
 *   is the instruction's, with the earlier hash kept;
 * - nothing is credited twice (the total of top-ups is at most the transfer);
 * - money credited by the service is never left "awaiting payment"; a rerun ends credited;
 * - no screen invites paying twice: the TUI shows no "Send exactly" for a top-up a transfer was
 *   named for, and no "finish it" banner.
 *
 * The tables in docs/crash-safety.md are the walks' (./harness.ts syncDocBlock says how to write them again).
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TopUpJournal, type JournalEntry } from '../../src/billing/journal.js';
import { topUpRecords } from './topUpRecords.js';
import { makeTempHome, runCli, type CliResult, type TempHome } from '../credentials/harness.js';
import { startTestSandbox, type TestSandbox } from '../tui/harness.js';
import { openBilling, recordingDeps } from '../tui/billing/billingHarness.js';
import { failpointsFrom } from '../../src/failpoints/index.js';
import { KEYS } from '../tui/render.js';
import { crashTable, walkCrashPoints, type CrashOutcome, type CrashScenario, distinctWorlds, syncDocBlock, withoutStepTwins } from './harness.js';
import { inThread, stepEnv, walkStepPoints, walkStepsAndDocument } from './steps.js';

const STOPPED = "stopped at the kit's failpoint";
const flat = (frame: string) => frame.replace(/[│\s]+/g, ' ');

let sb: TestSandbox;
beforeAll(async () => {
  sb = await startTestSandbox();
});
afterAll(async () => {
  await sb.close();
});

const unknownHash = () => `0x${[...Array(64)].map(() => '0123456789abcdef'[Math.floor(Math.random() * 16)]).join('')}`;

/** One world: a sandbox user, a temp home, and (for the verify) an instruction paid by `tx`. */
interface World {
  readonly home: TempHome;
  readonly env: NodeJS.ProcessEnv;
  readonly token: string;
  /** The instruction's deposit address (the verify scenario). */
  readonly address?: string;
  /** The transfer paying it, and the hash verified before it that the service did not know. */
  readonly tx?: string;
  readonly earlier?: string;
}

const records = (w: World): Promise<JournalEntry[]> => topUpRecords(w.env);

async function freshWorld(withInstruction: boolean): Promise<World> {
  const home = makeTempHome();
  const token = await sb.newUser();
  const env = home.env({ KEYDECK_BASE_URL: sb.url, KEYDECK_DATA_DIR: path.join(home.home, 'data'), KEYDECK_TOKEN: token });
  if (!withInstruction) return { home, env, token };
  const topup = await runCli(['billing', 'topup', '--amount', '25', '--method', 'usdc', '--json'], { env });
  if (topup.code !== 0) throw new Error(`topup failed: ${topup.stderr}`);
  const address = (JSON.parse(topup.stdout) as { address: string }).address;
  const earlier = unknownHash();
  const first = await runCli(['billing', 'verify', '--tx', earlier, '--amount', '25'], { env });
  if (first.code !== 1) throw new Error(`the first verify was to be not found: ${first.stderr}`);
  const tx = await sb.transfer(address, '25');
  return { home, env, token, address, tx, earlier };
}

/** What a rerun said, in a few words. */
function said(r: CliResult): string {
  if (r.code === 0) {
    if (/^Credited 25\.00 USD/m.test(r.stdout)) return 'credited by this verify';
    if (/earlier verification of this transaction, whose answer was lost, credited it/.test(r.stdout)) return 'credited: its own earlier verify, recognised';
    if (/^Send exactly 25 USDC/m.test(r.stdout))
      return /an earlier USDC top-up still awaits payment/.test(r.stderr) ? 'a new instruction, on record; the earlier one named' : 'a new instruction, on record';
    return r.stdout.trim().split('\n')[0] ?? '';
  }
  if (/^keydeck: already_credited: /m.test(r.stderr)) return 'already credited on record: nothing sent (exit 1)';
  return `exit ${r.code}: ${(r.stderr.split('\n').find((l) => l.startsWith('keydeck:')) ?? '').slice(0, 100)}`;
}

/** `billing history --json` in a few words: each record's state. */
async function history(w: World): Promise<string> {
  const r = await runCli(['billing', 'history', '--json'], { env: w.env });
  if (r.code !== 0) return `exit ${r.code}`;
  const items = JSON.parse(r.stdout) as Array<{ state: string }>;
  return items.length === 0 ? 'no record' : `${items.length === 1 ? '1 record' : `${items.length} records`}: ${items.map((i) => i.state.replace('_', ' ')).join(', ')}`;
}

/** The TUI's next start on the Billing pane (in this thread): what it shows, and the screen (kept for the invariants). */
const screens = new WeakMap<World, string>();
async function tuiStart(w: World): Promise<string> {
  const journal = new TopUpJournal({ env: w.env });
  const unfinished = (await journal.list()).find((e) => e.state === 'awaiting_payment' || e.state === 'verifying');
  const screen = openBilling(sb, w.token, { deps: recordingDeps(journal), profile: 'default' });
  try {
    let frame: string;
    if (unfinished) {
      // A line of the pane, selected: enter takes it up (the pane is not opened over).
      await screen.tui.waitFor(/⚠ (unfinished top-up of|top-up of .* sent, not credited yet)/, 15_000);
      await screen.tui.press('\r');
      frame = await screen.tui.waitFor('Top up · 3/3 pay · USDC on Base', 15_000);
    } else {
      frame = await screen.tui.waitFor(/recent top-ups|No top-ups|remaining \$/, 15_000);
    }
    screens.set(w, frame);
    if (!unfinished) return 'nothing to reopen';
    if (frame.includes('its outcome is not known yet')) return 'reopens it: "verify it again, do not send again"';
    if (frame.includes('A transfer was named')) return 'reopens it: "verify it again, or give its right hash"';
    if (frame.includes('Send exactly')) return 'reopens it: "Send exactly 25 USDC"';
    return 'reopens it';
  } finally {
    screen.close();
    journal.close();
  }
}

function scenario(kind: 'instruction' | 'verify'): CrashScenario<World> {
  const args = (w: World) => (kind === 'instruction' ? ['billing', 'topup', '--amount', '25', '--method', 'usdc'] : ['billing', 'verify', '--tx', w.tx!]);
  return {
    operation: kind === 'instruction' ? 'billing topup --method usdc' : 'billing verify --tx',
    prepare: () => freshWorld(kind === 'verify'),
    dispose: (w) => w.home.remove(),
    run: (w) => ({ args: args(w), env: w.env }),
    recoveries: {
      rerun: async (w) => said(await runCli(args(w), { env: w.env })),
      'billing history': history,
      'the TUI’s next start': tuiStart,
    },
    // Each step, but before its first request (the world before the run); and not a boundary
    // directly followed by a step of the machine (the record written before the request, the
    // request's answer, the answer on record): the same record, the same top-up at the service and
    // no lock held as the in-process stop there, so the same recoveries, walked below (withoutStepTwins).
    points: (traced, all) =>
      withoutStepTwins(
        distinctWorlds(traced, ['getCredits', 'getBillingStatus']).filter((p) => !p.startsWith('request:')),
        all,
      ),
    async invariants(w, recovery) {
      const broken: string[] = [];
      const list = await records(w);
      const { totalTopUp } = await sb.credits(w.token);
      if (totalTopUp > 25) broken.push(`credited twice: the total of top-ups is ${totalTopUp}`);
      if (list.some((e) => e.address === undefined)) broken.push('a record without its deposit address');
      if (list.some((e) => e.state === 'awaiting_payment' && e.address === undefined)) broken.push('a record awaits payment that no money can reach');
      if (kind === 'verify') {
        if (list.length !== 1) broken.push(`${list.length} records for one instruction`);
        const [entry] = list;
        if (entry && entry.address?.toLowerCase() !== w.address!.toLowerCase()) broken.push('the record lost its deposit address');
        if (entry && entry.txHash !== w.earlier && !entry.triedHashes?.includes(w.earlier!)) broken.push('the earlier hash is lost');
        if (totalTopUp === 25 && entry?.state === 'awaiting_payment') broken.push('credited by the service, still awaiting payment');
        if (recovery === 'rerun' && entry?.state !== 'credited') broken.push(`a rerun left it ${entry?.state}`);
      } else if (recovery === 'rerun' && !list.some((e) => e.state === 'awaiting_payment')) {
        broken.push('the rerun’s instruction is not on record');
      }
      const frame = screens.get(w);
      if (frame !== undefined) {
        if (kind === 'verify' && frame.includes('Send exactly')) broken.push('the TUI invites paying again ("Send exactly")');
        if (/finish it/.test(frame) && kind === 'verify') broken.push('the TUI invites finishing a paid top-up');
      }
      return broken;
    },
  };
}

describe('a USDC top-up killed at every step', () => {
  it('keeps I4 whatever step is killed and however it is taken up; docs/crash-safety.md has the table', { timeout: 240_000 }, async () => {
    const parts: Array<{ title: string; outcomes: readonly CrashOutcome[] }> = [];
    for (const [kind, title] of [
      ['instruction', '**`keydeck billing topup --amount 25 --method usdc`** (the instruction):'],
      ['verify', '**`keydeck billing verify --tx HASH`** (its second verify, the first having named a hash the service did not know; no `--amount`):'],
    ] as const) {
      const { outcomes } = await walkCrashPoints(scenario(kind), { concurrency: 3 });
      parts.push({ title, outcomes });
    }
    const outcomes = parts.flatMap((p) => p.outcomes);
    expect(outcomes.filter((o) => o.violations.length > 0).map((o) => `${o.operation} at ${o.point}, ${o.recovery}: ${o.violations.join('; ')}`)).toEqual([]);
    const table = parts.map((p) => `${p.title}\n\n${crashTable(p.outcomes)}`).join('\n\n');
    expect(await syncDocBlock('usdc-topup', table), 'the walk changed: KEYDECK_CRASH_DOCS=write npx vitest run test/crash (test/crash/harness.ts)').toBe(table);
  });
});

describe('a USDC top-up stopped at every step of its machines, in process', () => {
  it('billing topup --method usdc and billing verify --tx: I4 whatever step it stops at; docs/ has the table', { timeout: 240_000 }, async () => {
    const parts: Array<{ title: string; outcomes: readonly CrashOutcome[] }> = [];
    for (const [kind, title] of [
      ['instruction', '**`keydeck billing topup --amount 25 --method usdc`** (the machine `topup`):'],
      ['verify', '**`keydeck billing verify --tx HASH`** (the machine `verify`):'],
    ] as const) {
      const { traced, outcomes } = await walkStepPoints(inThread(scenario(kind)));
      expect(traced).toEqual(
        kind === 'instruction' ? ['topup.begin:recorded#1', 'topup.request#1', 'topup.request:recorded#1'] : ['verify.begin:recorded#1', 'verify.verify#1', 'verify.verify:recorded#1'],
      );
      parts.push({ title, outcomes });
    }
    const outcomes = parts.flatMap((p) => p.outcomes);
    expect(outcomes.filter((o) => o.violations.length > 0).map((o) => `${o.operation} at ${o.point}, ${o.recovery}: ${o.violations.join('; ')}`)).toEqual([]);
    const table = parts.map((p) => `${p.title}\n\n${crashTable(p.outcomes)}`).join('\n\n');
    expect(await syncDocBlock('usdc-topup-steps', table), 'the walk changed: KEYDECK_CRASH_DOCS=write npx vitest run test/crash (test/crash/harness.ts)').toBe(table);
  });

  it('the TUI’s USDC top-up (t, 25, USDC, the transfer, h, its hash): the same', { timeout: 240_000 }, async () => {
    const { traced } = await walkStepsAndDocument<World & { sent?: string }>(
      {
        operation: 'the TUI’s USDC top-up',
        prepare: () => freshWorld(false),
        dispose: (w) => w.home.remove(),
        async run(w, points) {
          const journal = new TopUpJournal({ env: w.env });
          const failpoints = failpointsFrom(stepEnv(points));
          const screen = openBilling(sb, w.token, { deps: recordingDeps(journal), profile: 'default', ...(failpoints && { failpoints }) });
          const { tui } = screen;
          const ended = (f: string) => f.includes('Credited $25.00') || flat(f).includes(STOPPED);
          try {
            await tui.waitFor('remaining $0.00', 15_000);
            await tui.press('t');
            await tui.waitFor('1/3 amount');
            await tui.type('25');
            await tui.press(KEYS.enter);
            await tui.waitFor('2/3 method');
            await tui.press(KEYS.enter);
            let end = await tui.waitFor((f) => f.includes('To address') || ended(f), 15_000);
            if (!ended(end)) {
              const address = /0x[0-9a-fA-F]{40}/.exec(end)![0];
              const hash = await sb.transfer(address, '25');
              Object.assign(w, { address, tx: hash });
              await tui.press('h');
              await tui.waitFor('tx hash:');
              await tui.press(hash);
              await tui.waitFor('✓ a valid transaction hash');
              await tui.press(KEYS.enter);
              end = await tui.waitFor(ended, 15_000);
            }
            return { stopped: flat(end).includes(STOPPED), said: tui.frames().join('\n') };
          } finally {
            screen.close();
            journal.close();
          }
        },
        recoveries: { 'billing history': history, 'the TUI’s next start': tuiStart },
        async invariants(w) {
          // I4, as for the commands: one instruction one record with its deposit address, nothing
          // credited twice, money credited never left awaiting payment, no screen inviting to pay twice.
          const broken: string[] = [];
          const list = await records(w);
          const { totalTopUp } = await sb.credits(w.token);
          if (totalTopUp > 25) broken.push(`credited twice: the total of top-ups is ${totalTopUp}`);
          if (list.length > 1) broken.push(`${list.length} records for one instruction`);
          const [entry] = list;
          if (entry && entry.address === undefined) broken.push('a record without its deposit address');
          // Stopped once it was on record and before it was shown: none was shown, none paid.
          if (entry?.address !== undefined && w.address !== undefined && entry.address.toLowerCase() !== w.address.toLowerCase())
            broken.push('the record is not the instruction shown (its deposit address)');
          if (totalTopUp === 25 && entry?.state === 'awaiting_payment') broken.push('credited by the service, still awaiting payment');
          if (entry?.txHash !== undefined && screens.get(w)?.includes('Send exactly')) broken.push('the TUI invites paying again ("Send exactly")');
          return broken;
        },
      },
      'tui-usdc-topup',
      { concurrency: 2 },
    );
    expect(traced).toEqual(['topup.begin:recorded#1', 'topup.request#1', 'topup.request:recorded#1', 'verify.begin:recorded#1', 'verify.verify#1', 'verify.verify:recorded#1']);
  });
});
