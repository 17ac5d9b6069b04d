/**
 * The Billing pane's and the top-up walk-through's rows of the key-action table (keymap.ts).
 * The pane binds its rows (scope `billing`) non-modally; each step of the walk-through binds its
 * own rows (scope `topup`) modally, so while a step is open only its keys work and the hint bar
 * shows exactly the keys of the step on screen. keymap.ts spreads these rows into `KEY_ACTIONS`.
 */
import type { KeyActionDef } from '../../keyActionTypes.js';

/** Every billing and top-up binding. */
export const BILLING_KEY_ACTIONS: readonly KeyActionDef[] = [
  // The pane.
  { id: 'billing.topup', keys: ['t'], label: 'top up', help: 'start a top-up: USDC on Base, card checkout or card direct', scope: 'billing' },
  { id: 'billing.resume', keys: ['enter'], label: 'resume top-up', help: 'reopen the unfinished top-up (the selected one, else the newest)', scope: 'billing' },
  { id: 'billing.status', keys: ['s'], label: 'status', help: 'show or hide the billing status (GET /api/billing/status) as a tree', scope: 'billing' },
  { id: 'billing.refresh', keys: ['r'], label: 'refresh', help: 'read the balance (and the status, when shown) now', scope: 'billing' },
  { id: 'billing.down', keys: ['j', 'down'], label: 'move', help: 'move in the recent top-ups, or scroll the status', scope: 'billing' },
  { id: 'billing.up', keys: ['k', 'up'], label: 'up', scope: 'billing', hint: false },
  { id: 'billing.window', keys: ['w'], label: 'chart window', help: 'cycle the balance chart’s window: 1h, 6h, 24h, 7d, 30d', scope: 'billing', hint: false },
  {
    id: 'billing.cancel',
    keys: ['c'],
    label: 'cancel renewal',
    help: 'in the status view: cancel the renewal of a subscription or pool pledge (asks first; it stays active until its period ends)',
    scope: 'billing',
    dangerous: true,
  },
  { id: 'billing.pools', keys: ['p'], label: 'pools', help: 'the service’s pools (pool subscriptions) and one pool’s blocks and free seats, read-only', scope: 'billing' },

  // The pools view (p).
  { id: 'pools.down', keys: ['j', 'down'], label: 'move', scope: 'pools' },
  { id: 'pools.up', keys: ['k', 'up'], label: 'up', scope: 'pools', hint: false },
  { id: 'pools.open', keys: ['enter'], label: 'open', help: 'show the pool’s blocks (UTC hours, free seats, prices) and free seats hour by hour', scope: 'pools' },
  {
    id: 'pools.cancel',
    keys: ['c'],
    label: 'cancel renewal',
    help: 'cancel the renewal of your pledge in the selected pool (asks first; it stays active until its period ends)',
    scope: 'pools',
    dangerous: true,
  },
  { id: 'pools.reload', keys: ['r'], label: 'reload', help: 'read the pools (or the pool) again', scope: 'pools' },
  { id: 'pools.back', keys: ['esc'], label: 'back', help: 'back to the list, then to the Billing pane', scope: 'pools' },

  // Walk-through: amount (a text field has the keyboard).
  { id: 'topup.submit', keys: ['enter'], label: 'continue', scope: 'topup' },
  { id: 'topup.cancel', keys: ['esc'], label: 'cancel', help: 'cancel the top-up (nothing was requested yet)', scope: 'topup' },

  // Walk-through: method.
  { id: 'topup.methodDown', keys: ['j', 'down', 'tab'], label: 'move', scope: 'topup' },
  { id: 'topup.methodUp', keys: ['k', 'up', 'shift-tab'], label: 'up', scope: 'topup', hint: false },
  // Letters select (never digits, which switch panes elsewhere); only enter goes on.
  { id: 'topup.methodUsdc', keys: ['u'], label: 'USDC', help: 'select USDC on Base (enter goes on)', scope: 'topup', hint: false },
  { id: 'topup.methodCheckout', keys: ['c'], label: 'card checkout', help: 'select the card processor’s hosted page (enter goes on)', scope: 'topup', hint: false },
  { id: 'topup.methodDirect', keys: ['d'], label: 'card direct', help: 'select a charge of the card on file (enter asks to confirm)', scope: 'topup', hint: false },
  { id: 'topup.choose', keys: ['enter'], label: 'choose', scope: 'topup' },
  { id: 'topup.back', keys: ['esc'], label: 'back', scope: 'topup' },

  // Walk-through: card checkout.
  { id: 'topup.open', keys: ['o'], label: 'open', help: 'open the checkout page in the browser', scope: 'topup' },
  { id: 'topup.copyUrl', keys: ['c'], label: 'copy link', help: 'copy the checkout page’s address', scope: 'topup' },
  { id: 'topup.payInSandbox', keys: ['s'], label: 'pay (sandbox)', help: 'sandbox only: pay the checkout session as the sandbox’s checkout page would, no browser and no card', scope: 'topup' },

  // Walk-through: USDC on Base.
  { id: 'topup.copyAddress', keys: ['c'], label: 'copy addr', help: 'copy the deposit address', scope: 'topup' },
  { id: 'topup.copyAmount', keys: ['a'], label: 'copy amount', help: 'copy the exact USDC amount', scope: 'topup' },
  { id: 'topup.hash', keys: ['h', 'enter'], label: 'tx hash', help: 'enter the transaction hash of your transfer, then verify it', scope: 'topup' },
  { id: 'topup.simulate', keys: ['s'], label: 'simulate', help: 'sandbox only: send a simulated USDC transfer to the deposit address', scope: 'topup' },
  { id: 'topup.qr', keys: ['v'], label: 'QR', help: 'show or hide the QR code (EIP-681 payment request) on its own', scope: 'topup' },
  { id: 'topup.verifyFound', keys: ['f'], label: 'verify found', help: 'verify the USDC transfer keydeck found on chain at the deposit address: no hash to paste', scope: 'topup' },
  { id: 'topup.nextFound', keys: ['tab'], label: 'next found', help: 'select the next of several transfers found on chain', scope: 'topup' },
  { id: 'topup.sendAnyway', keys: ['y'], label: 'send anyway', help: 'after the chain showed a mismatch: send the verify all the same (the service may know better)', scope: 'topup' },
  { id: 'topup.dontSend', keys: ['n', 'esc'], label: 'don’t send', help: 'after the chain showed a mismatch: send nothing', scope: 'topup' },
  { id: 'topup.editAmount', keys: ['e'], label: 'amount sent', help: 'verify with the amount you actually sent (after an amount mismatch)', scope: 'topup' },
  { id: 'topup.abandon', keys: ['x'], label: 'close', help: 'close this top-up for good: only when nothing was sent', scope: 'topup', dangerous: true },
  { id: 'topup.leave', keys: ['esc'], label: 'leave', help: 'leave the walk-through; it stays open (enter on the Billing pane resumes it)', scope: 'topup' },

  // Walk-through: typing the hash or the amount sent.
  { id: 'topup.verify', keys: ['enter'], label: 'verify', help: 'verify the transaction (sent once; never retried by itself)', scope: 'topup' },

  // Walk-through: finished.
  { id: 'topup.close', keys: ['enter', 'esc'], label: 'close', scope: 'topup' },
];
