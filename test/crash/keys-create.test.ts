/**
 * The crash-point walk of create-and-deliver (src/operations/createKey.ts): `keys create
 * web --to-file .env --to-command take.sh` killed (SIGKILL) at each boundary it passes, then
 * recovered by `keys create --finish web`, by the same command again, and by `keys create --undo
 * web --yes`; the invariants checked against the sandbox and the files after each. The outcomes
 * are docs/crash-safety.md's `keys-create` table (KEYDECK_CRASH_DOCS=write regenerates it).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { startTestSandbox, type TestSandbox } from '../sandbox/helpers.js';
import { chosenPoints, walkAndDocument, withoutStepTwins, type CrashScenario } from './harness.js';
import { inThread, walkStepsAndDocument } from './steps.js';
import { commonInvariants, disposeKeyWorld, fileText, keyIdOf, keysOf, makeKeyWorld, recover, takenKey, worldSummary, type KeyWorld } from './keyWorld.js';

let sb: TestSandbox;
let root: string;
beforeAll(async () => {
  sb = await startTestSandbox();
  root = mkdtempSync(path.join(tmpdir(), 'keydeck-crash-create-'));
});
afterAll(async () => {
  await sb.close();
  rmSync(root, { recursive: true, force: true });
});

const BEFORE = 'PORT=8080\n';

/**
 * The points walked (KEYDECK_CRASH_POINTS=all walks every one the run passes): recorded with
 * nothing sent, the key made but its answer never read, the key recorded, the file's previous
 * content kept, the file written (its record still saying `writing`), the command started and
 * ended (its record saying `running`), the key recorded `delivered`, then `ending` (its copies
 * being removed), and the operation ended.
 */
const CHOSEN = [
  'file.renamed:operations.json#1',
  'answered:createCreditKey#1',
  'file.renamed:operations.json#2',
  'file.renamed:.env.keydeck-before#1',
  'file.renamed:.env#1',
  'command.spawned:take.sh#1',
  'command.exited:take.sh#1',
  'file.renamed:operations.json#7',
  'file.renamed:operations.json#8',
  'file.renamed:operations.json#9',
];

const scenario: CrashScenario<KeyWorld> = {
  operation: 'keys create --to-file --to-command',
  prepare: async () => makeKeyWorld(sb, root, await sb.fundedUser(25), BEFORE),
  dispose: disposeKeyWorld,
  run: (w) => ({ args: ['keys', 'create', 'web', '--to-file', w.envFile, '--to-command', w.take], env: w.cliEnv }),
  recoveries: {
    '--finish': async (w) => worldSummary(w, (await recover(w, ['keys', 'create', '--finish', 'web'])).code),
    rerun: async (w) => worldSummary(w, (await recover(w, ['keys', 'create', 'web', '--to-file', w.envFile, '--to-command', w.take])).code),
    '--undo': async (w) => worldSummary(w, (await recover(w, ['keys', 'create', '--undo', 'web', '--yes'])).code),
  },
  async invariants(w, recovery) {
    const broken = await commonInvariants(w);
    const active = (await keysOf(w)).filter((k) => k.isActive);
    // Killed before the creation was recorded: nothing happened, and nothing is to finish or undo.
    if (recovery !== 'rerun' && /No unfinished creation/.test(w.said) && active.length === 0 && fileText(w) === BEFORE) return broken;
    // Killed once the operation had ended: there is nothing to undo, and a rerun has nothing to do.
    // Stopped once the operation had ended (or was ending: its copies being removed): nothing is left to undo.
    const ended = /No unfinished creation|created and delivered to these destinations already|had ended \(its copies of previous content were being removed\)/.test(w.said);
    if (recovery === '--undo' && !ended) {
      if (fileText(w) !== BEFORE) broken.push('I3: undo did not put the file back as it was');
      // A key is left only when the command took it (or may have): kept and named.
      const taken = takenKey(w);
      for (const k of active) if (taken === undefined || (await keyIdOf(w, taken)) !== k.id) if (!w.said.includes(k.id)) broken.push(`I2: undo left "${k.name}" without a word`);
    } else {
      if (active.length !== 1 || active[0]!.name !== 'web') broken.push(`finishing left ${active.length} active keys (${active.map((k) => k.name).join(', ')}), not one "web"`);
      const held = fileText(w) === undefined ? undefined : await keyIdOf(w, /KEYDECK_API_KEY=(\S+)/.exec(fileText(w)!)?.[1] ?? '');
      if (held === undefined || held !== active[0]?.id) broken.push('I2: the file does not hold the key');
      if (takenKey(w) === undefined || (await keyIdOf(w, takenKey(w)!)) !== active[0]?.id) broken.push('I2: the command does not hold the key');
    }
    return broken;
  },
  // Those the walk of the kit's steps below stops at too are walked there (withoutStepTwins).
  points: (traced, all) => withoutStepTwins(chosenPoints(traced, CHOSEN), all),
};

describe('crash points of keys create --to-file --to-command', () => {
  it('every kill, recovered by --finish, a rerun and --undo, keeps the invariants; the table is in docs/', { timeout: 240_000 }, async () => {
    await walkAndDocument(scenario, 'keys-create');
  });
});

describe("the kit's steps of keys create --to-file --to-command, walked in process", () => {
  it('every stop, recovered by --finish, a rerun and --undo, keeps the invariants; the table is in docs/', { timeout: 240_000 }, async () => {
    await walkStepsAndDocument(inThread(scenario), 'keys-create-steps');
  });
});
