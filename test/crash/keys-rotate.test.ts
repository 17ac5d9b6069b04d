/**
 * The crash-point walk of `keys rotate` (src/operations/rotateKey.ts): the key "web", in
 * the application's dotenv file, rotated with `--to-file .env --to-command take.sh --old delete`
 * and killed (SIGKILL) at each chosen boundary, then recovered by `keys rotate --finish web`, by
 * the same command again (as cron would run it), and by `keys rotate --undo web --yes`; the
 * invariants checked against the sandbox and the files after each. The outcomes are
 * docs/crash-safety.md's `keys-rotate` table (KEYDECK_CRASH_DOCS=write regenerates it).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { startTestSandbox, type TestSandbox } from '../sandbox/helpers.js';
import { chosenPoints, walkAndDocument, withoutStepTwins, type CrashScenario } from './harness.js';
import { inThread, walkStepsAndDocument } from './steps.js';
import { commonInvariants, disposeKeyWorld, fileKey, fileText, keyIdOf, keysOf, makeKeyWorld, recover, takenKey, worldSummary, type KeyWorld } from './keyWorld.js';

let sb: TestSandbox;
let root: string;
beforeAll(async () => {
  sb = await startTestSandbox();
  root = mkdtempSync(path.join(tmpdir(), 'keydeck-crash-rotate-'));
});
afterAll(async () => {
  await sb.close();
  rmSync(root, { recursive: true, force: true });
});

/** A world whose account has the key "web", which its dotenv file holds. */
async function prepare(): Promise<KeyWorld & { oldKey: string }> {
  const token = await sb.fundedUser(25);
  const old = await sb.creditKey(token, 'web');
  const w = makeKeyWorld(sb, root, token, `PORT=8080\nKEYDECK_API_KEY=${old.apiKey}\n`);
  w.existing.push(old.id);
  return Object.assign(w, { oldKey: old.apiKey });
}

/**
 * The points walked (of the 27 the run passes; KEYDECK_CRASH_POINTS=all walks them all):
 * recorded with nothing sent, the successor made but its answer never read, the file holding the
 * successor (its record still `writing`), the command started (killed while it runs) and ended,
 * the delivery recorded, the old key renamed, the old key deleted (the record not yet cleared), the
 * rotation recorded `ending` (its copies being removed), and the rotation ended.
 */
const CHOSEN = [
  'file.renamed:rotations.json#1',
  'answered:createCreditKey#1',
  'file.renamed:.env#1',
  'command.spawned:take.sh#1',
  'command.exited:take.sh#1',
  'file.renamed:rotations.json#7',
  'answered:updateKey#1',
  'answered:deleteKey#1',
  'file.renamed:rotations.json#8',
  'file.renamed:rotations.json#9',
];

const scenario: CrashScenario<KeyWorld & { oldKey: string }> = {
  operation: 'keys rotate --to-file --to-command --old delete',
  prepare,
  dispose: disposeKeyWorld,
  run: (w) => ({ args: ['keys', 'rotate', 'web', '--to-file', w.envFile, '--to-command', w.take, '--old', 'delete'], env: w.cliEnv }),
  recoveries: {
    '--finish': async (w) => worldSummary(w, (await recover(w, ['keys', 'rotate', '--finish', 'web', '--old', 'delete'])).code),
    rerun: async (w) => worldSummary(w, (await recover(w, ['keys', 'rotate', 'web', '--to-file', w.envFile, '--to-command', w.take, '--old', 'delete'])).code),
    '--undo': async (w) => worldSummary(w, (await recover(w, ['keys', 'rotate', '--undo', 'web', '--yes'])).code),
  },
  async invariants(w, recovery) {
    const broken = await commonInvariants(w);
    const keys = await keysOf(w);
    const active = keys.filter((k) => k.isActive);
    if (active.filter((k) => k.name === 'web').length !== 1) broken.push(`not one active key named "web" (${active.map((k) => k.name).join(', ')})`);
    // Killed before the rotation was recorded: nothing happened, and nothing is to finish or undo.
    const never = /No unfinished rotation/.test(w.said) && keys.length === 1 && fileText(w) === w.envBefore && takenKey(w) === undefined;
    if (never && recovery !== 'rerun') return broken;
    const undone = recovery === '--undo' && !/already deleted|No unfinished rotation|had ended \(its copies of previous content were being removed\)/.test(w.said);
    if (undone) {
      // Back as before: the old key, with its name, in the file as it was.
      if (fileText(w) !== w.envBefore) broken.push('I3: undo did not put the file back as it was');
      if (!(await keyIdOf(w, w.oldKey))) broken.push('undo: the old key does not work');
      const taken = takenKey(w);
      for (const k of active.filter((k) => !w.existing.includes(k.id))) {
        if (taken === undefined || (await keyIdOf(w, taken)) !== k.id) if (!w.said.includes(k.id)) broken.push(`I2: undo left "${k.name}" without a word`);
      }
    } else {
      const inFile = fileKey(w);
      const id = inFile === undefined ? undefined : await keyIdOf(w, inFile);
      if (id === undefined || keys.find((k) => k.id === id)?.name !== 'web') broken.push('the file does not hold the active "web"');
      if (takenKey(w) !== inFile) broken.push('the command does not hold the key the file holds');
      if (active.length !== 1) broken.push(`${active.length} active keys after the rotation (the lineage holds the key in use only)`);
    }
    return broken;
  },
  // Those the walk of the kit's steps below stops at too are walked there (withoutStepTwins).
  points: (traced, all) => withoutStepTwins(chosenPoints(traced, CHOSEN), all),
};

describe('crash points of keys rotate --to-file --to-command --old delete', () => {
  it('every kill, recovered by --finish, a rerun and --undo, keeps the invariants; the table is in docs/', { timeout: 300_000 }, async () => {
    await walkAndDocument(scenario, 'keys-rotate');
  });
});

describe("the kit's steps of keys rotate --to-file --to-command --old delete, walked in process", () => {
  it('every stop, recovered by --finish, a rerun and --undo, keeps the invariants; the table is in docs/', { timeout: 300000 }, async () => {
    await walkStepsAndDocument(inThread(scenario), 'keys-rotate-steps');
  });
});
