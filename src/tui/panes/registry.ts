/**
 * The panes of the shell, in tab order: `1` Keys, `2` Management keys, `3` Billing. Each pane
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
export type PaneId = 'keys' | 'mgmt' | 'billing';

/** One pane of the shell. */
export interface PaneDef {
  readonly id: PaneId;
  /** The key that shows it. */
  readonly key: '1' | '2' | '3';
  readonly title: string;
  /** Title in the compact layout. */
  readonly shortTitle: string;
  readonly Component: ComponentType<PaneProps>;
}
