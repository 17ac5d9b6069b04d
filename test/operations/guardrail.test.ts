/**
 * The guardrail machine (src/operations/guardrail.ts) and its pass (guardrailPass.ts) against the
 * sandbox, in process: a budget at its limit says each threshold once and disables the key once,
 * whatever passes follow (each a fresh context, as another process would be); a person's enable
 * wins until the period ends; the next period re-enables the key; `rotate` rotates to the key's
 * destinations, or disables it when keydeck knows none; `expiresIn` disables for good.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KeydeckClient } from '../../src/api/client.js';
import type { UsageReport } from '../../src/api/usageSchemas.js';
import type { KeyRule } from '../../src/config/guardrailRules.js';
import { parseFileDestination } from '../../src/delivery/destinations.js';
import { DeliveryRecord } from '../../src/delivery/deliveryRecord.js';
import type { GuardrailNotice } from '../../src/operations/events.js';
import { guardrailContext } from '../../src/operations/guardrail.js';
import { guardrailRecord } from '../../src/operations/guardrailRecord.js';
import { guardrailDecisions, runGuardrailPass, type GuardrailFigures } from '../../src/operations/guardrailPass.js';
import { OperationDrivers } from '../../src/operations/drivers.js';
import { rotationContext } from '../../src/operations/rotateKey.js';
import { startTestSandbox, type TestSandbox } from '../sandbox/helpers.js';

let sb: TestSandbox;
let root: string;
beforeAll(async () => {
  sb = await startTestSandbox();
  root = mkdtempSync(path.join(tmpdir(), 'keydeck-guardrail-'));
});
afterAll(async () => {
  await sb.close();
  rmSync(root, { recursive: true, force: true });
});

const DAY = 86_400_000;

/** A world: a funded user, its client, a data dir, and the notices told. */
async function world() {
  const token = await sb.fundedUser(50);
  const dataDir = mkdtempSync(path.join(root, 'data-'));
  const client = new KeydeckClient({ baseUrl: sb.url, token });
  const origin = new URL(sb.url).origin;
  const told: GuardrailNotice[] = [];
  /** A context as a new keydeck process has one. */
  const ctx = (extra: { rotation?: boolean } = {}) => {
    const drivers = new OperationDrivers(dataDir);
    return guardrailContext({
      dataDir,
      client,
      profile: 'p',
      origin,
      drivers,
      tell: async (n) => void told.push(n),
      ...(extra.rotation && { rotation: rotationContext({ dataDir, client, delivery: { lockDir: dataDir }, deliveries: new DeliveryRecord(dataDir), drivers, profile: 'p', origin }) }),
    });
  };
  return { token, dataDir, client, origin, told, ctx };
}

/** The figures of a pass at `now`: each key's spend over 24 h and in all (USD), as one usage read at `now`. */
async function figures(client: KeydeckClient, rules: KeyRule[], spent: Record<string, number>, now: number): Promise<GuardrailFigures> {
  const keys = await client.keys.list();
  const report: UsageReport = {
    keys: keys.map((k) => ({ id: k.id, name: k.name, periods: { '24h': { spend: spent[k.name] ?? 0 }, total: { spend: spent[k.name] ?? 0 } } })),
    periods: ['24h', 'total'],
    raw: {},
  };
  return { rules, keys, report, at: now, samplesOf: () => [], now };
}

const said = (told: readonly GuardrailNotice[]) => told.map((n) => `${n.key.name} ${n.what}${n.threshold !== undefined ? ` ${n.threshold}` : ''}`);

