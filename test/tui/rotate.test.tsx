/**
 * Delivery and rotation in the TUI, against a real sandbox answering as the newer
 * documentation pages (lists carry `lastUsedAt`): a new key sent to a dotenv file is never drawn;
 * a key shown once can still be sent (f) while it stays on screen; a command that fails after
 * creation reveals the key and offers to delete it (D); `R` rotates a credit key (successor
 * delivered, then the old key deactivated) and refuses a subscription key with what works
 * instead; an interrupted rotation in the record is offered at start, finished or undone; and an
 * app ended while its flow's drive waits for a slow creating answer keeps the operation locked
 * until that drive ends: another keydeck, a process of its own, is refused as in progress, then
 * finds it ended or interrupted, and one key is made.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { BalanceHistoryStore, originOf } from '../../src/billing/historyStore.js';
import { KeyHistory } from '../../src/billing/keyHistory.js';
import { UsageBudget } from '../../src/billing/usageBudget.js';
import { parseCommandDestination, parseFileDestination } from '../../src/delivery/destinations.js';
import { createKeyMachine, drive, keyOperationContext, rotateKeyMachine, rotationContext, type Failpoints } from '../../src/operations/index.js';
import { rotationRecord } from '../../src/operations/rotationRecord.js';
import { DeliveryRecord } from '../../src/delivery/deliveryRecord.js';
import { KEYS, type TuiHandle } from './render.js';
import { noKeychainStore, readySession, renderApp, startTestSandbox, testServices, type TestSandbox } from './harness.js';
import { makeTempHome, runCli, type CliRunner } from '../credentials/harness.js';
import { startFaultProxy } from '../resilience/fault-proxy.js';

let sb: TestSandbox;
let root: string;
beforeAll(async () => {
  sb = await startTestSandbox({ dialect: 'docs-v2' });
  root = mkdtempSync(path.join(tmpdir(), 'keydeck-tui-rotate-'));
});
afterAll(async () => {
  rmSync(root, { recursive: true, force: true });
  await sb.close();
});

const SK = /sk_[A-Za-z0-9]{40}/;

function open(token: string) {
  const dataDir = mkdtempSync(path.join(root, 'data-'));
  const services = testServices({ store: noKeychainStore().store, baseUrl: sb.url, dataDir });
  const ui = renderApp(services, { session: readySession(sb.url, token), columns: 100, rows: 30 });
  return { ui, dataDir };
}

const keyIn = (file: string, variable = 'KEYDECK_API_KEY') => new RegExp(`^${variable}=(\\S+)$`, 'm').exec(readFileSync(file, 'utf8'))?.[1];
/** A frame as one line of words (a dialog's wrapped lines joined). */
const flat = (frame: string) => frame.replace(/[│\s]+/g, ' ');
const neverDrawn = (ui: TuiHandle) => expect(ui.frames().some((f) => SK.test(f))).toBe(false);
/** The kit's failpoints stopping a drive at `point`, as a kill there would. */
const killedAt = (point: string): Failpoints => ({
  reach: (name) => {
    if (name === point) throw new Error('killed');
  },
});

async function createInto(ui: TuiHandle, keyChoice: string, destination: string) {
  await ui.press('n');
  await ui.waitFor('New credit key');
  await ui.press(KEYS.enter);
  await ui.waitFor('Where should the new key');
  await ui.press(keyChoice);
  await ui.waitFor(keyChoice === 'f' ? 'dotenv file:' : 'command:');
  await ui.type(destination);
  await ui.press(KEYS.enter);
}

