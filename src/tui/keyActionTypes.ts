/**
 * The types of the key-action table (./keymap.ts): where an action is visible, how a key is
 * named, and one row. In a module of their own so that a pane's own rows
 * (panes/billing/keyActions.ts) can be typed without importing the table that spreads them.
 */

/** Where an action is visible. Dialog scopes are modal: while one is open only its actions (and ctrl-c) work. */
export type Scope =
  | 'global'
  | 'list'
  | 'keys'
  | 'mgmt'
  | 'billing'
  | 'accounts'
  | 'topup'
  | 'filter'
  | 'prompt'
  | 'confirm'
  | 'typeToConfirm'
  | 'notice'
  | 'pick'
  | 'pools'
  | 'reveal'
  | 'deliver'
  | 'handover'
  | 'pending'
  | 'help'
  | 'setupInput'
  | 'setupChoice'
  | 'keychainHung'
  | 'tooSmall';

/** A normalised key name (input/keyEvents.ts): a printable character (`j`, `G`, `?`), or `enter`, `esc`, `tab`, `shift-tab`, `space`, `up`, `down`, `left`, `right`, `pgup`, `pgdn`, `home`, `end`, `backspace`, `delete`, `ctrl-<x>`, `alt-<x>`. */
export type KeyName = string;

/** One row of the key-action table. */
export interface KeyActionDef {
  /** Stable id; handlers are bound by id. */
  readonly id: string;
  /** Keys that trigger it; the first is the one shown in the hint bar. */
  readonly keys: readonly KeyName[];
  /** Short label for the hint bar. */
  readonly label: string;
  /** Longer text for the `?` overlay (defaults to the label). */
  readonly help?: string;
  readonly scope: Scope;
  /** Destructive or revoking: asks to confirm, and is marked in the overlay. */
  readonly dangerous?: boolean;
  /** False: active and listed in the overlay, but not in the hint bar (to keep it one line). */
  readonly hint?: boolean;
}
