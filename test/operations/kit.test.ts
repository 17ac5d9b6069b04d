/**
 * The operations' kit (src/operations/kit.ts, record.ts; docs/architecture.md "The operations'
 * kit"): every record checks each update against its table of moves and writes nothing when the
 * table refuses it; an older keydeck's entries (`stage`, `orphans`) are read as `state`, `lost`;
 * `drive` performs one effect per step, its record write after, and its failpoints (armed by
 * `KEYDECK_FAILPOINT` with `KEYDECK_FAILPOINT_ACTION=halt`, traced by `KEYDECK_FAILPOINT_TRACE`) stop it where a kill would,
 * the record as it was written; and an operation stays locked until its drive has settled,
 * whatever its face lets go of meanwhile.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { keyOperationRecord, KEY_OPERATION_TRANSITIONS } from '../../src/operations/keyOperationRecord.js';
import { failpointsFrom } from '../../src/failpoints/index.js';
import { DriveMemo, drive, OperationError, step, type KitContext, type Machine } from '../../src/operations/kit.js';
import { MGMT_ROTATION_TRANSITIONS, MgmtRotationRecord } from '../../src/operations/mgmtRotationRecord.js';
import { canMove, MachineRecord } from '../../src/operations/record.js';
import { rotationRecord, ROTATION_TRANSITIONS } from '../../src/operations/rotationRecord.js';
import { GUARDRAIL_TRANSITIONS, guardrailRecord } from '../../src/operations/guardrailRecord.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'keydeck-kit-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const FROM = { profile: 'p', origin: 'https://api.example.com' };

describe('the records of the operations', () => {
  it('each checks every move against its table: a move it lists is written, any other refused with nothing written', async () => {
    const tables = [
      {
        table: KEY_OPERATION_TRANSITIONS,
        start: async () => keyOperationRecord(dir).start({ ...FROM, kind: 'create', name: `k${Math.random()}`, key: {}, lost: [], destinations: [], targets: [] }),
        record: () => keyOperationRecord(dir),
      },
      {
        table: ROTATION_TRANSITIONS,
        start: async () =>
          rotationRecord(dir).start({ ...FROM, kind: 'consumption', old: { id: `o${Math.random()}`, name: 'web' }, successor: { name: 'web' }, lost: [], destinations: [], targets: [] }),
        record: () => rotationRecord(dir),
      },
      {
        table: MGMT_ROTATION_TRANSITIONS,
        start: async () =>
          new MgmtRotationRecord(dir).start({ ...FROM, profile: `p${Math.random()}`, target: { kind: 'store' }, old: { id: 'a', name: 'a', keyPrefix: 'mk_aaaaaaaa' }, successor: { name: 'b' } }),
        record: () => new MgmtRotationRecord(dir),
      },
      {
        table: GUARDRAIL_TRANSITIONS,
        start: async () =>
          guardrailRecord(dir).start({ ...FROM, keyId: `k${Math.random()}`, keyName: 'web', rule: 'budget', periodStart: '2026-05-10T00:00:00.000Z', action: 'disable', reenable: true, said: [] }),
        record: () => guardrailRecord(dir),
      },
    ] as const;
    // Each change is a durable write under the data dir's lock (src/config/recordFile.ts): the
    // walk makes only those its checks need. A refused move writes nothing, so one entry walked to
    // `from` takes every refused move and then stays; each listed move gets an entry of its own.
    for (const { table, start, record } of tables) {
      const moves = table as Record<string, readonly string[]>;
      const r = record() as unknown as MachineRecord<{ id: string; state: string; profile: string; origin: string; startedAt: string; updatedAt: string }, string>;
      const states = Object.keys(moves);
      for (const from of states) {
        /** A new entry, walked to `from` by moves the table lists (each state is reached from the first); undefined when none leads there. */
        const walked = async (): Promise<{ readonly id: string; readonly state: string } | undefined> => {
          const op = await start();
          const path = routeTo(moves, op.state, from);
          if (!path) return void (await r.remove(op.id));
          for (const s of path) await r.update(op.id, { state: s });
          return op;
        };
        const first = await walked();
        if (!first) continue;
        const before = readFileSync(r.path, 'utf8');
        for (const to of states) {
          if (canMove(moves, from, to)) continue;
          await expect(r.update(first.id, { state: to }), `${from} → ${to}`).rejects.toMatchObject({ code: 'bad_transition' });
          expect(readFileSync(r.path, 'utf8')).toBe(before);
        }
        // Staying first (the entry is still at `from`), then each listed move, the last one on this entry.
        const allowed = [from, ...moves[from]!];
        const ops = [first];
        for (const [i, to] of allowed.entries()) {
          const op: { readonly id: string; readonly state: string } = i === 0 || i === allowed.length - 1 ? first : (await walked())!;
          if (op !== first) ops.push(op);
          expect((await r.update(op.id, { state: to })).state, `${from} → ${to}`).toBe(to);
        }
        for (const op of ops) await r.remove(op.id);
      }
    }
  });

  it('reads the entries an older keydeck wrote (`stage`, `orphans`) as `state` and `lost`', async () => {
    const at = new Date().toISOString();
    writeFileSync(
      path.join(dir, 'rotations.json'),
      JSON.stringify({
        version: 1,
        rotations: [
          {
            id: 'r1',
            kind: 'consumption',
            ...FROM,
            startedAt: at,
            updatedAt: at,
            stage: 'created',
            old: { id: 'o', name: 'web' },
            successor: { name: 'web', id: 's' },
            orphans: ['x'],
            delivered: [0],
            destinations: [],
            targets: [],
          },
        ],
      }),
      { mode: 0o600 },
    );
    const [r] = await rotationRecord(dir).list();
    expect(r).toMatchObject({ state: 'created', lost: ['x'] });
    // Written back in the current shape.
    await rotationRecord(dir).update('r1', { state: 'delivered' });
    const raw = JSON.parse(readFileSync(path.join(dir, 'rotations.json'), 'utf8')).rotations[0];
    expect(raw).toMatchObject({ state: 'delivered', lost: ['x'] });
    expect(raw.stage).toBeUndefined();
  });
});

