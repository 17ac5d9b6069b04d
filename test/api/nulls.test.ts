/**
 * The tolerant reader accepts null for every optional field of every documented
 * object, as "not set" (a field whose null has a meaning, `lastUsedAt: null` "never used", keeps
 * it). For each object the pages and the seed document: every optional field set to null one at a
 * time, then all at once, in the generation's own shape (bare or enveloped); each reads, and the
 * field reads as not set. Then the commands against a local server answering the newer pages'
 * key list with nulls: every key is listed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseBody } from '../../src/api/failures.js';
import { CreatedSubscriptionKeySchema, PoolListSchema, type PoolList } from '../../src/api/poolSchemas.js';
import { readAnswer, summarizeBillingStatus, unwrapEnvelope, type AnswerRule } from '../../src/api/reader.js';
import { ConsumptionKeyListSchema, CreatedConsumptionKeySchema, CreditBalanceSchema, ManagementKeyListSchema } from '../../src/api/schemas.js';
import { KeyInfoSchema, PlanListSchema, UsageListSchema, type UsageReport } from '../../src/api/usageSchemas.js';
import { keyInfo, newer, newerKeyList, newerStatus, newerUsageAssumed, older, olderKeyList, olderStatus, plans } from './docs-examples.js';
import { json, startHostileServer, type HostileServer } from './hostile-server.js';
import { scripted, type Scripted } from '../commands/scripted.js';

const FULL_SK = `sk_${'a'.repeat(40)}`;
const wire = (value: unknown) => parseBody(JSON.stringify(value));
const clone = <T>(v: T): T => structuredClone(v);

/** Sets the field at `path` (`data.0.subscriptionStatus`) of a copy of `value` to null. */
function nulled<T>(value: T, paths: readonly string[]): T {
  const copy = clone(value) as Record<string, unknown>;
  for (const path of paths) {
    const parts = path.split('.');
    let at: Record<string, unknown> | null = copy;
    for (const p of parts.slice(0, -1)) at = at === null ? null : (at[p] as Record<string, unknown> | null);
    // A field inside one already nulled ("all at once") is gone with it.
    if (at !== null) at[parts.at(-1)!] = null;
  }
  return copy as T;
}

/** The value at `path` of `value` (undefined when a part is missing). */
function at(value: unknown, path: string): unknown {
  return path.split('.').reduce<unknown>((v, p) => (v === undefined || v === null ? undefined : (v as Record<string, unknown>)[p]), value);
}

/** Every variant: each path nulled alone, then all of them. */
function variants(paths: readonly string[]): Array<[string, string[]]> {
  return [...paths.map((p): [string, string[]] => [p, [p]]), ['all at once', [...paths]]];
}

interface Documented {
  readonly object: string;
  /** The example as the page (or the seed) shows it, completed with every optional field. */
  readonly example: unknown;
  /** Where the optional fields are, in the example. */
  readonly optional: readonly string[];
  /** Reads the example; `data` is what keydeck keeps. */
  readonly read: (body: unknown) => { ok: boolean; data?: unknown };
  /** Where a nulled field lands in `data` (default: its path with the envelope's `data.` removed). */
  readonly readPath?: (path: string) => string;
  /** Fields whose null means something, kept as null. */
  readonly meaningfulNull?: readonly string[];
  /** Fields another field stands in for when null (`creditKeyCount` from `creditKeyId`), with the value read. */
  readonly standIn?: Readonly<Record<string, (nulledPaths: readonly string[]) => unknown>>;
}

const via =
  <T>(rule: AnswerRule<T>) =>
  (body: unknown) => {
    const r = readAnswer(rule, wire(body));
    return r.ok ? { ok: true, data: r.data } : { ok: false };
  };
const unenvelope = (p: string) => p.replace(/^data\./, '');

const fullKey = { ...newerKeyList.data[0]!, apiKey: 'sk-...' };
const fullCredit = {
  id: 'clx2def...',
  name: 'client_42',
  keyPlan: 'credits',
  keyType: 'credit',
  isActive: true,
  createdAt: '2026-01-20T14:30:00.000Z',
  subscriptionStatus: 'active',
  subscriptionExpiresAt: '2026-02-15T10:00:00.000Z',
  lastUsedAt: '2026-01-20T08:00:00.000Z',
};

