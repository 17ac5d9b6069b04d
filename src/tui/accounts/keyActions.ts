/**
 * The Accounts pane's rows of the key-action table (src/tui/keymap.ts spreads them into
 * `KEY_ACTIONS`): move among the profiles, open one in the other panes. `0`, the key that shows the
 * pane, is a global row of the table itself.
 */
import type { KeyActionDef } from '../keyActionTypes.js';

/** Every binding of the Accounts pane (scope `accounts`). */
export const ACCOUNTS_KEY_ACTIONS: readonly KeyActionDef[] = [
  { id: 'accounts.down', keys: ['j', 'down'], label: 'move', help: 'move down the profiles', scope: 'accounts' },
  { id: 'accounts.up', keys: ['k', 'up'], label: 'up', scope: 'accounts', hint: false },
  { id: 'accounts.open', keys: ['enter'], label: 'open', help: 'open the selected profile’s account in the other panes (the header names it)', scope: 'accounts' },
  { id: 'accounts.refresh', keys: ['r'], label: 'refresh', help: 'read every account’s balance now', scope: 'accounts' },
];
