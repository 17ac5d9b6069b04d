/**
 * The TUI's `n` and `R` stopped at every step of their machines (src/operations/createKey.ts,
 * rotateKey.ts), in process (./steps.ts): the app in ink-testing-library, its services' kit
 * failpoints armed, then recovered by the TUI's next start (`f` finish, `u` undo) and by the
 * command line (`--finish`), the same invariants checked as for the commands (./keyWorld.ts). The
 * TUI's data dir is the session's (keydeck always has one: src/config/paths.ts), so its operations
 * are recorded as the commands' are, and either face takes up the other's. The outcomes are
 * docs/crash-safety.md's `tui-create-steps` and `tui-rotate-steps` tables.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DeliveryRecord } from '../../src/delivery/deliveryRecord.js';
import { parseCommandDestination, parseFileDestination } from '../../src/delivery/destinations.js';
import { keyFingerprint } from '../../src/delivery/fingerprint.js';
import { failpointsFrom } from '../../src/failpoints/index.js';
import { startTestSandbox, type TestSandbox } from '../sandbox/helpers.js';
import { KEYS, type TuiHandle } from '../tui/render.js';
import { noKeychainStore, readySession, renderApp, testServices } from '../tui/harness.js';
import { commonInvariants, disposeKeyWorld, fileKey, fileText, keyIdOf, keysOf, makeKeyWorld, recover, settle, takenKey, worldSummary, type KeyWorld } from './keyWorld.js';
import { stepEnv, walkStepsAndDocument, type StepPoints, type StepScenario } from './steps.js';

let sb: TestSandbox;
let root: string;
beforeAll(async () => {
  sb = await startTestSandbox();
  root = mkdtempSync(path.join(tmpdir(), 'keydeck-crash-tui-'));
});
afterAll(async () => {
  await sb.close();
  rmSync(root, { recursive: true, force: true });
});

/** A frame as one line of words (a dialog's wrapped lines joined). */
const flat = (frame: string) => frame.replace(/[│\s]+/g, ' ');
const STOPPED = "stopped at the kit's failpoint";

/** The app on the world's account and data dir, as the `default` profile (the commands' own). */
function open(w: KeyWorld, points: StepPoints = {}): TuiHandle {
  const failpoints = failpointsFrom(stepEnv(points));
  const services = { ...testServices({ store: noKeychainStore().store, baseUrl: sb.url, dataDir: w.dataDir, profile: 'default' }), ...(failpoints && { failpoints }) };
  return renderApp(services, { session: readySession(sb.url, w.token), columns: 120, rows: 40 });
}

/** The unfinished entries of the world's records. */
function recorded(w: KeyWorld): number {
  let n = 0;
  for (const [file, field] of [
    ['operations.json', 'operations'],
    ['rotations.json', 'rotations'],
  ] as const) {
    const p = path.join(w.dataDir, file);
    if (existsSync(p)) n += ((JSON.parse(readFileSync(p, 'utf8')) as Record<string, unknown[]>)[field] ?? []).length;
  }
  return n;
}

/** The world after a recovery in the TUI (which has no exit code): `keys: web · .env: new key · command: nothing`. */
async function summary(w: KeyWorld): Promise<string> {
  return (await worldSummary(w, 0)).replace(/^exit 0 · /, '');
}

/**
 * The TUI's next start: each interrupted operation it offers is finished (`f`) or undone (`u`),
 * each screen the machine stops at answered (a rotation's old key deactivated), until nothing is
 * recorded and no dialog is open. @returns what the recovery left, in words
 */
async function nextStart(w: KeyWorld, mode: 'f' | 'u'): Promise<string> {
  await settle(w);
  if (recorded(w) === 0) {
    w.said = 'nothing to take up';
    return `nothing to take up · ${await summary(w)}`;
  }
  const ui = open(w);
  try {
    const deadline = Date.now() + 30_000;
    const screens: Array<[RegExp, () => Promise<void>]> = [
      [/was interrupted/, () => ui.press(mode)],
      [/Undo the (rotation|creation) of/, () => ui.press(KEYS.tab, KEYS.enter)],
      [/the successor is in place/, () => ui.press('d')],
      [/created and delivered|An interrupted key creation/, () => ui.press(KEYS.enter)],
    ];
    for (;;) {
      const frame = flat(await ui.waitFor((f) => screens.some(([s]) => s.test(flat(f))) || recorded(w) === 0, 15_000));
      const screen = screens.find(([s]) => s.test(frame));
      if (!screen) break;
      if (Date.now() > deadline) throw new Error(`the TUI's next start did not end:\n${frame}`);
      await screen[1]();
      await ui.waitFor((f) => flat(f) !== frame, 15_000).catch(() => undefined);
    }
    // The last step's words reach the status line after the record is cleared.
    await new Promise((r) => setTimeout(r, 100));
    w.said = ui.frames().join('\n');
    return `${mode === 'f' ? 'finished' : 'undone'} · ${await summary(w)}`;
  } finally {
    ui.unmount();
  }
}

