/**
 * The panes of the shell, in tab order: `1` Keys, `2` Management keys, `3` Billing, `0` Accounts
 * (every profile's account: src/tui/accounts/). Each pane
 * is a component receiving {@link PaneProps}; every pane stays mounted (hidden when not
 * active) so its cursor, filter and any walk-through in progress survive a switch.
 */
import type { ComponentType } from 'react';
import type { PaneSize } from '../layout.js';

/** Props every pane receives from the shell. */
export interface PaneProps {
  /** Cells available to the pane body (between the tabs/banner and the status line). */
  readonly size: PaneSize;
  /** The pane is the one shown: only then may it bind keys (`useKeymap(…, { active })`). */
  readonly active: boolean;
  /** Switches to another pane by id (e.g. the zero-balance notice pointing at Billing). */
  readonly goTo: (pane: PaneId) => void;
}

/** Pane ids. */
export type PaneId = 'keys' | 'mgmt' | 'billing' | 'accounts';

/** One pane's tab: what the tabs line shows of it (src/tui/components/PaneTabs.tsx). */
export interface PaneTab {
  readonly id: PaneId;
  /** The key that shows it. */
  readonly key: '1' | '2' | '3' | '0';
  readonly title: string;
  /** Title in the compact layout. */
  readonly shortTitle: string;
}

/**
 * The tabs in order. Kept apart from the pane components (panes/index.ts) so that the frame drawn
 * while they load (src/tui/BootFrame.tsx) shows the same tabs line without loading them.
 */
export const PANE_TABS: readonly [PaneTab, PaneTab, PaneTab, PaneTab] = [
  { id: 'keys', key: '1', title: 'Keys', shortTitle: 'Keys' },
  { id: 'mgmt', key: '2', title: 'Management keys', shortTitle: 'Mgmt' },
  { id: 'billing', key: '3', title: 'Billing', shortTitle: 'Billing' },
  { id: 'accounts', key: '0', title: 'Accounts', shortTitle: 'Accts' },
];

/** One pane of the shell: its tab and its component. */
export interface PaneDef extends PaneTab {
  readonly Component: ComponentType<PaneProps>;
}
