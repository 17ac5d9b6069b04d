/**
 * The crash-point walk of a pledge's key (src/operations/pledgeKey.ts): `keys create
 * --subscription PLEDGE pool-key --to-file .env` for a pool pledge without a key, killed (SIGKILL)
 * at each chosen boundary, then recovered by `--finish`, by the same command again and by
 * `--undo --yes`. Beyond the shared invariants: the pledge ends with exactly one active key after
 * a finish ("one key per subscription" never blocks minting the replacement of a key whose value
 * was lost), and none after an undo. docs/crash-safety.md's `pledge-key` table.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { startTestSandbox, type TestSandbox } from '../sandbox/helpers.js';
import { chosenPoints, walkAndDocument, withoutStepTwins, type CrashScenario } from './harness.js';
import { inThread, walkStepsAndDocument } from './steps.js';
import { commonInvariants, disposeKeyWorld, fileKey, fileText, keyIdOf, keysOf, makeKeyWorld, recover, worldSummary, type KeyWorld } from './keyWorld.js';

let root: string;
/** The sandbox the worlds share while its pool has seats (the newer pages' dialect: pool pledges). */
let shared: TestSandbox;
beforeAll(async () => {
  root = mkdtempSync(path.join(tmpdir(), 'keydeck-crash-pledge-'));
  shared = await startTestSandbox({ dialect: 'docs-v2' });
});
afterAll(async () => {
  await shared.close();
  rmSync(root, { recursive: true, force: true });
});

type PledgeWorld = KeyWorld & { pledge: string; ownSandbox: boolean };

/** A pledge of a new user of `sb` in the first block with a free seat, or undefined when the pool is full. */
async function pledgeOn(sb: TestSandbox): Promise<{ token: string; pledge: string } | undefined> {
  const token = await sb.newUser();
  for (const block of ['asia', 'europe', 'americas']) {
    const p = await sb.call('POST', '/sandbox/subscriptions', { token, body: { pool: 'kimi26', blocks: [block] } });
    if (p.status === 200) return { token, pledge: p.body.id as string };
  }
  return undefined;
}

/**
 * A world whose account has a pool pledge without its key: on the shared sandbox while its pool
 * has seats (ten a block), else on a sandbox of its own (a walk of every point pledges more).
 */
async function prepare(): Promise<PledgeWorld> {
  const onShared = await pledgeOn(shared);
  const sb = onShared ? shared : await startTestSandbox({ dialect: 'docs-v2' });
  const made = onShared ?? (await pledgeOn(sb));
  if (!made) throw new Error('a fresh sandbox has no seat for a pledge');
  return Object.assign(makeKeyWorld(sb, root, made.token, 'PORT=8080\n'), { pledge: made.pledge, ownSandbox: !onShared });
}

/**
 * The points walked (KEYDECK_CRASH_POINTS=all walks every one): recorded with nothing sent, the
 * key minted but its answer never read (its value lost: the replacement must still be minted),
 * the file written (its record still `writing`), the key recorded `delivered`, then `ending`, and
 * the operation ended.
 */
const CHOSEN = [
  'file.renamed:operations.json#1',
  'answered:createSubscriptionKey#1',
  'file.renamed:.env#1',
  'file.renamed:operations.json#5',
  'file.renamed:operations.json#6',
  'file.renamed:operations.json#7',
];

const scenario: CrashScenario<PledgeWorld> = {
  operation: 'keys create --subscription --to-file',
  prepare,
  dispose: async (w) => {
    disposeKeyWorld(w);
    if (w.ownSandbox) await w.sb.close();
  },
  run: (w) => ({ args: ['keys', 'create', '--subscription', w.pledge, 'pool-key', '--to-file', w.envFile], env: w.cliEnv }),
  recoveries: {
    '--finish': async (w) => worldSummary(w, (await recover(w, ['keys', 'create', '--finish', 'pool-key'])).code),
    rerun: async (w) => worldSummary(w, (await recover(w, ['keys', 'create', '--subscription', w.pledge, 'pool-key', '--to-file', w.envFile])).code),
    '--undo': async (w) => worldSummary(w, (await recover(w, ['keys', 'create', '--undo', 'pool-key', '--yes'])).code),
  },
  async invariants(w, recovery) {
    const broken = await commonInvariants(w);
    const active = (await keysOf(w)).filter((k) => k.isActive);
    // Killed before the creation was recorded: nothing happened, and nothing is to finish or undo.
    if (recovery !== 'rerun' && /No unfinished creation/.test(w.said) && active.length === 0 && fileText(w) === w.envBefore) return broken;
    // Stopped once the operation had ended (or was ending: its copies being removed): nothing is left to undo.
    const ended = /No unfinished creation|created and delivered to these destinations already|had ended \(its copies of previous content were being removed\)/.test(w.said);
    if (recovery === '--undo' && !ended) {
      if (fileText(w) !== w.envBefore) broken.push('I3: undo did not put the file back as it was');
      if (active.length !== 0) broken.push(`undo left ${active.length} active keys of the pledge`);
    } else {
      if (active.length !== 1) broken.push(`the pledge has ${active.length} active keys, not one`);
      const inFile = fileKey(w);
      if (inFile === undefined || (await keyIdOf(w, inFile)) !== active[0]?.id) broken.push('I2: the file does not hold the pledge’s key');
    }
    return broken;
  },
  // Those the walk of the kit's steps below stops at too are walked there (withoutStepTwins).
  points: (traced, all) => withoutStepTwins(chosenPoints(traced, CHOSEN), all),
};

describe('crash points of keys create --subscription --to-file', () => {
  it('every kill, recovered by --finish, a rerun and --undo, keeps the invariants; the table is in docs/', { timeout: 240_000 }, async () => {
    await walkAndDocument(scenario, 'pledge-key');
  });
});

describe("the kit's steps of keys create --subscription --to-file, walked in process", () => {
  it('every stop, recovered by --finish, a rerun and --undo, keeps the invariants; the table is in docs/', { timeout: 240000 }, async () => {
    await walkStepsAndDocument(inThread(scenario), 'pledge-key-steps');
  });
});