/** The CLI's `--finish` of what the TUI left. */
async function cliFinish(w: KeyWorld, args: string[]): Promise<string> {
  return worldSummary(w, (await recover(w, args)).code);
}

/** `n` on the Keys pane: the key "web" into the dotenv file. */
async function tuiCreate(w: KeyWorld, points: StepPoints): Promise<{ stopped: boolean; said: string }> {
  const ui = open(w, points);
  try {
    await ui.waitFor('no keys yet');
    await ui.press('n');
    await ui.waitFor('New credit key');
    await ui.type('web');
    await ui.press(KEYS.enter);
    await ui.waitFor('Where should the new key');
    await ui.press('f');
    await ui.waitFor('dotenv file:');
    await ui.paste(w.envFile);
    await ui.press(KEYS.enter);
    const end = flat(await ui.waitFor((f) => flat(f).includes('created and delivered') || flat(f).includes(STOPPED), 20_000));
    return { stopped: end.includes(STOPPED), said: ui.frames().join('\n') };
  } finally {
    ui.unmount();
  }
}

/** `R` on the key "web", the successor to where keydeck delivered it (the file and the command), then `d` at the handover. */
async function tuiRotate(w: KeyWorld, points: StepPoints): Promise<{ stopped: boolean; said: string }> {
  const ui = open(w, points);
  try {
    await ui.waitFor('web');
    await ui.press('R');
    await ui.waitFor('enter saves "web"');
    await ui.press(KEYS.enter);
    await ui.waitFor((f) => flat(f).includes('the same places as before'));
    await ui.press(KEYS.enter);
    let end = flat(await ui.waitFor((f) => flat(f).includes('the successor is in place') || flat(f).includes(STOPPED), 20_000));
    if (!end.includes(STOPPED)) {
      await ui.press('d');
      end = flat(await ui.waitFor((f) => /deactivated the old key|rotation of "web" is done/.test(flat(f)) || flat(f).includes(STOPPED), 20_000));
    }
    return { stopped: end.includes(STOPPED), said: ui.frames().join('\n') };
  } finally {
    ui.unmount();
  }
}

const createScenario: StepScenario<KeyWorld> = {
  operation: "the TUI's n to a dotenv file",
  prepare: async () => makeKeyWorld(sb, root, await sb.fundedUser(25), 'PORT=8080\n'),
  dispose: disposeKeyWorld,
  run: tuiCreate,
  recoveries: {
    'next start: f': (w) => nextStart(w, 'f'),
    'next start: u': (w) => nextStart(w, 'u'),
    '--finish': (w) => cliFinish(w, ['keys', 'create', '--finish', 'web']),
  },
  async invariants(w, recovery) {
    const broken = await commonInvariants(w);
    const active = (await keysOf(w)).filter((k) => k.isActive);
    const untouched = active.length === 0 && fileText(w) === w.envBefore;
    // Stopped before anything was recorded: nothing happened, and nothing is to finish or undo.
    if (/nothing to take up|No unfinished creation/.test(w.said) && untouched) return broken;
    // Stopped once it had ended (or was ending): nothing is left to undo.
    const ended = /nothing to take up|No unfinished creation|had ended \(its copies of previous content were being removed\)/.test(flat(w.said));
    if (recovery === 'next start: u' && !ended) {
      if (!untouched) broken.push(`undo left ${active.length} active keys, the file ${fileText(w) === w.envBefore ? 'as before' : 'changed'}`);
    } else {
      if (active.length !== 1 || active[0]!.name !== 'web') broken.push(`finishing left ${active.length} active keys (${active.map((k) => k.name).join(', ')}), not one "web"`);
      if ((await keyIdOf(w, fileKey(w) ?? '')) !== active[0]?.id) broken.push('I2: the file does not hold the key');
    }
    return broken;
  },
};

