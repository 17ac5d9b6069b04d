/**
 * The demo user: created on a database's first start with an account a first run can
 * show, as if it had been used for three weeks, and the same session token on every later start
 * with the same database (kept in `meta`). What `npm start` shows and what the README's screens
 * are captured from (scripts/screens.mjs):
 *
 * - top-ups: $25 (21 days ago) and $100 (16 days ago), USDC on Base, verified;
 * - credit keys: `prod-backend` (15 days old), `staging` (8 days, deactivated yesterday),
 *   `batch-jobs` (3 days), with spend two days ago and over the last 24 hours ($40.80 in all, so
 *   $84.20 remains);
 * - subscription keys: `Standard subscription (europe)` (21 days old, 9 days left) and
 *   `Pro subscription (asia, americas)` (6 days old);
 * - management keys: `ci-deploy` (used two hours ago) and `old-laptop` (never used);
 * - a pool pledge without its key (`kimi26`, all three blocks), so minting one can be tried.
 *
 * Everything is made through the stores as the routes make it, then dated back in one transaction.
 */
import type { SandboxContext } from './context.js';
import { transaction } from './db.js';
import { centsUsdToMicros } from './money.js';
import { SANDBOX_POOLS } from './pools.js';

const DEMO_TOKEN = 'demo_session_token';
const DEMO_USER = 'demo_user_id';
const DEMO_PLEDGE = 'demo_pool_pledge_id';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

/** The demo account's top-ups, USD, oldest first. */
export const DEMO_TOP_UPS_USD = [25, 100] as const;

/** A charge of the demo's history: `times` requests of `usd` each to `key`, the first `ago` ms before now, then one an hour. */
interface DemoCharge {
  readonly key: 'prod-backend' | 'staging' | 'batch-jobs';
  readonly usd: number;
  readonly times: number;
  readonly ago: number;
}

const CHARGES: readonly DemoCharge[] = [
  { key: 'prod-backend', usd: 4.5, times: 6, ago: 2 * DAY },
  { key: 'staging', usd: 1.25, times: 2, ago: 2 * DAY },
  { key: 'batch-jobs', usd: 2.2, times: 3, ago: 2 * DAY },
  { key: 'prod-backend', usd: 0.4, times: 8, ago: 20 * HOUR },
  { key: 'batch-jobs', usd: 0.3, times: 5, ago: 9 * HOUR },
];

/**
 * Returns the demo user's session token, creating the demo account first when there is none. A
 * database whose demo account predates the pledge gets it once (as one made by an older keydeck).
 */
export function ensureDemoUser(ctx: SandboxContext): string {
  const token = ctx.meta.get(DEMO_TOKEN) ?? createDemoAccount(ctx);
  if (ctx.meta.get(DEMO_PLEDGE) === undefined) {
    const userId = ctx.meta.get(DEMO_USER);
    const pool = SANDBOX_POOLS[0];
    if (userId !== undefined && pool !== undefined) {
      transaction(ctx.db, () => {
        const pledge = ctx.pools.pledge(userId, pool, ['asia', 'europe', 'americas'], ctx.clock.now());
        ctx.meta.set(DEMO_PLEDGE, pledge.id);
      });
    }
  }
  return token;
}

function createDemoAccount(ctx: SandboxContext): string {
  const { db } = ctx;
  const now = ctx.clock.now();
  const at = (table: string, column: string, id: string, values: Record<string, number | null>) => {
    const sets = Object.keys(values).map((c) => `${c} = ?`);
    db.prepare(`UPDATE ${table} SET ${sets.join(', ')} WHERE ${column} = ?`).run(...Object.values(values), id);
  };
  return transaction(db, () => {
    const { userId, token } = ctx.users.create(now);
    at('users', 'id', userId, { created_at: now - 21 * DAY });
    db.prepare('UPDATE sessions SET created_at = ? WHERE user_id = ?').run(now - 21 * DAY, userId);

    // Two verified USDC top-ups.
    for (const [usd, ago] of [
      [DEMO_TOP_UPS_USD[0], 21 * DAY],
      [DEMO_TOP_UPS_USD[1], 16 * DAY],
    ] as const) {
      const micros = centsUsdToMicros(usd);
      const { address } = ctx.ledger.usdcInstruction(userId, micros);
      const txHash = ctx.ledger.recordTransfer(address, micros);
      ctx.ledger.verifyUsdc(userId, txHash, micros);
      at('deposit_addresses', 'address', address, { created_at: now - ago - 10 * 60_000 });
      at('chain_transfers', 'tx_hash', txHash, { created_at: now - ago - 5 * 60_000 });
      at('topups', 'reference', txHash, { created_at: now - ago, completed_at: now - ago });
    }

    // Consumption keys, oldest first (the list keeps creation order).
    const created = (id: string, ago: number, expires?: number) =>
      at('consumption_keys', 'id', id, { created_at: now - ago, ...(expires !== undefined && { subscription_expires_at: now - ago + expires }) });
    const period = 30 * DAY;
    created(ctx.keys.createSubscription(userId, 'standard', ['europe'], 'Standard subscription (europe)', now).row.id, 21 * DAY, period);
    const credit: Record<DemoCharge['key'], string> = {
      'prod-backend': ctx.keys.createCredit(userId, 'prod-backend', now).row.id,
      staging: ctx.keys.createCredit(userId, 'staging', now).row.id,
      'batch-jobs': '',
    };
    created(credit['prod-backend'], 15 * DAY);
    created(credit.staging, 8 * DAY);
    created(ctx.keys.createSubscription(userId, 'pro', ['asia', 'americas'], 'Pro subscription (asia, americas)', now).row.id, 6 * DAY, period);
    credit['batch-jobs'] = ctx.keys.createCredit(userId, 'batch-jobs', now).row.id;
    created(credit['batch-jobs'], 3 * DAY);

    // Their spend, charged as requests are, at the hours they happened.
    for (const charge of CHARGES) {
      for (let i = 0; i < charge.times; i++) {
        const micros = centsUsdToMicros(charge.usd);
        ctx.ledger.charge(userId, credit[charge.key], micros);
        ctx.usage.record(userId, credit[charge.key], now - charge.ago + i * HOUR, micros, 1_200);
      }
    }
    ctx.keys.updateConsumption(userId, credit.staging, { isActive: false });
    // Each key was last used at its last charge (`lastUsedAt`): the others never.
    db.prepare('UPDATE consumption_keys SET last_used_at = (SELECT MAX(t) FROM usage_events WHERE usage_events.key_id = consumption_keys.id) WHERE user_id = ?').run(userId);

    // Management keys (the one keydeck makes at setup comes on top).
    const ci = ctx.keys.createManagement(userId, 'ci-deploy', now).row.id;
    at('management_keys', 'id', ci, { created_at: now - 11 * DAY, last_used_at: now - 2 * HOUR });
    at('management_keys', 'id', ctx.keys.createManagement(userId, 'old-laptop', now).row.id, { created_at: now - 10 * DAY });

    ctx.meta.set(DEMO_USER, userId);
    ctx.meta.set(DEMO_TOKEN, token);
    return token;
  });
}