describe('a budget that disables', () => {
  const rules: KeyRule[] = [{ match: '*', budget: { limitUsd: 5, period: 'day', action: 'disable' } }];

  it('says each threshold once, disables the key once, and re-enables it when the next period begins', async () => {
    const w = await world();
    const key = await sb.creditKey(w.token, 'web');
    const now = Date.parse('2026-05-10T10:00:00Z');
    const first = await runGuardrailPass(w.ctx(), await figures(w.client, rules, { web: 6 }, now));
    expect(first.failed).toEqual([]);
    expect(said(w.told)).toEqual(['web threshold 0.8', 'web threshold 0.95', 'web disabled']);
    expect(w.told.at(-1)).toMatchObject({ limitUsd: 5, spentUsd: 6, period: 'day', until: '2026-05-11T00:00:00.000Z' });
    expect((await w.client.keys.list()).find((k) => k.id === key.id)?.isActive).toBe(false);
    // Later passes of the same day, each as a new process, and more spend: nothing more is said or done.
    await runGuardrailPass(w.ctx(), await figures(w.client, rules, { web: 7 }, now + 3_600_000));
    await runGuardrailPass(w.ctx(), await figures(w.client, rules, { web: 7 }, now + 7_200_000));
    expect(w.told).toHaveLength(3);
    // The next day: re-enabled once, said once; the record is left empty.
    const tomorrow = Date.parse('2026-05-11T00:01:00Z');
    await runGuardrailPass(w.ctx(), await figures(w.client, rules, { web: 0 }, tomorrow));
    await runGuardrailPass(w.ctx(), await figures(w.client, rules, { web: 0 }, tomorrow + 60_000));
    expect(said(w.told).slice(3)).toEqual(['web enabled']);
    expect((await w.client.keys.list()).find((k) => k.id === key.id)?.isActive).toBe(true);
    expect(await guardrailRecord(w.dataDir).list()).toEqual([]);
  });

  it('leaves a key a person enabled again alone until the period ends', async () => {
    const w = await world();
    const key = await sb.creditKey(w.token, 'web');
    const now = Date.parse('2026-05-10T10:00:00Z');
    await runGuardrailPass(w.ctx(), await figures(w.client, rules, { web: 6 }, now));
    await w.client.keys.update(key.id, { isActive: true });
    await runGuardrailPass(w.ctx(), await figures(w.client, rules, { web: 8 }, now + 3_600_000));
    await runGuardrailPass(w.ctx(), await figures(w.client, rules, { web: 9 }, now + 7_200_000));
    expect(said(w.told)).toEqual(['web threshold 0.8', 'web threshold 0.95', 'web disabled', 'web overridden']);
    expect((await w.client.keys.list()).find((k) => k.id === key.id)?.isActive).toBe(true);
    const [entry] = await guardrailRecord(w.dataDir).list();
    expect(entry).toMatchObject({ state: 'overridden', keyId: key.id });
    // The next period forgets it: the key is judged afresh.
    await runGuardrailPass(w.ctx(), await figures(w.client, rules, { web: 0 }, Date.parse('2026-05-11T00:01:00Z')));
    expect(await guardrailRecord(w.dataDir).list()).toEqual([]);
  });

  it('forgets a key deleted while disabled: no change is planned, its entry ends', async () => {
    const w = await world();
    const key = await sb.creditKey(w.token, 'web');
    const now = Date.parse('2026-05-10T10:00:00Z');
    await runGuardrailPass(w.ctx(), await figures(w.client, rules, { web: 6 }, now));
    await w.client.keys.delete(key.id);
    const later = await figures(w.client, rules, {}, Date.parse('2026-05-11T00:01:00Z'));
    const decisions = guardrailDecisions(later, await guardrailRecord(w.dataDir).list(), { profile: 'p', origin: w.origin });
    expect(decisions.map((d) => [d.key.id, d.change, d.says])).toEqual([[key.id, undefined, []]]);
    await runGuardrailPass(w.ctx(), later);
    expect(await guardrailRecord(w.dataDir).list()).toEqual([]);
    expect(said(w.told)).toEqual(['web threshold 0.8', 'web threshold 0.95', 'web disabled']);
  });

  it('with reenable: false, keeps the key disabled when the period ends', async () => {
    const w = await world();
    const key = await sb.creditKey(w.token, 'web');
    const keep: KeyRule[] = [{ name: 'web', budget: { limitUsd: 5, period: 'week', action: 'disable', reenable: false } }];
    await runGuardrailPass(w.ctx(), await figures(w.client, keep, { web: 6 }, Date.parse('2026-05-10T10:00:00Z')));
    await runGuardrailPass(w.ctx(), await figures(w.client, keep, { web: 0 }, Date.parse('2026-05-12T10:00:00Z')));
    expect(said(w.told)).toEqual(['web threshold 0.8', 'web threshold 0.95', 'web disabled']);
    expect((await w.client.keys.list()).find((k) => k.id === key.id)?.isActive).toBe(false);
  });
});