describe('delivery from the Keys pane', () => {
  it('sends a new key into a dotenv file without ever drawing it', async () => {
    const { ui } = open(await sb.fundedUser(25));
    await ui.waitFor('no keys yet');
    const env = path.join(mkdtempSync(path.join(root, 'app-')), '.env');
    await createInto(ui, 'f', `${env}:OPENAI_API_KEY`);
    await ui.waitFor('created and delivered');
    expect(ui.lastFrame()).toContain('✓ wrote OPENAI_API_KEY into');
    expect(ui.lastFrame()).toMatch(/a new file, mode\s+0600/);
    expect(keyIn(env, 'OPENAI_API_KEY')).toMatch(SK);
    neverDrawn(ui);
    await ui.press(KEYS.enter);
    await ui.waitFor('R rotate');
    // R: keydeck delivered it, so the successor can go to the same place with enter.
    const first = keyIn(env, 'OPENAI_API_KEY');
    await ui.press('R');
    await ui.waitFor("successor's name");
    await ui.press(KEYS.enter);
    await ui.waitFor((f) => flat(f).includes('enter the same places as before:') && flat(f).includes('(OPENAI_API_KEY)'));
    await ui.press(KEYS.enter);
    await ui.waitFor('the successor is in place');
    expect(keyIn(env, 'OPENAI_API_KEY')).not.toBe(first);
    await ui.press('k');
    await ui.waitFor(/kept the old key/);
    neverDrawn(ui);
  });

  it('a destination the parser refuses is said in the dialog’s words, without the command line’s flag', async () => {
    const { ui } = open(await sb.fundedUser(25));
    await ui.waitFor('no keys yet');
    await createInto(ui, 'f', './app.env:MY-KEY');
    await ui.waitFor('"MY-KEY" is not a variable name');
    expect(flat(ui.lastFrame())).not.toContain('--to-file');
    await ui.press(KEYS.esc);
  });

  it('a key shown once can be sent to a file too (f) and stays until y', async () => {
    const { ui } = open(await sb.fundedUser(25));
    await ui.waitFor('no keys yet');
    await ui.press('n');
    await ui.waitFor('New credit key');
    await ui.press(KEYS.enter);
    await ui.waitFor('Where should the new key');
    await ui.press(KEYS.enter);
    const shown = SK.exec(await ui.waitFor(SK))![0];
    await ui.press('f');
    await ui.waitFor('dotenv file:');
    const env = path.join(mkdtempSync(path.join(root, 'app-')), '.env');
    await ui.type(env);
    await ui.press(KEYS.enter);
    await ui.waitFor(/✓ wrote KEYDECK_API_KEY/);
    expect(ui.lastFrame()).toContain(shown);
    expect(keyIn(env)).toBe(shown);
    await ui.press('y');
    await ui.waitFor('gone from the screen');
  });

  it('a command that fails after creation: the key is revealed so it is not lost, and D deletes it', async () => {
    const token = await sb.fundedUser(25);
    const { ui } = open(token);
    await ui.waitFor('no keys yet');
    await createInto(ui, 'x', 'sh -c "echo denied >&2; exit 4"');
    await ui.waitFor(SK);
    expect(ui.lastFrame()).toMatch(/✕ `sh -c "echo denied >&2; exit 4"` failed \(exit 4\)/);
    expect(ui.lastFrame()).toContain('denied');
    expect(ui.lastFrame()).toContain('D delete it');
    await ui.press('D');
    await ui.waitFor('Delete');
    await ui.press(KEYS.tab);
    await ui.press(KEYS.enter);
    await ui.waitFor(/deleted the key ".*"/);
    expect(await sb.client(token).keys.list()).toEqual([]);
  });
});

