/** The shell's panes in tab order (see registry.ts for the contract). */
import { memo } from 'react';
import { AccountsPane } from '../accounts/AccountsPane.js';
import { BillingPane } from './billing/BillingPane.js';
import { KeysPane } from './keys/KeysPane.js';
import { ManagementKeysPane } from './managementKeys/ManagementKeysPane.js';
import { PANE_TABS, type PaneDef } from './registry.js';

export type { PaneDef, PaneId } from './registry.js';

/**
 * `1` Keys, `2` Management keys, `3` Billing, `0` Accounts. Memoised: every pane stays mounted, and the shell
 * re-renders on every balance poll; a pane re-renders only when its props or its contexts change.
 */
export const PANES: readonly PaneDef[] = [
  { ...PANE_TABS[0], Component: memo(KeysPane) },
  { ...PANE_TABS[1], Component: memo(ManagementKeysPane) },
  { ...PANE_TABS[2], Component: memo(BillingPane) },
  { ...PANE_TABS[3], Component: memo(AccountsPane) },
];
