/**
 * The crash walks of `keydeck apply` (src/operations/applyPolicy.ts): a policy file declaring the
 * key "web" (to `.env` and `take.sh`) that the account lacks, applied with `apply --yes` and killed
 * (SIGKILL) at each chosen boundary, or stopped at every step of its machines in process; and a
 * file whose "web" is past its `maxAge`, rotated by the guardrail machine (its own record,
 * `guardrails.json`, and the rotation's). Each is recovered by `apply --yes` again and by
 * `apply --once` (cron's next run); after either the account is as the file says: one active
 * "web", held by every destination, nothing left in any record, and `plan` exits 0. The outcomes
 * are docs/crash-safety.md's `apply*` tables (KEYDECK_CRASH_DOCS=write regenerates them).
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { runCli } from '../credentials/harness.js';
import { startTestSandbox, type TestSandbox } from '../sandbox/helpers.js';
import { chosenPoints, walkAndDocument, withoutStepTwins, type CrashScenario } from './harness.js';
import { inThread, walkStepsAndDocument } from './steps.js';
import { commonInvariants, disposeKeyWorld, fileKey, keyIdOf, keysOf, makeKeyWorld, recover, recordsLeft, worldSummary, type KeyWorld } from './keyWorld.js';

let sb: TestSandbox;
let root: string;
beforeAll(async () => {
  sb = await startTestSandbox();
  root = mkdtempSync(path.join(tmpdir(), 'keydeck-crash-apply-'));
});
afterAll(async () => {
  await sb.close();
  rmSync(root, { recursive: true, force: true });
});

/** A world with its policy file (mode 0600 beside `.env`). */
type ApplyWorld = KeyWorld & { readonly file: string };

/** Writes the policy file of `w`: "web" to `.env` and `take.sh`, with `extra` lines of its own. */
function withPolicy(w: KeyWorld, extra = ''): ApplyWorld {
  const file = path.join(w.app, 'keydeck.policy.yaml');
  writeFileSync(file, `keys:\n  - name: web\n    to: [".env", { command: ${JSON.stringify(w.take)} }]\n${extra}`, { mode: 0o600 });
  return Object.assign(w, { file });
}

/** What every recovery of `apply` leaves: the common invariants, one active "web" held by every destination, no guardrail entry, and a plan with nothing to do. */
async function applied(w: ApplyWorld): Promise<string[]> {
  const broken = await commonInvariants(w);
  const active = (await keysOf(w)).filter((k) => k.isActive);
  if (active.length !== 1 || active[0]!.name !== 'web') broken.push(`apply left ${active.length} active keys (${active.map((k) => k.name).join(', ')}), not one "web"`);
  const held = fileKey(w) === undefined ? undefined : await keyIdOf(w, fileKey(w)!);
  if (held === undefined || held !== active[0]?.id) broken.push('I2: the file does not hold the key');
  const guardrails = path.join(w.dataDir, 'guardrails.json');
  if (existsSync(guardrails) && (JSON.parse(readFileSync(guardrails, 'utf8')) as { guardrails: unknown[] }).guardrails.length > 0) broken.push('a guardrail entry is left');
  const plan = await runCli(['plan', '--file', w.file], { env: w.cliEnv });
  if (plan.code !== 0)
    broken.push(
      `plan exits ${plan.code} after the recovery: ${plan.stdout
        .split('\n')
        .filter((l) => /^ {2}[+~-] /.test(l))
        .join('; ')}`,
    );
  return broken;
}

/**
 * The points walked of the creating apply (KEYDECK_CRASH_POINTS=all walks every one): the rules
 * stored with nothing else done, the creation recorded with nothing sent, the key made but its
 * answer never read, the file holding it (its record still `writing`), the command started and
 * ended, the key recorded `delivered`, and the creation ended.
 */
const CHOSEN = [
  'file.renamed:config.json#1',
  'file.renamed:operations.json#1',
  'answered:createCreditKey#1',
  'file.renamed:.env#1',
  'command.spawned:take.sh#1',
  'command.exited:take.sh#1',
  'file.renamed:operations.json#7',
  'file.renamed:operations.json#9',
];

