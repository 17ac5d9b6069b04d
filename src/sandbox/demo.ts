/**
 * The demo user: created on a database's first start with data a first run can show (a $25
 * balance from a verified simulated USDC top-up, one active standard subscription key), and the
 * same session token on every later start with the same database (kept in `meta`).
 */
import type { SandboxContext } from './context.js';
import { transaction } from './db.js';
import { centsUsdToMicros } from './money.js';
import { SANDBOX_POOLS } from './pools.js';

const DEMO_TOKEN = 'demo_session_token';
const DEMO_USER = 'demo_user_id';
const DEMO_PLEDGE = 'demo_pool_pledge_id';

/** The demo user's starting top-up, USD. */
export const DEMO_TOP_UP_USD = 25;

/**
 * Returns the demo user's session token, creating the demo user first when there is none. In the
 * docs-v2 dialect the demo user also holds one pool pledge without a key (`kimi26`, all three
 * blocks: usable around the clock once its key is minted), made once per database.
 */
export function ensureDemoUser(ctx: SandboxContext): string {
  const token = ensureDemoAccount(ctx);
  if (ctx.dialect === 'docs-v2' && ctx.meta.get(DEMO_PLEDGE) === undefined) {
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

function ensureDemoAccount(ctx: SandboxContext): string {
  const existing = ctx.meta.get(DEMO_TOKEN);
  if (existing) return existing;
  return transaction(ctx.db, () => {
    const now = ctx.clock.now();
    const { userId, token } = ctx.users.create(now);
    const micros = centsUsdToMicros(DEMO_TOP_UP_USD);
    const { address } = ctx.ledger.usdcInstruction(userId, micros);
    const txHash = ctx.ledger.recordTransfer(address, micros);
    ctx.ledger.verifyUsdc(userId, txHash, micros);
    ctx.keys.createSubscription(userId, 'standard', ['europe'], 'Standard subscription (europe)', now);
    ctx.meta.set(DEMO_USER, userId);
    ctx.meta.set(DEMO_TOKEN, token);
    return token;
  });
}
