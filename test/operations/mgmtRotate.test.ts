/**
 * The management-key rotation machine (src/operations/mgmtRotate.ts) where the service or the
 * place fails rather than the process dying (the kills are test/crash/mgmt-rotate.test.ts, against
 * the sandbox): the service rejects the new key, the place refuses the write, the place was changed
 * by someone else meanwhile, the kept copy is gone. A small in-memory service and place stand in
 * for the sandbox and the store, so each failure happens at exactly one step.
 */
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { KeydeckApiError } from '../../src/api/errors.js';
import type { CredentialPlace } from '../../src/operations/credentialPlace.js';
import { OperationError } from '../../src/operations/kit.js';
import { resumeManagementRotation, rotateManagementKey, type MgmtRotationContext } from '../../src/operations/mgmtRotate.js';
import { eventWords } from '../../src/operations/wording.js';
import { MgmtRotationRecord } from '../../src/operations/mgmtRotationRecord.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'keydeck-mgmt-rotate-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** An account's management keys by value, and what the service does on each call. */
function service(options: { rejectNew?: boolean } = {}) {
  let n = 0;
  const keys = new Map<string, { id: string; name: string; keyPrefix: string; isActive: boolean; createdAt: string }>();
  const add = (name: string) => {
    n++;
    const value = `mk_${String(n).padStart(8, '0')}rest${n}`;
    keys.set(value, { id: `id-${n}`, name, keyPrefix: value.slice(0, 11), isActive: true, createdAt: new Date().toISOString() });
    return value;
  };
  const first = add('cron');
  const auth = (token: string) => {
    if (!keys.has(token) || (options.rejectNew && token !== first)) throw new KeydeckApiError('unauthorized', 'unauthorized (scripted).', { status: 401 });
  };
  return {
    first,
    keys,
    add,
    keysWith: (token: string) => ({
      list: async () => (auth(token), [...keys.values()]),
      create: async ({ name }: { name: string }) => {
        auth(token);
        const apiKey = add(name);
        return { ...keys.get(apiKey)!, apiKey };
      },
      delete: async (id: string) => {
        auth(token);
        for (const [v, k] of keys) if (k.id === id) keys.delete(v);
        return { deleted: true };
      },
    }),
  };
}

/** A place in memory; `failWrite` makes the n-th write of the key itself fail. */
function place(initial: string, options: { failWrite?: number } = {}): CredentialPlace & { key?: string; kept?: string } {
  let writes = 0;
  const p: CredentialPlace & { key?: string; kept?: string } = {
    key: initial,
    target: { kind: 'store', storedIn: 'file' },
    describe: () => 'the test place',
    keptOnWrite: '',
    read: async () => p.key,
    write: async (token) => {
      if (++writes === options.failWrite) throw new Error('disk full (scripted)');
      p.key = token;
    },
    readBackup: async () => p.kept,
    writeBackup: async (token) => void (p.kept = token),
    dropBackup: async () => void delete p.kept,
    preflight: async () => undefined,
  };
  return p;
}

function context(svc: ReturnType<typeof service>, where: CredentialPlace): MgmtRotationContext & { lines: string[]; record: MgmtRotationRecord } {
  const lines: string[] = [];
  return {
    record: new MgmtRotationRecord(dir),
    place: where,
    profile: 'default',
    origin: 'https://api.example.com',
    keysWith: svc.keysWith as MgmtRotationContext['keysWith'],
    emit: (e) => lines.push(...eventWords(e, 'cli')),
    lines,
  };
}