describe('an interrupted key creation at the next start', () => {
  it('is offered with the rotations: f finishes it by the same machine as --finish, u undoes one (its file put back)', async () => {
    const token = await sb.fundedUser(25);
    const client = sb.client(token);
    const dataDir = mkdtempSync(path.join(root, 'data-'));
    const ctx = keyOperationContext({ dataDir, client, delivery: { lockDir: dataDir }, deliveries: new DeliveryRecord(dataDir), profile: 'test', origin: new URL(sb.url).origin });
    // "a": created, then keydeck was killed before the file was written: its value is gone.
    const envA = path.join(mkdtempSync(path.join(root, 'app-')), '.env');
    await expect(
      drive(createKeyMachine, { ...ctx, failpoints: killedAt('create.mint:recorded') }, { plan: { kind: 'create', name: 'a', destinations: [parseFileDestination(envA)] } }, 'run', {}),
    ).rejects.toThrow('killed');
    const lost = (await ctx.record.list()).find((o) => o.name === 'a')!;
    // "b": its file took the key, its command failed: recorded, the file holding the key.
    const envB = path.join(mkdtempSync(path.join(root, 'app-')), '.env');
    writeFileSync(envB, 'PORT=8080\n', { mode: 0o600 });
    const b = await drive(createKeyMachine, ctx, { plan: { kind: 'create', name: 'b', destinations: [parseFileDestination(envB), parseCommandDestination('false')] } }, 'run', {});
    expect(b.kind).toBe('undelivered');

    const ui = renderApp(testServices({ store: noKeychainStore().store, baseUrl: sb.url, dataDir }), { session: readySession(sb.url, token), columns: 100, rows: 30 });
    await ui.waitFor('A key creation was interrupted');
    expect(flat(ui.lastFrame() ?? '')).toContain('The creation of the key "a" stopped before the new key reached every destination');
    await ui.press('f');
    await ui.waitFor('created and delivered');
    const keys = await client.keys.list();
    expect(keys.map((k) => k.id)).not.toContain(lost.key.id);
    expect((await sb.infer(keyIn(envA)!)).status).toBe(200);
    await ui.press(KEYS.enter);
    await ui.waitFor((f) => flat(f).includes('The creation of the key "b" stopped'));
    await ui.press('u');
    await ui.waitFor('Undo the creation of "b"?');
    await ui.press(KEYS.tab);
    await ui.press(KEYS.enter);
    // The status line wraps where the temp dir's path is long: the same words, read across the wrap.
    await ui.waitFor((f) => /put back .*\.env \(KEYDECK_API_KEY\) as it was before/.test(flat(f)));
    expect(readFileSync(envB, 'utf8')).toBe('PORT=8080\n');
    expect((await client.keys.list()).map((k) => k.name)).toEqual(['a']);
    expect(await ctx.record.list()).toEqual([]);
    neverDrawn(ui);
  });
});