/** A world whose account has the key "web", in its dotenv file and given to its command by keydeck (so `R` delivers to both). */
async function rotateWorld(): Promise<KeyWorld & { oldKey: string }> {
  const token = await sb.fundedUser(25);
  const old = await sb.creditKey(token, 'web');
  const w = makeKeyWorld(sb, root, token, `PORT=8080\nKEYDECK_API_KEY=${old.apiKey}\n`);
  w.existing.push(old.id);
  await new DeliveryRecord(w.dataDir).remember(
    { profile: 'default', origin: new URL(sb.url).origin, keyId: old.id },
    [parseFileDestination(w.envFile), parseCommandDestination(w.take)],
    keyFingerprint(old.apiKey),
  );
  return Object.assign(w, { oldKey: old.apiKey });
}

const rotateScenario: StepScenario<KeyWorld & { oldKey: string }> = {
  operation: "the TUI's R to the file and the command, then d",
  prepare: rotateWorld,
  dispose: disposeKeyWorld,
  run: tuiRotate,
  recoveries: {
    'next start: f': (w) => nextStart(w, 'f'),
    'next start: u': (w) => nextStart(w, 'u'),
    '--finish': (w) => cliFinish(w, ['keys', 'rotate', '--finish', 'web', '--old', 'deactivate']),
  },
  async invariants(w, recovery) {
    const broken = await commonInvariants(w);
    const keys = await keysOf(w);
    const active = keys.filter((k) => k.isActive);
    if (active.filter((k) => k.name === 'web').length !== 1) broken.push(`not one active key named "web" (${active.map((k) => k.name).join(', ')})`);
    const never = keys.length === 1 && fileText(w) === w.envBefore && takenKey(w) === undefined;
    if (never && recovery !== '--finish') return broken;
    const undone = recovery === 'next start: u' && !/already deleted|had ended \(its copies of previous content were being removed\)|nothing to take up/.test(flat(w.said));
    if (undone) {
      if (fileText(w) !== w.envBefore) broken.push('I3: undo did not put the file back as it was');
      if (!(await keyIdOf(w, w.oldKey))) broken.push('undo: the old key does not work');
    } else if (!/nothing to take up/.test(w.said) || recorded(w) > 0) {
      const id = await keyIdOf(w, fileKey(w) ?? '');
      if (id === undefined || keys.find((k) => k.id === id)?.name !== 'web') broken.push('the file does not hold the active "web"');
      if (takenKey(w) !== fileKey(w)) broken.push('the command does not hold the key the file holds');
      if (active.length !== 1) broken.push(`${active.length} active keys after the rotation (the lineage holds the key in use only)`);
    }
    return broken;
  },
};

/**
 * `n` with no data dir given (no `KEYDECK_DATA_DIR`: keydeck's default under the home, the TUI's
 * and the command line's alike), stopped where a record is to be taken up by the other face: the
 * key made, the key delivered, the creation ending.
 */
const defaultDirScenario: StepScenario<KeyWorld> = {
  ...createScenario,
  operation: "the TUI's n to a dotenv file, no data dir given",
  prepare: async () => makeKeyWorld(sb, root, await sb.fundedUser(25), 'PORT=8080\n', { defaultDataDir: true }),
  recoveries: { 'next start: f': createScenario.recoveries['next start: f']!, '--finish': createScenario.recoveries['--finish']! },
  points: (traced) => traced.filter((p) => ['create.mint:recorded#1', 'create.write:0:recorded#1', 'create.ending:recorded#1'].includes(p)),
};

describe("the TUI's n and R stopped at every step of the kit, in process", () => {
  it("n with no data dir given: the TUI's next start and --finish take it up from the same default dir; the table is in docs/", { timeout: 300_000 }, async () => {
    const walk = await walkStepsAndDocument(defaultDirScenario, 'tui-create-default-dir', { concurrency: 2 });
    expect(walk.outcomes.length).toBe(6);
  });

  it("n: every stop, recovered by the TUI's next start (f, u) and by --finish, keeps the invariants; the table is in docs/", { timeout: 300_000 }, async () => {
    await walkStepsAndDocument(createScenario, 'tui-create-steps', { concurrency: 2 });
  });

  it("R: every stop, recovered by the TUI's next start (f, u) and by --finish, keeps the invariants; the table is in docs/", { timeout: 300_000 }, async () => {
    await walkStepsAndDocument(rotateScenario, 'tui-rotate-steps', { concurrency: 2 });
  });
});
