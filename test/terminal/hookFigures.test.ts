/**
 * The figures a hook gets in its environment are cut to the cent like every amount keydeck writes
 * (src/api/money.ts `centsText`): a balance of 24.999 USD is `24.99`, never rounded up to a
 * balance the account does not have (`toFixed(2)` gave `25.00`).
 */
import { describe, expect, it } from 'vitest';
import { onAutoTopUpEnvironment, onLowEnvironment } from '../../src/terminal/notify.js';

describe('a hook’s figures', () => {
  it('--on-low: the remaining balance, the threshold and the total of top-ups, cut to the cent', () => {
    const env = onLowEnvironment({ kind: 'low_balance', remaining: 24.999, threshold: 4.995, totalTopUp: 100.009 }, 'default', 'https://api.example.com', {});
    expect([env.KEYDECK_REMAINING_USD, env.KEYDECK_THRESHOLD_USD, env.KEYDECK_TOTAL_TOP_UP_USD]).toEqual(['24.99', '4.99', '100.00']);
  });

  it('--on-auto-topup: the amount and the balance after it, cut to the cent', () => {
    const env = onAutoTopUpEnvironment({ kind: 'auto_top_up', outcome: 'credited', amount: 25, remaining: 29.999 }, 'default', 'https://api.example.com', {});
    expect([env.KEYDECK_AUTOTOPUP_AMOUNT_USD, env.KEYDECK_REMAINING_USD]).toEqual(['25.00', '29.99']);
  });
});
