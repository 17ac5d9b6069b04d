/**
 * The rotation machine (src/operations/rotateKey.ts, rotateRecovery.ts) against a real sandbox, in
 * process: no key is ever deactivated without its successor having been delivered (handleOldKey
 * refuses anything before `delivered`, and a failed destination keeps the rotation before it);
 * names (the successor takes the old key's name, the old one becomes `NAME (rotated DATE)`; the
 * management key's `NAME-r2`); an inactive key is refused; a rotation interrupted while creating
 * finds its successor by name; undo reactivates what keydeck deactivated and gives the name back.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KeydeckClient } from '../../src/api/client.js';
import { parseFileDestination } from '../../src/delivery/destinations.js';
import { findKey, rotatedName, RotationError, successorName } from '../../src/delivery/rotation.js';
import { beginRotation, createSuccessor, deliverSuccessor, handleOldKey, markDelivered } from '../../src/operations/rotateKey.js';
import { resumeRotation, undoRotation } from '../../src/operations/rotateRecovery.js';
import { RotationRecord } from '../../src/delivery/rotationRecord.js';
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
  const ctx = { client, record: new RotationRecord(dataDir), delivery: { lockDir: dataDir } };
  return { client, old, ctx, origin: new URL(sb.url).origin };
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
    const { client, old, ctx, origin } = await rig('web');
    await client.keys.update(old.id, { isActive: false });
    await client.keys.createCredit({ name: 'web' });
    const keys = await client.keys.list();
    expect(findKey(keys, 'web').id).not.toBe(old.id);
    const inactive = keys.find((k) => k.id === old.id)!;
    await expect(beginRotation(ctx, { profile: 'p', origin, old: inactive, destinations: [] })).rejects.toThrow(/is not active: a rotation replaces a key in use/);
    expect(await ctx.record.list()).toEqual([]);
  });

  it('never touches the old key before its successor reached every destination', async () => {
    const { client, old, ctx, origin } = await rig('api');
    const broken = parseFileDestination(path.join(root, 'no-such-dir', '.env'));
    // Checked before anything is created (I5): nothing is recorded.
    await expect(beginRotation(ctx, { profile: 'p', origin, old, successorName: 'api-r2', destinations: [broken] })).rejects.toThrow(/does not exist/);
    const gone = mkdtempSync(path.join(root, 'app-'));
    const rotation = await beginRotation(ctx, { profile: 'p', origin, old, successorName: 'api-r2', destinations: [parseFileDestination(path.join(gone, '.env'))] });
    await expect(handleOldKey(ctx, rotation, 'deactivate')).rejects.toThrow(RotationError);
    const made = await createSuccessor(ctx, rotation);
    await expect(handleOldKey(ctx, made.rotation, 'delete')).rejects.toThrow(/has not reached every destination/);
    // The directory goes away between the check and the write: the destination fails.
    rmSync(gone, { recursive: true, force: true });
    const { rotation: after, outcomes } = await deliverSuccessor(ctx, made.rotation, made.created.apiKey);
    expect(outcomes[0]!.ok).toBe(false);
    expect(after.stage).toBe('created');
    await expect(handleOldKey(ctx, after, 'deactivate')).rejects.toThrow(/not reached every destination/);
    expect((await client.keys.list()).find((k) => k.id === old.id)!.isActive).toBe(true);
    // Undo: the successor goes, the old key is as it was.
    await undoRotation(ctx, after);
    expect((await client.keys.list()).map((k) => k.name)).toEqual(['api']);
    expect(await ctx.record.list()).toEqual([]);
  });

  it('a rotation interrupted while creating finds its successor by name; finishing deletes it once a new one is delivered', async () => {
    const { client, old, ctx, origin } = await rig('job');
    const rotation = await beginRotation(ctx, { profile: 'p', origin, old, successorName: 'job-r2', destinations: [] });
    // The create reached the service, the record never heard of it (keydeck killed in between).
    const lost = await client.keys.createCredit({ name: 'job-r2' });
    const { rotation: again } = await resumeRotation(ctx, rotation);
    expect(again.orphans).toEqual([lost.id]);
    const made = await createSuccessor(ctx, again);
    const delivered = await markDelivered(ctx, made.rotation);
    expect(delivered.orphans).toEqual([]);
    const names = (await client.keys.list()).map((k) => k.id);
    expect(names).not.toContain(lost.id);
    expect(await handleOldKey(ctx, delivered, 'deactivate')).toMatch(/^deactivated the old key "job"/);
    expect(await ctx.record.list()).toEqual([]);
  });

  it('undo after keydeck deactivated the old key reactivates it', async () => {
    const { client, old, ctx, origin } = await rig('svc');
    const rotation = await beginRotation(ctx, { profile: 'p', origin, old, successorName: 'svc-r2', destinations: [] });
    const made = await createSuccessor(ctx, rotation);
    const delivered = await markDelivered(ctx, made.rotation);
    // Deactivated, but the record not yet cleared (killed between the PUT and the record).
    await client.keys.update(old.id, { isActive: false });
    const said = await undoRotation(ctx, delivered);
    expect(said.join('; ')).toMatch(/reactivated the old key "svc"/);
    expect((await client.keys.list()).map((k) => [k.name, k.isActive])).toEqual([['svc', true]]);
  });
});