const DOCUMENTED: readonly Documented[] = [
  {
    object: 'a consumption key in the older list (bare)',
    example: [olderKeyList[0], { ...olderKeyList[1], subscriptionStatus: 'active', subscriptionExpiresAt: '2026-02-15T10:00:00.000Z' }],
    optional: ['0.subscriptionStatus', '0.subscriptionExpiresAt', '1.subscriptionStatus', '1.subscriptionExpiresAt'],
    read: via({ schema: ConsumptionKeyListSchema }),
  },
  {
    object: 'a consumption key in the newer list (enveloped, apiKey, subscriptionId, lastUsedAt)',
    example: { success: true, data: [fullKey, fullCredit] },
    optional: [
      'data.0.subscriptionStatus',
      'data.0.subscriptionExpiresAt',
      'data.0.lastUsedAt',
      'data.0.apiKey',
      'data.0.subscriptionId',
      'data.1.subscriptionStatus',
      'data.1.subscriptionExpiresAt',
      'data.1.lastUsedAt',
    ],
    read: via({ schema: ConsumptionKeyListSchema }),
    readPath: unenvelope,
    meaningfulNull: ['lastUsedAt', 'subscriptionId', 'apiKey'],
  },
  {
    object: 'the created credit key (the keys endpoint)',
    example: { id: 'k1', name: 'ci', keyType: 'credit', keyPlan: 'credits', apiKey: FULL_SK, isActive: true, createdAt: '2026-01-20T14:30:00.000Z' },
    optional: ['keyPlan'],
    read: via({ schema: CreatedConsumptionKeySchema, creates: true }),
  },
  {
    object: 'the created subscription key (Per-Key Plans page)',
    example: {
      id: 'k2',
      name: 'prod',
      keyType: 'subscription',
      keyPlan: 'pool',
      apiKey: FULL_SK,
      isActive: true,
      subscriptionId: 'pledge_uuid',
      subscriptionExpiresAt: '2026-05-23T15:55:16.220Z',
      createdAt: '2026-01-20T14:30:00.000Z',
    },
    optional: ['name', 'keyType', 'keyPlan', 'isActive', 'subscriptionId', 'subscriptionExpiresAt', 'createdAt'],
    read: via({ schema: CreatedSubscriptionKeySchema, creates: true }),
  },
  {
    object: 'a management key (its fields)',
    example: [{ id: 'm1', name: 'laptop', keyPrefix: 'mk_abcdefgh', isActive: true, lastUsedAt: '2026-01-20T08:00:00.000Z', createdAt: '2026-01-15T10:00:00.000Z' }],
    optional: ['0.lastUsedAt'],
    read: via({ schema: ManagementKeyListSchema }),
    meaningfulNull: ['lastUsedAt'],
  },
  {
    object: 'the older credit balance (creditKeyId)',
    example: older.credits,
    optional: ['creditKeyId'],
    read: via({ schema: CreditBalanceSchema }),
    meaningfulNull: ['creditKeyId'],
  },
  {
    object: 'the newer credit balance (creditKeyCount, userId; enveloped)',
    example: { success: true, data: { ...newer.credits.data, creditKeyId: 'clx3ghi...' } },
    optional: ['data.creditKeyCount', 'data.userId', 'data.creditKeyId'],
    read: via({ schema: CreditBalanceSchema }),
    readPath: unenvelope,
    meaningfulNull: ['userId', 'creditKeyId'],
    // A null creditKeyCount is read as not sent: the older pages' creditKeyId stands in for it.
    standIn: { creditKeyCount: (paths) => (paths.includes('data.creditKeyId') ? 0 : 1) },
  },
  {
    object: 'GET /v1/usage (the usage pages)',
    example: keyInfo,
    optional: [
      'budget',
      'budget.spent',
      'budget.limit',
      'budget.duration',
      'budget.resets_at',
      'rate_limits',
      'rate_limits.rpm',
      'rate_limits.tpm',
      'plan',
      'plan.slug',
      'plan.status',
      'plan.expires_at',
      'credits',
      'credits.balance',
      'key',
      'key.name',
      'key.type',
      'key.created_at',
    ],
    read: via({ schema: KeyInfoSchema }),
    meaningfulNull: [
      'budget',
      'budget.limit',
      'budget.duration',
      'budget.resets_at',
      'rate_limits',
      'rate_limits.rpm',
      'rate_limits.tpm',
      'plan',
      'plan.slug',
      'plan.status',
      'plan.expires_at',
      'credits',
      'credits.balance',
      'key',
      'key.created_at',
    ],
  },
  {
    object: 'GET /api/plans (the older usage page)',
    example: [{ ...plans[0], priceUsd: '20', price: 20 }],
    optional: ['0.name', '0.priceUsdc', '0.priceUsd', '0.price', '0.rateLimits', '0.rateLimits.rpm_limit', '0.rateLimits.tpm_limit'],
    read: via({ schema: PlanListSchema }),
    meaningfulNull: ['rateLimits', 'rpm_limit', 'tpm_limit'],
    // keydeck's priceUsd is the first of priceUsdc, priceUsd, price the plan gives.
    standIn: { '0.priceUsd': (paths) => (paths.includes('0.priceUsdc') ? undefined : 20) },
  },
];

