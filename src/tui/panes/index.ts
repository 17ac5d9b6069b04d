/** The shell's panes in tab order (see registry.ts for the contract). */
import { BillingPane } from './billing/BillingPane.js';
import { KeysPane } from './KeysPane.js';
import { ManagementKeysPane } from './ManagementKeysPane.js';
import type { PaneDef } from './registry.js';

export type { PaneDef, PaneId, PaneProps } from './registry.js';

/** `1` Keys, `2` Management keys, `3` Billing. */
export const PANES: readonly PaneDef[] = [
  { id: 'keys', key: '1', title: 'Keys', shortTitle: 'Keys', Component: KeysPane },
  { id: 'mgmt', key: '2', title: 'Management keys', shortTitle: 'Mgmt', Component: ManagementKeysPane },
  { id: 'billing', key: '3', title: 'Billing', shortTitle: 'Billing', Component: BillingPane },
];
