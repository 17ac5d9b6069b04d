/**
 * The rotation machine (src/operations/rotateKey.ts) driven against a real sandbox, in process: no
 * key is ever deactivated without its successor having been delivered (the old key's fate, given
 * before, waits: a failed destination keeps the rotation before `delivered`, and the record's
 * table refuses a move it does not list);
 * names (the successor takes the old key's name, the old one becomes `NAME (rotated DATE)`; the
 * management key's `NAME-r2`); an inactive key is refused; a rotation interrupted while creating
 * finds its successor by name; undo reactivates what keydeck deactivated and gives the name back.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KeydeckClient } from '../../src/api/client.js';
import { parseFileDestination, type Destination } from '../../src/delivery/destinations.js';
import { findKey, rotatedName, successorName } from '../../src/delivery/rotation.js';
import { drive, type OperationEvent, type Failpoints } from '../../src/operations/index.js';
import { rotateKeyMachine, rotationContext, type RotationContext } from '../../src/operations/rotateKey.js';
import type { Rotation } from '../../src/operations/rotationRecord.js';
import { eventPhrases } from '../../src/operations/wording.js';
import { startTestSandbox, type TestSandbox } from '../sandbox/helpers.js';

let sb: TestSandbox;
let root: string;
beforeAll(async () => {
  sb = await startTestSandbox();
  root = mkdtempSync(path.join(tmpdir(), 'keydeck-rotation-'));
});
afterAll(async () => {
  rmSync(root, { recursive: true, force: true });
  await sb.close();
});

async function rig(name: string) {
  const token = await sb.fundedUser(25);
  const client = new KeydeckClient({ baseUrl: sb.url, token, retries: 0 });
  await client.keys.createCredit({ name });
  const old = (await client.keys.list())[0]!;
  const dataDir = mkdtempSync(path.join(root, 'data-'));
  const said: string[] = [];
  const ctx = rotationContext({ dataDir, client, delivery: { lockDir: dataDir }, profile: 'p', origin: new URL(sb.url).origin, emit: (e: OperationEvent) => said.push(...eventPhrases(e, 'cli')) });
  return { client, old, ctx, said };
}

/** The kit's failpoints calling `at` once `point` is reached (a kill there, or a change of the world). */
function when(point: string, at: () => void): Failpoints {
  return { reach: (name) => name === point && at() };
}

/** A rotation started (`begin`) and stopped there, as a kill right after its record was written leaves it. */
async function interruptedAtBegin(ctx: RotationContext, old: Parameters<typeof findKey>[0][number], successor: string, destinations: Destination[] = []): Promise<Rotation> {
  const killed = drive(
    rotateKeyMachine,
    {
      ...ctx,
      failpoints: when('rotate.begin:recorded', () => {
        throw new Error('killed');
      }),
    },
    { plan: { old, successorName: successor, destinations } },
    'run',
    {},
  );
  await expect(killed).rejects.toThrow('killed');
  return (await ctx.record.list())[0]!;
}