describe('rotation from the Keys pane', () => {
  it('R on a credit key: the successor goes into the file, then d deactivates the old key', async () => {
    const token = await sb.fundedUser(25);
    const env = path.join(mkdtempSync(path.join(root, 'app-')), '.env');
    const old = await sb.client(token).keys.createCredit({ name: 'web' });
    writeFileSync(env, `KEYDECK_API_KEY=${old.apiKey}\n`, { mode: 0o600 });
    const { ui, dataDir } = open(token);
    await ui.waitFor('web');
    await ui.press('R');
    await ui.waitFor('enter saves "web"');
    await ui.press(KEYS.enter);
    // Never delivered by keydeck: said so, not "where it is used now".
    const choose = await ui.waitFor('Where does the successor "web" go?');
    expect(choose.replace(/[│\s]+/g, ' ')).toContain('keydeck never delivered the old key, so it does not know where it is used');
    await ui.press('f');
    await ui.type(env);
    await ui.press(KEYS.enter);
    await ui.waitFor('the successor is in place');
    await ui.waitFor(/The old key "web \(rotated \d{4}-\d\d-\d\d\)" was never used/);
    const successor = keyIn(env)!;
    expect(successor).not.toBe(old.apiKey);
    await ui.press('d');
    await ui.waitFor(/deactivated the old key "web \(rotated \d{4}-\d\d-\d\d\)"/);
    // The successor took the name: the key in use is still "web"; the old one is named for its rotation.
    const keys = await sb.client(token).keys.list();
    expect(keys.map((k) => [k.name.replace(/\d{4}-\d\d-\d\d/, 'DATE'), k.isActive]).sort()).toEqual([
      ['web (rotated DATE)', false],
      ['web', true],
    ]);
    expect((await sb.infer(successor)).status).toBe(200);
    expect(await rotationRecord(dataDir).list()).toEqual([]);
    neverDrawn(ui);
  });

  it('w in the handover deactivates the old key once it has been idle for a minute (by the service’s clock)', async () => {
    const token = await sb.fundedUser(25);
    const client = sb.client(token);
    const old = await client.keys.createCredit({ name: 'batch' });
    expect((await sb.infer(old.apiKey)).status).toBe(200);
    const env = path.join(mkdtempSync(path.join(root, 'app-')), '.env');
    const { ui } = open(token);
    await ui.waitFor('batch');
    await ui.press('R');
    await ui.waitFor('enter saves "batch"');
    await ui.press(KEYS.enter);
    await ui.waitFor('Where does the successor');
    await ui.press('f');
    await ui.type(env);
    await ui.press(KEYS.enter);
    await ui.waitFor(/The old key "batch \(rotated \d{4}-\d\d-\d\d\)" was last used \d+ s ago/);
    await ui.press('w');
    await ui.waitFor('Deactivating it once it has not been used for 60 s');
    expect((await client.keys.list()).find((k) => k.id === old.id)!.isActive).toBe(true);
    // A minute and more passes on the service's clock without a request: the next read sees it idle.
    await sb.advance(90);
    await ui.waitFor(/deactivated the old key "batch \(rotated/, 10_000);
    expect((await client.keys.list()).find((k) => k.id === old.id)!.isActive).toBe(false);
  });

  it('the handover shows the old key’s spend from the usage figures the app read (no read spent for it)', async () => {
    const token = await sb.fundedUser(25);
    const client = sb.client(token);
    const old = await client.keys.createCredit({ name: 'paid' });
    expect((await sb.infer(old.apiKey, { sandbox_cost_usd: 2 })).status).toBe(200);
    const dir = mkdtempSync(path.join(root, 'history-'));
    const history = BalanceHistoryStore.open({ path: path.join(dir, 'history.db') });
    onTestFinished(() => history.close());
    const services = {
      ...testServices({ store: noKeychainStore().store, baseUrl: sb.url, dataDir: mkdtempSync(path.join(root, 'data-')) }),
      openUsage: (baseUrl: string) => ({ budget: new UsageBudget(history.database), keyHistory: new KeyHistory(history.database, history.series('test', originOf(baseUrl)).id) }),
    };
    const ui = renderApp(services, { session: readySession(sb.url, token), columns: 100, rows: 30 });
    await ui.waitFor('$2.00');
    await ui.press('R');
    await ui.waitFor('enter saves "paid"');
    await ui.press(KEYS.enter);
    await ui.waitFor('Where does the successor');
    await ui.press('f');
    await ui.type(path.join(mkdtempSync(path.join(root, 'app-')), '.env'));
    await ui.press(KEYS.enter);
    await ui.waitFor((f) => flat(f).includes('Usage figures of just now: the old key spent $2.00 in 24 h.'));
    await ui.press('k');
    await ui.waitFor(/kept the old key "paid \(rotated/);
  });

  it('R on a subscription key says why not and what works instead; nothing is created', async () => {
    const token = await sb.fundedUser(25);
    await sb.subscription(token, 'standard', ['asia']);
    const { ui } = open(token);
    await ui.waitFor('Standard subscription');
    await ui.press('R');
    await ui.waitFor('This key cannot be rotated');
    expect(ui.lastFrame()).toMatch(/one per subscription payment/);
    await ui.press(KEYS.enter);
    expect((await sb.client(token).keys.list()).length).toBe(1);
  });

  it('an interrupted rotation is offered at start: u undoes it (successor deleted), and one delivered is finished with k', async () => {
    const token = await sb.fundedUser(25);
    const client = sb.client(token);
    // (The sandbox helpers read the seed's shapes; this dialect envelopes answers: the client reads both.)
    const a = await client.keys.createCredit({ name: 'a' });
    const b = await client.keys.createCredit({ name: 'b' });
    const dataDir = mkdtempSync(path.join(root, 'data-'));
    const record = rotationRecord(dataDir);
    const ctx = rotationContext({ dataDir, client, delivery: { lockDir: dataDir }, profile: 'test', origin: new URL(sb.url).origin });
    const keys = await client.keys.list();
    // "a": interrupted after its successor was created (never delivered).
    await expect(
      drive(rotateKeyMachine, { ...ctx, failpoints: killedAt('rotate.mint:recorded') }, { plan: { old: keys.find((k) => k.id === a.id)!, successorName: 'a-r2', destinations: [] } }, 'run', {}),
    ).rejects.toThrow('killed');
    // "b": interrupted after its successor was delivered into a file.
    const env = path.join(mkdtempSync(path.join(root, 'app-')), '.env');
    await expect(
      drive(
        rotateKeyMachine,
        { ...ctx, failpoints: killedAt('rotate.delivered:recorded') },
        { plan: { old: keys.find((k) => k.id === b.id)!, successorName: 'b-r2', destinations: [parseFileDestination(env)] } },
        'run',
        {},
      ),
    ).rejects.toThrow('killed');

    const services = testServices({ store: noKeychainStore().store, baseUrl: sb.url, dataDir });
    const ui = renderApp(services, { session: readySession(sb.url, token), columns: 100, rows: 30 });
    await ui.waitFor('A rotation was interrupted');
    expect(ui.lastFrame()).toContain('The rotation of "a" (successor "a-r2") stopped before its successor');
    expect(flat(ui.lastFrame() ?? '')).toContain('Finishing reads its destinations first');
    expect(ui.lastFrame()).toContain('1 more after this one');
    await ui.press('u');
    await ui.waitFor('Undo the rotation of "a"?');
    await ui.press(KEYS.tab);
    await ui.press(KEYS.enter);
    await ui.waitFor((f) => flat(f).includes('stopped after its successor was delivered'));
    await ui.press('f');
    await ui.waitFor('the successor is in place');
    await ui.press('k');
    await ui.waitFor(/kept the old key "b"/);
    expect((await client.keys.list()).map((k) => k.name).sort()).toEqual(['a', 'b', 'b-r2']);
    // Undone, "a"'s successor is gone; "b"'s file holds its successor.
    expect((await sb.infer(keyIn(env)!)).status).toBe(200);
    expect(await record.list()).toEqual([]);
  });
});

describe('an operation whose flow closes while its drive runs', () => {
  /**
   * The app against a fault proxy (test/resilience/fault-proxy.ts) holding the first creating
   * answer (`held()`, then `release()`; `posts()` counts the creating requests), as the `default`
   * profile (that of a `keydeck` run with KEYDECK_TOKEN and KEYDECK_BASE_URL, which takes it up
   * from the same data dir), and that other keydeck: a process of its own while the app's drive
   * may run (in the test's thread after it, where a process proves nothing more).
   */
  async function rig(token: string) {
    const creating = { method: 'POST', path: '/api/keys/credit' };
    const faults = await startFaultProxy(sb.url);
    faults.set({ kind: 'hold', count: 1, only: creating });
    const proxy = {
      url: faults.url,
      held: faults.held,
      release: faults.release,
      posts: () => faults.seen.filter((r) => r.method === creating.method && r.path.split('?')[0] === creating.path).length,
    };
    const dataDir = mkdtempSync(path.join(root, 'data-'));
    // The creating answer is held for longer than a test's default deadline of a call.
    const services = testServices({ store: noKeychainStore().store, baseUrl: proxy.url, dataDir, profile: 'default', timeoutMs: 60_000 });
    const ui = renderApp(services, { session: readySession(proxy.url, token), columns: 100, rows: 30 });
    const home = makeTempHome();
    onTestFinished(async () => {
      home.remove();
      await faults.close();
    });
    const run = (args: readonly string[], runner?: CliRunner) =>
      runCli(args, { env: home.env({ KEYDECK_TOKEN: token, KEYDECK_BASE_URL: proxy.url, KEYDECK_DATA_DIR: dataDir }), ...(runner && { runner }) });
    return { ui, proxy, run };
  }

  it(
    'R, the app ended while the successor’s creating answer is slow: another keydeck is refused (in progress) until the drive ends, then finishes it; one successor',
    { timeout: 60_000 },
    async () => {
      const token = await sb.fundedUser(25);
      const env = path.join(mkdtempSync(path.join(root, 'app-')), '.env');
      const old = await sb.client(token).keys.createCredit({ name: 'web' });
      writeFileSync(env, `KEYDECK_API_KEY=${old.apiKey}\n`, { mode: 0o600 });
      const { ui, proxy, run } = await rig(token);
      await ui.waitFor('web');
      await ui.press('R');
      await ui.waitFor('enter saves "web"');
      await ui.press(KEYS.enter);
      await ui.waitFor('Where does the successor "web" go?');
      await ui.press('f');
      await ui.type(env);
      await ui.press(KEYS.enter);
      await proxy.held();
      // The app ends as the lifecycle ends it (ctrl-c): the flow is unmounted, its drive goes on.
      const ended = ui.end();
      const during = await run(['keys', 'rotate', '--finish', 'web', '--old', 'keep'], 'process');
      expect(during.stderr).toMatch(/the rotation of "web" is in progress in another keydeck/);
      // Nothing to do about it here: no `--finish` or `--undo` offered while it runs elsewhere.
      expect(during.stderr).not.toMatch(/may have been created/);
      expect(during.code).toBe(1);
      proxy.release();
      await ended;
      // The drive stopped at the handover (the user's word): the rotation is interrupted now, and taken up.
      const after = await run(['keys', 'rotate', '--finish', 'web', '--old', 'keep']);
      expect(after.code, after.stderr).toBe(0);
      const keys = await sb.client(token).keys.list();
      expect(keys.map((k) => k.name.replace(/\d{4}-\d\d-\d\d/, 'DATE')).sort()).toEqual(['web', 'web (rotated DATE)']);
      expect(proxy.posts()).toBe(1);
      expect(keyIn(env)).not.toBe(old.apiKey);
      expect((await sb.infer(keyIn(env)!)).status).toBe(200);
    },
  );

  it('n, the app ended while the key’s creating answer is slow: another keydeck is refused (in progress) until the drive ends; one key', { timeout: 60_000 }, async () => {
    const token = await sb.fundedUser(25);
    const { ui, proxy, run } = await rig(token);
    await ui.waitFor('no keys yet');
    const env = path.join(mkdtempSync(path.join(root, 'app-')), '.env');
    await createInto(ui, 'f', env);
    await proxy.held();
    const ended = ui.end();
    const [made] = await sb.client(token).keys.list();
    const during = await run(['keys', 'create', '--finish', made!.name], 'process');
    expect(during.stderr).toMatch(new RegExp(`the creation of "${made!.name}" is in progress in another keydeck`));
    expect(during.code).toBe(1);
    proxy.release();
    await ended;
    // The drive delivered the key and ended the operation: nothing is left to finish.
    const after = await run(['keys', 'create', '--finish', made!.name]);
    expect(after.code, after.stderr).toBe(0);
    expect(after.stdout).toContain(`No unfinished creation of the key "${made!.name}".`);
    expect((await sb.client(token).keys.list()).map((k) => k.id)).toEqual([made!.id]);
    expect(proxy.posts()).toBe(1);
    expect(keyIn(env)).toMatch(SK);
  });
});
