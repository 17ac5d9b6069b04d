/** The shell's panes in tab order (see registry.ts for the contract). */
import { memo } from 'react';
import { BillingPane } from './billing/BillingPane.js';
import { KeysPane } from './KeysPane.js';
import { ManagementKeysPane } from './ManagementKeysPane.js';
import type { PaneDef } from './registry.js';

export type { PaneDef, PaneId, PaneProps } from './registry.js';

/**
 * `1` Keys, `2` Management keys, `3` Billing. Memoised: every pane stays mounted, and the shell
 * re-renders on every balance poll; a pane re-renders only when its props or its contexts change.
 */
export const PANES: readonly PaneDef[] = [
  { id: 'keys', key: '1', title: 'Keys', shortTitle: 'Keys', Component: memo(KeysPane) },
  { id: 'mgmt', key: '2', title: 'Management keys', shortTitle: 'Mgmt', Component: memo(ManagementKeysPane) },
  { id: 'billing', key: '3', title: 'Billing', shortTitle: 'Billing', Component: memo(BillingPane) },
];