describe('null is "not set" in every optional field of every documented object', () => {
  for (const doc of DOCUMENTED) {
    describe(doc.object, () => {
      it('reads the example as it is', () => {
        expect(doc.read(doc.example).ok).toBe(true);
      });
      it.each(variants(doc.optional))('%s set to null', (_label, paths) => {
        const r = doc.read(nulled(doc.example, paths));
        expect(r.ok, JSON.stringify(nulled(doc.example, paths))).toBe(true);
        for (const path of paths) {
          const read = at(r.data, (doc.readPath ?? ((p) => p))(path));
          const matches = (m: string) => path === m || path.endsWith(`.${m}`);
          const keepsNull = doc.meaningfulNull?.some(matches) ?? false;
          const standIn = Object.entries(doc.standIn ?? {}).find(([m]) => matches(m));
          // Not set: left out (or, where null means something, kept as null; or read from the
          // field the pages give in its place); never a value made up.
          if (standIn) expect(read).toEqual(standIn[1](paths));
          else if (keepsNull) expect([null, undefined]).toContain(read);
          else expect(read).toBeUndefined();
        }
      });
    });
  }

  it('the newer credit balance: a null creditKeyCount with creditKeyId stands in as on the older page', () => {
    const r = readAnswer({ schema: CreditBalanceSchema }, wire({ success: true, data: { ...newer.credits.data, creditKeyCount: null, creditKeyId: 'k' } }));
    expect(r.ok && r.data.creditKeyCount).toBe(1);
  });

  describe('GET /api/usage (the newer page, completed as keydeck assumes)', () => {
    const optional = [
      'data.0.keyType',
      'data.0.keyPlan',
      'data.0.isActive',
      'data.0.usage',
      'data.0.usage.24h',
      'data.0.usage.7d.requests',
      'data.0.usage.30d.tokens',
      'data.0.subscription',
      'data.0.subscription.status',
      'data.0.subscription.expiresAt',
      'data.1.usage.total',
    ];
    it.each(variants(optional))('%s set to null', (_label, paths) => {
      const r = readAnswer({ schema: UsageListSchema }, wire(nulled(newerUsageAssumed, paths)));
      expect(r.ok).toBe(true);
      const report = (r as { data: UsageReport }).data;
      expect(report.keys.map((k) => k.id)).toEqual(['key-uuid', 'key-uuid-2']);
      if (paths.includes('data.0.keyType')) expect(report.keys[0]!.keyType).toBeUndefined();
      if (paths.includes('data.0.usage.24h')) expect(report.keys[0]!.periods['24h']).toBeUndefined();
    });
  });

  describe('GET /api/pools (the Unlimited Subscriptions page)', () => {
    const pool = {
      id: 'pool_uuid',
      slug: 'minimax-m3',
      modelId: 'MiniMax-M3',
      modelName: 'MiniMax M3',
      description: 'Dedicated',
      infraSpec: '8× H100',
      status: 'active',
      totalSlots: 10,
      pledgedSlots: 2,
      minPricePerDay: '39.00',
      manualProvisioning: false,
      annualDiscount: 0.15,
    };
    const optional = [
      'data.0.modelId',
      'data.0.modelName',
      'data.0.description',
      'data.0.infraSpec',
      'data.0.status',
      'data.0.totalSlots',
      'data.0.pledgedSlots',
      'data.0.minPricePerDay',
      'data.0.manualProvisioning',
      'data.0.annualDiscount',
    ];
    it.each(variants(optional))('%s set to null', (_label, paths) => {
      const r = readAnswer({ schema: PoolListSchema }, wire(nulled({ success: true, data: [pool] }, paths)));
      const list = (r as { data: PoolList }).data;
      expect(list.unread).toEqual([]);
      expect(list.pools[0]!.problems).toEqual([]);
    });
  });

  describe('GET /api/billing/status (both pages)', () => {
    const olderOptional = [
      'subscriptions.0.id',
      'subscriptions.0.planSlug',
      'subscriptions.0.status',
      'subscriptions.0.currentPeriodEnd',
      'subscriptions.0.cancelAtPeriodEnd',
      'subscriptions.0.keyCount',
      'subscriptions.0.keys',
      'creditBalance',
      'legacySubscriptionKeys',
    ];
    const newerOptional = [
      'data.subscriptions',
      'data.poolPledges.0.poolId',
      'data.poolPledges.0.poolSlug',
      'data.poolPledges.0.status',
      'data.poolPledges.0.currentPeriodEnd',
      'data.poolPledges.0.cancelAtPeriodEnd',
      'data.poolPledges.0.hasKey',
      'data.plan',
      'data.status',
      'data.creditBalance',
      'data.stripeCustomerId',
      'data.subscriptionExpiresAt',
    ];
    it.each([...variants(olderOptional).map(([l, p]) => [`older: ${l}`, olderStatus, p] as const), ...variants(newerOptional).map(([l, p]) => [`newer: ${l}`, newerStatus, p] as const)])(
      '%s set to null: summarised, not shown as a tree',
      (_label, status, paths) => {
        const summary = summarizeBillingStatus(unwrapEnvelope(nulled(status, paths)).value);
        expect(summary).toBeDefined();
        expect(summary!.subscriptions.length + summary!.poolPledges.length).toBeGreaterThan(0);
      },
    );
  });
});

describe('the commands against a service whose list has nulls', { timeout: 60_000 }, () => {
  let server: HostileServer;
  let cli: Scripted;
  beforeAll(async () => {
    server = await startHostileServer((req, res) => {
      if (req.path === '/api/keys')
        return json(res, 200, {
          success: true,
          data: [nulled(fullKey, ['subscriptionStatus', 'subscriptionExpiresAt', 'lastUsedAt']), nulled(fullCredit, ['subscriptionStatus', 'subscriptionExpiresAt'])],
        });
      return json(res, 404, { error: 'not found' });
    });
    cli = scripted(server.url);
  });
  afterAll(async () => {
    cli?.home.remove();
    await server?.close();
  });

  it('keys list lists every key (the table and --json)', async () => {
    const table = await cli.run('session-token', ['keys', 'list']);
    expect(table.code, table.stderr).toBe(0);
    expect(table.stdout).toContain('prod-key');
    expect(table.stdout).toContain('client_42');
    const listed = await cli.run('session-token', ['keys', 'list', '--json']);
    expect(listed.code, listed.stderr).toBe(0);
    expect((JSON.parse(listed.stdout) as Array<{ id: string }>).map((k) => k.id)).toEqual(['clx1abc...', 'clx2def...']);
  });
});