const creating: CrashScenario<ApplyWorld> = {
  operation: 'apply (a declared key to create)',
  prepare: async () => withPolicy(makeKeyWorld(sb, root, await sb.fundedUser(25), 'PORT=8080\n')),
  dispose: disposeKeyWorld,
  run: (w) => ({ args: ['apply', '--yes', '--file', w.file], env: w.cliEnv, timeoutMs: 40_000 }),
  recoveries: {
    rerun: async (w) => worldSummary(w, (await recover(w, ['apply', '--yes', '--file', w.file])).code),
    '--once': async (w) => worldSummary(w, (await recover(w, ['apply', '--once', '--file', w.file])).code),
  },
  invariants: (w) => applied(w),
  // Those the walk of the kit's steps below stops at too are walked there (withoutStepTwins).
  points: (traced, all) => withoutStepTwins(chosenPoints(traced, CHOSEN), all),
};

/**
 * A world whose "web" (in `.env`, delivered there by keydeck) is 31 days old, past the file's
 * `maxAge: 30d`: each world has a sandbox of its own, whose clock it moves.
 */
async function agedWorld(): Promise<ApplyWorld & { own: TestSandbox; oldId: string }> {
  const own = await startTestSandbox();
  const w = withPolicy(makeKeyWorld(own, root, await own.fundedUser(25), 'PORT=8080\n'), '    maxAge: 30d\n');
  const made = await runCli(['apply', '--yes', '--file', w.file], { env: w.cliEnv });
  if (made.code !== 0) throw new Error(`the first apply failed: ${made.stderr}`);
  await own.advance(31 * 86_400);
  const oldId = (await keysOf(w)).find((k) => k.name === 'web')!.id;
  w.existing.push(oldId);
  return Object.assign(w, { own, oldId });
}

const rotating: CrashScenario<ApplyWorld & { own: TestSandbox; oldId: string }> = {
  operation: 'apply (a key past its maxAge)',
  prepare: agedWorld,
  dispose: async (w) => {
    disposeKeyWorld(w);
    await w.own.close();
  },
  run: (w) => ({ args: ['apply', '--yes', '--file', w.file], env: w.cliEnv, timeoutMs: 40_000 }),
  recoveries: {
    rerun: async (w) => worldSummary(w, (await recover(w, ['apply', '--yes', '--file', w.file])).code),
    '--once': async (w) => worldSummary(w, (await recover(w, ['apply', '--once', '--file', w.file])).code),
  },
  async invariants(w) {
    const broken = await applied(w);
    const old = (await keysOf(w)).find((k) => k.id === w.oldId);
    if (old?.isActive) broken.push('the key past its maxAge is still active');
    if (recordsLeft(w).length > 0) broken.push(`records left: ${recordsLeft(w).join(', ')}`);
    return broken;
  },
  // The entry begun, then `rotating`; the successor made, in the file, taken by the command; the
  // old key renamed, then deactivated; the rotation ended; the rotation said (the entry not yet ended).
  // Those the walk of the kit's steps below stops at too are walked there (withoutStepTwins).
  points: (traced, all) =>
    withoutStepTwins(
      chosenPoints(traced, [
        'file.renamed:guardrails.json#1',
        'file.renamed:guardrails.json#2',
        'answered:createCreditKey#1',
        'file.renamed:.env#1',
        'command.exited:take.sh#1',
        'answered:updateKey#1',
        'answered:updateKey#2',
        'file.renamed:rotations.json#9',
        'file.renamed:guardrails.json#3',
      ]),
      all,
    ),
};

describe('crash points of apply', () => {
  it('creating a declared key: every kill, recovered by apply again and by apply --once, leaves the account as the file says', { timeout: 300_000 }, async () => {
    await walkAndDocument(creating, 'apply');
  });

  it('rotating a key past its maxAge: every kill, recovered each way, leaves one working "web" and the old key off', { timeout: 300_000 }, async () => {
    await walkAndDocument(rotating, 'apply-rotate');
  });
});

describe("the kit's steps of apply, walked in process", () => {
  it('creating a declared key: every stop, recovered each way, keeps the invariants', { timeout: 300_000 }, async () => {
    await walkStepsAndDocument(inThread(creating), 'apply-steps');
  });

  it('rotating a key past its maxAge: every stop of the guardrail and of its rotation, recovered each way', { timeout: 300_000 }, async () => {
    await walkStepsAndDocument(inThread(rotating), 'apply-rotate-steps');
  });
});