describe('rotation steps', () => {
  it('names successors NAME-r2, -r3… (management keys), rotated keys NAME (rotated DATE), and skips names taken', () => {
    expect(successorName('web')).toBe('web-r2');
    expect(successorName('web-r2')).toBe('web-r3');
    expect(successorName('web', ['web-r2'])).toBe('web-r3');
    expect(successorName('x'.repeat(128)).length).toBe(128);
    const day = new Date('2026-11-28T23:59:00Z');
    expect(rotatedName('web', day)).toBe('web (rotated 2026-11-28)');
    expect(rotatedName('web', day, ['web (rotated 2026-11-28)'])).toBe('web (rotated 2026-11-28, 2)');
    expect(rotatedName('x'.repeat(128), day)).toHaveLength(128);
  });

  it('a name designates the active key among keys of that name; an inactive key is not rotated', async () => {
    const { client, old, ctx } = await rig('web');
    await client.keys.update(old.id, { isActive: false });
    await client.keys.createCredit({ name: 'web' });
    const keys = await client.keys.list();
    expect(findKey(keys, 'web').id).not.toBe(old.id);
    const inactive = keys.find((k) => k.id === old.id)!;
    await expect(drive(rotateKeyMachine, ctx, { plan: { old: inactive, destinations: [] } }, 'run', {})).rejects.toThrow(/is not active: a rotation replaces a key in use/);
    expect(await ctx.record.list()).toEqual([]);
  });

  it('never touches the old key before its successor reached every destination', async () => {
    const { client, old, ctx } = await rig('api');
    const broken = parseFileDestination(path.join(root, 'no-such-dir', '.env'));
    // Checked before anything is created (I5): nothing is recorded.
    await expect(drive(rotateKeyMachine, ctx, { plan: { old, successorName: 'api-r2', destinations: [broken] } }, 'run', {})).rejects.toThrow(/does not exist/);
    expect(await ctx.record.list()).toEqual([]);
    const gone = mkdtempSync(path.join(root, 'app-'));
    // The directory goes away between the check and the write: the destination fails.
    const removeDir = when('rotate.mint:recorded', () => rmSync(gone, { recursive: true, force: true }));
    const first = await drive(rotateKeyMachine, { ...ctx, failpoints: removeDir }, { plan: { old, successorName: 'api-r2', destinations: [parseFileDestination(path.join(gone, '.env'))] } }, 'run', {
      handOver: 'delete',
    });
    expect(first.kind).toBe('undelivered');
    if (first.kind !== 'undelivered') return;
    expect(first.outcomes[0]!.ok).toBe(false);
    expect(first.op.state).toBe('created');
    // Taken up with the old key's fate decided: the successor is delivered first, and it fails again.
    const again = await drive(rotateKeyMachine, ctx, { op: first.op }, 'finish', { handOver: 'deactivate' });
    expect(again.kind).toBe('undelivered');
    expect((await client.keys.list()).find((k) => k.id === old.id)!.isActive).toBe(true);
    // Undo: the successor goes, the old key is as it was.
    expect((await drive(rotateKeyMachine, ctx, { op: (await ctx.record.list())[0]! }, 'undo', {})).kind).toBe('undone');
    expect((await client.keys.list()).map((k) => k.name)).toEqual(['api']);
    expect(await ctx.record.list()).toEqual([]);
  });

  it('a rotation interrupted while creating finds its successor by name; finishing deletes it once a new one is delivered', async () => {
    const { client, old, ctx, said } = await rig('job');
    const rotation = await interruptedAtBegin(ctx, old, 'job-r2');
    // The create reached the service, the record never heard of it (keydeck killed in between).
    const lost = await client.keys.createCredit({ name: 'job-r2' });
    const shown = await drive(rotateKeyMachine, ctx, { op: rotation }, 'finish', {});
    expect(shown.kind).toBe('reveal');
    if (shown.kind !== 'reveal') return;
    expect(shown.op.lost).toEqual([lost.id]);
    const delivered = await drive(rotateKeyMachine, ctx, { op: shown.op }, 'run', { shown: true });
    expect(delivered.kind).toBe('handover');
    if (delivered.kind !== 'handover') return;
    expect(delivered.op.lost).toEqual([]);
    const names = (await client.keys.list()).map((k) => k.id);
    expect(names).not.toContain(lost.id);
    await drive(rotateKeyMachine, ctx, { op: delivered.op }, 'finish', { handOver: 'deactivate' });
    expect(said.at(-1)).toMatch(/^deactivated the old key "job"/);
    expect(await ctx.record.list()).toEqual([]);
  });

  it('undo after keydeck deactivated the old key reactivates it', async () => {
    const { client, old, ctx, said } = await rig('svc');
    const shown = await drive(rotateKeyMachine, ctx, { plan: { old, successorName: 'svc-r2', destinations: [] } }, 'run', {});
    if (shown.kind !== 'reveal') throw new Error(shown.kind);
    const delivered = await drive(rotateKeyMachine, ctx, { op: shown.op }, 'run', { shown: true });
    if (delivered.kind !== 'handover') throw new Error(delivered.kind);
    // Deactivated, but the record not yet cleared (killed between the PUT and the record).
    await client.keys.update(old.id, { isActive: false });
    await drive(rotateKeyMachine, ctx, { op: delivered.op }, 'undo', {});
    expect(said.join('; ')).toMatch(/reactivated the old key "svc"/);
    expect((await client.keys.list()).map((k) => [k.name, k.isActive])).toEqual([['svc', true]]);
  });

  it('the record refuses a move its table does not list (a successor "delivered" before it was created)', async () => {
    const { old, ctx } = await rig('tbl');
    const rotation = await interruptedAtBegin(ctx, old, 'tbl-r2');
    await expect(ctx.record.update(rotation.id, { state: 'delivered' })).rejects.toMatchObject({ code: 'bad_transition' });
    expect((await ctx.record.list())[0]!.state).toBe('creating');
  });
});