describe('a budget that rotates', () => {
  const rules: KeyRule[] = [{ name: 'web', budget: { limitUsd: 5, period: 'day', action: 'rotate', thresholds: [] } }];

  it('rotates the key to its destinations: the successor in the file, the old key deactivated', async () => {
    const w = await world();
    const old = await sb.creditKey(w.token, 'web');
    const env = path.join(w.dataDir, '..', `${path.basename(w.dataDir)}.env`);
    writeFileSync(env, `KEY=${old.apiKey}\n`, { mode: 0o600 });
    const to = [parseFileDestination(`${env}:KEY`)];
    const now = Date.parse('2026-05-10T10:00:00Z');
    const pass = await runGuardrailPass(w.ctx({ rotation: true }), await figures(w.client, rules, { web: 6 }, now), async () => to);
    expect(pass.failed).toEqual([]);
    expect(said(w.told)).toEqual(['web rotated']);
    const keys = await w.client.keys.list();
    expect(keys.find((k) => k.id === old.id)).toMatchObject({ isActive: false, name: expect.stringMatching(/^web \(rotated /) });
    const successor = keys.find((k) => k.name === 'web' && k.isActive)!;
    expect(successor.id).not.toBe(old.id);
    expect(readFileSync(env, 'utf8')).not.toContain(old.apiKey);
    expect(readFileSync(env, 'utf8')).toMatch(/^KEY=sk_/);
    expect(await guardrailRecord(w.dataDir).list()).toEqual([]);
  });

  it('disables the key instead when keydeck knows no destination for a successor', async () => {
    const w = await world();
    const old = await sb.creditKey(w.token, 'web');
    await runGuardrailPass(w.ctx({ rotation: true }), await figures(w.client, rules, { web: 6 }, Date.parse('2026-05-10T10:00:00Z')), async () => []);
    expect(said(w.told)).toEqual(['web no_destination', 'web disabled']);
    expect((await w.client.keys.list()).filter((k) => k.name.startsWith('web')).map((k) => [k.id, k.isActive])).toEqual([[old.id, false]]);
  });
});

describe('keys by rule', () => {
  it('warns before expiresIn passes, then disables the key for good', async () => {
    const w = await world();
    const key = await sb.creditKey(w.token, 'tmp');
    const created = Date.parse((await w.client.keys.list()).find((k) => k.id === key.id)!.createdAt);
    const rules: KeyRule[] = [{ name: 'tmp', expiresInSeconds: 10 * 86_400, warnBeforeSeconds: 2 * 86_400 }];
    await runGuardrailPass(w.ctx(), await figures(w.client, rules, {}, created + 5 * DAY));
    expect(w.told).toEqual([]);
    await runGuardrailPass(w.ctx(), await figures(w.client, rules, {}, created + 9 * DAY));
    await runGuardrailPass(w.ctx(), await figures(w.client, rules, {}, created + 9 * DAY + 60_000));
    expect(said(w.told)).toEqual(['tmp warning']);
    await runGuardrailPass(w.ctx(), await figures(w.client, rules, {}, created + 11 * DAY));
    await runGuardrailPass(w.ctx(), await figures(w.client, rules, {}, created + 40 * DAY));
    expect(said(w.told)).toEqual(['tmp warning', 'tmp disabled']);
    expect((await w.client.keys.list()).find((k) => k.id === key.id)?.isActive).toBe(false);
  });

  it('flags a key past maxAge that is to be flagged, and changes nothing', async () => {
    const w = await world();
    const key = await sb.creditKey(w.token, 'old');
    const created = Date.parse((await w.client.keys.list()).find((k) => k.id === key.id)!.createdAt);
    const rules: KeyRule[] = [{ name: 'old', maxAgeSeconds: 30 * 86_400, onMaxAge: 'flag' }];
    await runGuardrailPass(w.ctx(), await figures(w.client, rules, {}, created + 31 * DAY));
    await runGuardrailPass(w.ctx(), await figures(w.client, rules, {}, created + 32 * DAY));
    expect(said(w.told)).toEqual(['old flagged']);
    expect((await w.client.keys.list()).find((k) => k.id === key.id)?.isActive).toBe(true);
  });
});