/** The states to pass through from `from` to `to` by the table's moves (breadth first), or undefined. */
function routeTo(table: Record<string, readonly string[]>, from: string, to: string): string[] | undefined {
  const queue: Array<{ at: string; path: string[] }> = [{ at: from, path: [] }];
  const seen = new Set([from]);
  while (queue.length > 0) {
    const { at, path } = queue.shift()!;
    if (at === to) return path;
    for (const next of table[at] ?? []) {
      if (seen.has(next)) continue;
      seen.add(next);
      queue.push({ at: next, path: [...path, next] });
    }
  }
  return undefined;
}

/** A machine of two steps over the rotation record: one effect each (a counter), then its record write. */
type Toy = { readonly id: string; readonly state: string };
function counting(effects: string[]): Machine<Toy, KitContext & { record: ReturnType<typeof rotationRecord> }, null, object, DriveMemo<object>, string> {
  return {
    name: 'toy',
    kind: 'rotate',
    memo: (mode, input) => new DriveMemo(mode, input),
    label: () => 'toy',
    async begin(ctx) {
      return ctx.record.start({ ...FROM, kind: 'consumption', old: { id: 'o', name: 'web' }, successor: { name: 'web' }, lost: [], destinations: [], targets: [] });
    },
    async next(ctx, op) {
      if (op.state === 'creating')
        return {
          step: step(
            'make',
            async () => effects.push('make'),
            () => ctx.record.update(op.id, { state: 'created' }),
          ),
        };
      if (op.state === 'created')
        return {
          step: step(
            'hand',
            async () => effects.push('hand'),
            () => ctx.record.update(op.id, { state: 'delivered' }),
          ),
        };
      return { step: step<Toy, unknown>('end', undefined, async () => (await ctx.record.remove(op.id), { ended: 'done' })) };
    },
  };
}

