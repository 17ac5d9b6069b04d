/**
 * One fault, start to end, as a user sees it (shared by the fault suites): keydeck is up with
 * data; the fault begins; the screen says what is wrong in words while the Keys table rows
 * and the balance stay; the account changes behind the proxy (a $10 top-up straight at the
 * sandbox); the fault ends; keydeck recovers by itself: the fault's words go away and the new
 * balance appears, with no key pressed.
 */
import { expect, type TestContext } from 'vitest';
import { CREDIT_KEY_NAME, startRig, SUBSCRIPTION_KEY_NAME, waitForData, type Rig, type RigOptions } from './harness.js';

/** How many rigs one test file runs at once (two files run side by side: four keydecks on two cores). */
export const RIGS_AT_ONCE = 2;
let running = 0;
const waiting: Array<() => void> = [];

/** Waits for one of the {@link RIGS_AT_ONCE} slots; returns its release. */
async function takeSlot(): Promise<() => void> {
  if (running >= RIGS_AT_ONCE) await new Promise<void>((resolve) => waiting.push(resolve));
  else running += 1;
  let released = false;
  return () => {
    if (released) return;
    released = true;
    const next = waiting.shift();
    if (next) next();
    else running -= 1;
  };
}

/**
 * Starts a rig (80×24 unless told) that is closed when the test of `t` (its context: concurrent
 * tests must use their own context's hooks) ends; at most {@link RIGS_AT_ONCE} rigs of a file
 * run at once, the others wait.
 */
export async function useRig(t: Pick<TestContext, 'onTestFinished'>, options: RigOptions = {}): Promise<Rig> {
  const release = await takeSlot();
  try {
    const rig = await startRig({ columns: 80, rows: 24, ...options });
    t.onTestFinished(async () => {
      await rig.close();
      release();
    });
    return rig;
  } catch (error) {
    release();
    throw error;
  }
}

/** Asserts the last data is still on screen: both Keys rows and the balance. */
export function expectLastData(screen: string, balance = '$25.00 left'): void {
  expect(screen).toContain(SUBSCRIPTION_KEY_NAME);
  expect(screen).toContain(CREDIT_KEY_NAME);
  expect(screen).toContain(balance);
}

/** What a scenario needs to know about its fault. */
export interface FaultScenario {
  /** Starts the fault. */
  readonly begin: (rig: Rig) => Promise<void> | void;
  /** Ends it. */
  readonly end: (rig: Rig) => Promise<void> | void;
  /** The banner's words for it (the start of the line under the tabs). */
  readonly banner: string | RegExp;
  /** The header's connection state for it. */
  readonly header: string | RegExp;
  /** More checks while the fault lasts (e.g. on the requests the proxy saw). */
  readonly during?: (rig: Rig) => Promise<void> | void;
}

/** Runs {@link FaultScenario} on a fresh rig of test `t` (see the module comment); returns the rig. */
export async function runFaultScenario(t: Pick<TestContext, 'onTestFinished'>, scenario: FaultScenario): Promise<Rig> {
  const rig = await useRig(t);
  const { app } = rig;
  await waitForData(app);
  await app.waitFor('online · updated');

  await scenario.begin(rig);
  await app.waitFor(scenario.banner, 15_000);
  await app.waitFor(scenario.header, 5_000);
  const during = app.screenText();
  expectLastData(during);
  await scenario.during?.(rig);
  // The account changes while keydeck cannot see it: the recovery must show it.
  await rig.sandbox.topUp(rig.account, 10);

  await scenario.end(rig);
  await app.waitFor('$35.00 left', 30_000);
  await app.waitFor('online · updated', 5_000);
  const after = app.screenText();
  expect(after).not.toMatch(scenario.banner);
  expect(after).not.toMatch(scenario.header);
  expectLastData(after, '$35.00 left');
  // Still running: no crash on the way.
  expect(await Promise.race([app.exited.then(() => 'exited'), new Promise((r) => setTimeout(() => r('running'), 50))])).toBe('running');
  return rig;
}