describe('mgmt-keys rotate when the service or the place fails', () => {
  it('the service rejects the new key: the old one is put back and checked, the new one deleted, nothing recorded', async () => {
    const svc = service({ rejectNew: true });
    const where = place(svc.first);
    const ctx = context(svc, where);
    await expect(rotateManagementKey(ctx)).rejects.toMatchObject({ code: 'check_failed', message: expect.stringMatching(/holds the old key mk_00000001… again, and the new one was deleted/) });
    expect(where.key).toBe(svc.first);
    expect(where.kept).toBeUndefined();
    expect([...svc.keys.keys()]).toEqual([svc.first]);
    expect(await ctx.record.list()).toEqual([]);
  });

  it('the place refuses the new key: the new key is deleted, the old one stays in place', async () => {
    const svc = service();
    const where = place(svc.first, { failWrite: 1 });
    const ctx = context(svc, where);
    const err = await rotateManagementKey(ctx).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OperationError);
    expect(err).toMatchObject({ code: 'store_failed', message: expect.stringMatching(/could not be stored \(disk full \(scripted\)\); it was deleted again, and the test place keeps mk_00000001…/) });
    expect(where.key).toBe(svc.first);
    expect([...svc.keys.keys()]).toEqual([svc.first]);
    expect(await ctx.record.list()).toEqual([]);
  });

  it('the place holds another key when taken up (a login since): the new key, held nowhere, is deleted; the old key is left; never the key in place', async () => {
    const svc = service();
    const where = place(svc.first);
    const ctx = context(svc, where);
    const rotation = await ctx.record.start({
      profile: 'default',
      origin: ctx.origin,
      target: where.target,
      old: { id: 'id-1', name: 'cron', keyPrefix: svc.first.slice(0, 11) },
      successor: { name: 'cron-r2' },
      before: ['id-1'],
    });
    const lost = svc.add('cron-r2');
    const other = svc.add('login');
    where.key = other;
    const result = await resumeManagementRotation(ctx, rotation, 'finish');
    expect(result.kind).toBe('undone');
    expect([...svc.keys.keys()].sort()).toEqual([svc.first, other].sort());
    expect(svc.keys.has(lost)).toBe(false);
    expect(where.key).toBe(other);
    expect(ctx.lines.at(-1)).toMatch(/neither key of this rotation .*the old "cron" stays on the service/);
  });

  it('--undo with the new key in place but its kept copy gone: both keys stay, said with the delete command', async () => {
    const svc = service();
    const where = place(svc.first);
    const ctx = context(svc, where);
    const rotation = await ctx.record.start({
      profile: 'default',
      origin: ctx.origin,
      target: where.target,
      old: { id: 'id-1', name: 'cron', keyPrefix: svc.first.slice(0, 11) },
      successor: { name: 'cron-r2' },
      before: ['id-1'],
    });
    const fresh = svc.add('cron-r2');
    await ctx.record.update(rotation.id, { state: 'created', successor: { name: 'cron-r2', id: 'id-2', keyPrefix: fresh.slice(0, 11) } });
    await ctx.record.update(rotation.id, { state: 'stored' });
    where.key = fresh;
    const result = await resumeManagementRotation(ctx, (await ctx.record.list())[0]!, 'undo');
    expect(result.kind).toBe('kept_both');
    expect(where.key).toBe(fresh);
    expect(svc.keys.size).toBe(2);
    expect(ctx.lines.at(-1)).toMatch(/keydeck mgmt-keys delete id-1/);
    expect(await ctx.record.list()).toEqual([]);
  });
});

describe('the record of management-key rotations', () => {
  it('refuses a file it cannot trust or read, naming it, and changes nothing', async () => {
    const record = new MgmtRotationRecord(dir);
    writeFileSync(record.path, 'not json', { mode: 0o600 });
    await expect(record.list()).rejects.toThrow(
      new RegExp(`^the management-key rotation record ${record.path} cannot be read \\(it is not JSON\\), and is left in place; it may hold management-key rotations under way`),
    );
    await expect(record.list()).rejects.toMatchObject({ code: 'record_damaged' });
    writeFileSync(record.path, JSON.stringify({ version: 1, rotations: [{ id: 'x' }] }), { mode: 0o600 });
    await expect(record.start({ profile: 'p', origin: 'o', target: { kind: 'store' }, old: { id: 'a', name: 'a', keyPrefix: 'mk_aaaaaaaa' }, successor: { name: 'b' } })).rejects.toThrow(
      /is not in keydeck's format/,
    );
    chmodSync(record.path, 0o666);
    await expect(record.list()).rejects.toThrow(/writable by group or others/);
    expect(readFileSync(record.path, 'utf8')).toBe(JSON.stringify({ version: 1, rotations: [{ id: 'x' }] }));
  });
});