describe('drive', () => {
  it('performs one effect per step, then its record write; its failpoints trace each, and one armed stops it there with the record as written', async () => {
    const trace = path.join(dir, 'trace');
    const effects: string[] = [];
    const record = rotationRecord(dir);
    expect(await drive(counting(effects), { record, failpoints: failpointsFrom({ KEYDECK_FAILPOINT_TRACE: trace }) }, { plan: null }, 'run', {})).toBe('done');
    expect(readFileSync(trace, 'utf8').split('\n').filter(Boolean)).toEqual(['toy.begin:recorded#1', 'toy.make#1', 'toy.make:recorded#1', 'toy.hand#1', 'toy.hand:recorded#1', 'toy.end:recorded#1']);
    expect(effects).toEqual(['make', 'hand']);
    expect(await record.list()).toEqual([]);

    // Stopped once the second effect was done, its result not yet recorded.
    const stopped: string[] = [];
    const err = await drive(counting(stopped), { record, failpoints: failpointsFrom({ KEYDECK_FAILPOINT: 'toy.hand#1', KEYDECK_FAILPOINT_ACTION: 'halt' }) }, { plan: null }, 'run', {}).catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(OperationError);
    expect(err).toMatchObject({ code: 'crashed' });
    expect(stopped).toEqual(['make', 'hand']);
    expect((await record.list()).map((r) => r.state)).toEqual(['created']);
  });

  it('refuses to take up an operation another keydeck drives now (`in_progress`)', async () => {
    const { OperationDrivers } = await import('../../src/operations/drivers.js');
    const record = rotationRecord(dir);
    const op = await record.start({ ...FROM, kind: 'consumption', old: { id: 'o', name: 'web' }, successor: { name: 'web' }, lost: [], destinations: [], targets: [] });
    const elsewhere = new OperationDrivers(dir);
    expect(await elsewhere.take(op.id)).toBe(true);
    try {
      await expect(drive(counting([]), { record, drivers: new OperationDrivers(dir) }, { op }, 'finish', {})).rejects.toMatchObject({ code: 'in_progress' });
    } finally {
      elsewhere.releaseAll();
    }
  });

  it('keeps an operation locked until its drive settles, whatever the face lets go of meanwhile: then ended (its lock file gone) or interrupted (free to take up)', async () => {
    const { OperationDrivers, drivenElsewhere } = await import('../../src/operations/drivers.js');
    const { heldLockPath } = await import('../../src/config/heldLock.js');
    const record = rotationRecord(dir);
    /** The toy whose `make` effect waits for `gate`, and which stops awaiting the user once `created` when `stop`. */
    const slow = (gate: Promise<void>, underway: () => void, stop: boolean): ReturnType<typeof counting> => {
      const toy = counting([]);
      return {
        ...toy,
        // As every machine's begin: the new operation taken for the face.
        async begin(ctx, plan, memo) {
          const op = (await toy.begin(ctx, plan, memo)) as Toy;
          await ctx.drivers?.take(op.id);
          return op;
        },
        async next(ctx, op, memo) {
          if (op.state === 'created' && stop) return { stop: 'awaiting' };
          const next = await toy.next(ctx, op, memo);
          if (!('step' in next) || next.step.name !== 'make') return next;
          return {
            step: step(
              'make',
              async () => (underway(), await gate),
              () => ctx.record.update(op.id, { state: 'created' }),
            ),
          };
        },
      };
    };
    for (const stop of [true, false]) {
      const face = new OperationDrivers(dir);
      let open!: () => void;
      let underway!: () => void;
      const reached = new Promise<void>((r) => (underway = r));
      const driving = drive(slow(new Promise<void>((r) => (open = r)), underway, stop), { record, drivers: face }, { plan: null }, 'run', {});
      await reached;
      const [op] = await record.list();
      // The face closes while the effect is under way (a flow closed, the face stopping): the lock stays.
      face.releaseAll();
      face.release(op!.id);
      expect(await drivenElsewhere(dir, op!.id)).toBe(true);
      await expect(drive(counting([]), { record, drivers: new OperationDrivers(dir) }, { op: op! }, 'finish', {})).rejects.toMatchObject({ code: 'in_progress' });
      open();
      expect(await driving).toBe(stop ? 'awaiting' : 'done');
      expect(await drivenElsewhere(dir, op!.id)).toBe(false);
      if (stop) {
        // Stopped awaiting the user, let go: interrupted, and another keydeck takes it up.
        const other = new OperationDrivers(dir);
        expect(await drive(counting([]), { record, drivers: other }, { op: (await record.list())[0]! }, 'finish', {})).toBe('done');
      }
      expect(existsSync(heldLockPath(dir, op!.id))).toBe(false);
      expect(await record.list()).toEqual([]);
    }
  });
});
