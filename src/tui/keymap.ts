/**
 * The one table of key actions (after k9s's `KeyActions`): each row is a key (or keys), a
 * label, the scope where it is visible, and whether it is dangerous. The same table drives the
 * input dispatcher, the hint bar and the `?` overlay, so they never disagree. Handlers are
 * bound at run time by the component that owns the scope (`useKeymap`, contexts/KeymapContext):
 * an action whose handler is not bound is neither active nor shown.
 *
 * Adding a pane: add its rows with its own scope here (or spread them from the pane's module, as
 * the Billing pane does) and bind them with `useKeymap('<scope>', { … })` in the pane.
 */
import type { KeyActionDef, KeyName, Scope } from './keyActionTypes.js';
import { BILLING_KEY_ACTIONS } from './panes/billing/keyActions.js';
import { ACCOUNTS_KEY_ACTIONS } from './accounts/keyActions.js';

export type { KeyActionDef, KeyName, Scope } from './keyActionTypes.js';

/** Human titles of the scopes, in the order the `?` overlay lists them. */
export const SCOPE_TITLES: Readonly<Record<Scope, string>> = {
  global: 'Everywhere',
  list: 'Lists (Keys, Management keys)',
  keys: 'Keys pane (1)',
  mgmt: 'Management keys pane (2)',
  billing: 'Billing pane (3)',
  accounts: 'Accounts pane (0)',
  topup: 'Top-up walk-through (t on the Billing pane)',
  filter: 'Filtering (after /)',
  prompt: 'Name prompt',
  confirm: 'Confirmation (Cancel is focused first)',
  typeToConfirm: 'Typed confirmation (type the name)',
  notice: 'Notice',
  pick: 'Choosing (n on the Keys pane when a subscription has no key)',
  pools: 'Pools view (p on the Billing pane)',
  reveal: 'New key, shown once',
  deliver: 'Where a new key goes',
  handover: 'Rotation: the old key, once its successor is in place',
  pending: 'An interrupted rotation or key creation',
  help: 'This overlay',
  setupInput: 'Setup: typing a value',
  setupChoice: 'Setup: keychain unavailable',
  keychainHung: 'The keychain did not answer',
  tooSmall: 'Terminal too small',
};

/** Every key binding of the app. */
export const KEY_ACTIONS: readonly KeyActionDef[] = [
  // Everywhere (when no dialog is open). ctrl-c quits from anywhere, dialogs and typing included.
  { id: 'quit.force', keys: ['ctrl-c'], label: 'quit', help: 'quit at once (exit 130), from anywhere, also while typing (a key never copied is asked about first)', scope: 'global', hint: false },
  { id: 'quit', keys: ['q'], label: 'quit', scope: 'global' },
  { id: 'help', keys: ['?'], label: 'help', help: 'show every key binding', scope: 'global' },
  { id: 'refresh', keys: ['r'], label: 'refresh', help: 'reload the lists and the balance from the service', scope: 'global' },
  { id: 'pane.keys', keys: ['1'], label: 'keys', help: 'Keys pane (consumption keys)', scope: 'global', hint: false },
  { id: 'pane.mgmt', keys: ['2'], label: 'mgmt keys', help: 'Management keys pane', scope: 'global', hint: false },
  { id: 'pane.billing', keys: ['3'], label: 'billing', help: 'Billing pane', scope: 'global', hint: false },
  { id: 'pane.accounts', keys: ['0'], label: 'accounts', help: 'Accounts pane: every profile’s account at a glance', scope: 'global', hint: false },
  { id: 'pane.next', keys: ['tab'], label: 'next pane', scope: 'global', hint: false },
  { id: 'pane.prev', keys: ['shift-tab'], label: 'previous pane', scope: 'global', hint: false },
  { id: 'setup.again', keys: ['S'], label: 'set up again', help: 'run the guided setup again (shown when the stored key was rejected)', scope: 'global' },
  { id: 'setup.try', keys: ['S'], label: 'try the setup', help: 'on the sandbox’s demo account: walk the guided setup a real account goes through', scope: 'global', hint: false },
  {
    id: 'usage.read',
    keys: ['u'],
    label: 'read usage',
    help: 'spend one of the 12 usage reads the service allows per 12 hours now, when one is left (r never spends one)',
    scope: 'global',
    hint: false,
  },
  { id: 'runaway.deactivate', keys: ['D'], label: 'deactivate runaway', help: 'deactivate the key the runaway alert names (asks first, Cancel focused)', scope: 'global', dangerous: true },
  { id: 'runaway.dismiss', keys: ['X'], label: 'dismiss alert', help: 'hide the runaway alert until its key runs away again', scope: 'global', hint: false },

  // Lists.
  { id: 'list.down', keys: ['j', 'down'], label: 'move', help: 'move down', scope: 'list' },
  { id: 'list.up', keys: ['k', 'up'], label: 'up', help: 'move up', scope: 'list', hint: false },
  { id: 'list.pageDown', keys: ['pgdn', 'ctrl-d'], label: 'page down', scope: 'list', hint: false },
  { id: 'list.pageUp', keys: ['pgup', 'ctrl-u'], label: 'page up', scope: 'list', hint: false },
  { id: 'list.top', keys: ['g', 'home'], label: 'first', help: 'go to the first row', scope: 'list', hint: false },
  { id: 'list.bottom', keys: ['G', 'end'], label: 'last', help: 'go to the last row', scope: 'list', hint: false },
  { id: 'list.filter', keys: ['/'], label: 'filter', help: 'filter by name as you type', scope: 'list' },
  { id: 'list.clearFilter', keys: ['esc'], label: 'clear filter', scope: 'list' },

  // Keys pane.
  { id: 'keys.create', keys: ['n'], label: 'new', help: 'create a credit key (checks the balance first); when a subscription or pool pledge has no key, offers to mint its key first', scope: 'keys' },
  { id: 'keys.rename', keys: ['e'], label: 'rename', scope: 'keys' },
  { id: 'keys.toggle', keys: ['space'], label: 'on/off', help: 'activate or deactivate (deactivation asks first: it revokes at once)', scope: 'keys', dangerous: true },
  { id: 'keys.toggleExpired', keys: ['space'], label: 'why no on/off', help: 'on an ended subscription: says why it cannot be switched back on (nothing is sent)', scope: 'keys', hint: false },
  { id: 'keys.delete', keys: ['d'], label: 'delete', help: 'delete after typing the key’s name (permanent)', scope: 'keys', dangerous: true },
  { id: 'keys.rotate', keys: ['R'], label: 'rotate', help: 'rotate a credit key: create its successor, deliver it, then deactivate, delete or keep this one', scope: 'keys' },
  { id: 'keys.sort', keys: ['s'], label: 'sort', help: 'cycle the sort: created, name, status, expiry, spend (the last 24 h, biggest first)', scope: 'keys' },

  // Management keys pane.
  { id: 'mgmt.create', keys: ['n'], label: 'new', help: 'create a management key (shown once; can become the key keydeck uses)', scope: 'mgmt' },
  { id: 'mgmt.delete', keys: ['d'], label: 'delete', help: 'delete after typing its name; deleting the key in use signs keydeck out', scope: 'mgmt', dangerous: true },

  // Filtering.
  { id: 'filter.apply', keys: ['enter', 'down'], label: 'keep filter', scope: 'filter' },
  { id: 'filter.clear', keys: ['esc'], label: 'clear', scope: 'filter' },

  // Name prompt.
  { id: 'prompt.submit', keys: ['enter'], label: 'save', scope: 'prompt' },
  { id: 'prompt.cancel', keys: ['esc'], label: 'cancel', scope: 'prompt' },

  // Confirmation.
  { id: 'confirm.next', keys: ['tab', 'right', 'l'], label: 'switch', help: 'move between Cancel and the action', scope: 'confirm' },
  { id: 'confirm.prev', keys: ['shift-tab', 'left', 'h'], label: 'switch back', scope: 'confirm', hint: false },
  { id: 'confirm.activate', keys: ['enter'], label: 'choose', help: 'press the focused button', scope: 'confirm' },
  { id: 'confirm.cancel', keys: ['esc'], label: 'cancel', scope: 'confirm' },

  // Typed confirmation.
  { id: 'typed.submit', keys: ['enter'], label: 'confirm', help: 'delete, or on a protected profile deactivate (only when the typed name matches)', scope: 'typeToConfirm', dangerous: true },
  { id: 'typed.cancel', keys: ['esc'], label: 'cancel', scope: 'typeToConfirm' },

  // Notice.
  { id: 'notice.close', keys: ['enter', 'esc'], label: 'close', scope: 'notice' },
  { id: 'notice.billing', keys: ['3'], label: 'go to Billing', help: 'close and open the Billing pane (zero-balance notice)', scope: 'notice' },

  // Choosing among a few (the Keys pane's n when a subscription has no key).
  { id: 'pick.down', keys: ['j', 'down'], label: 'move', scope: 'pick' },
  { id: 'pick.up', keys: ['k', 'up'], label: 'up', scope: 'pick', hint: false },
  { id: 'pick.choose', keys: ['enter'], label: 'choose', scope: 'pick' },
  { id: 'pick.cancel', keys: ['esc'], label: 'cancel', scope: 'pick' },

  // One-time reveal.
  { id: 'reveal.copy', keys: ['c'], label: 'copy', help: 'copy the key (OSC 52, then the system clipboard)', scope: 'reveal' },
  { id: 'reveal.use', keys: ['u'], label: 'use for keydeck', help: 'store this management key and make it the one keydeck uses', scope: 'reveal' },
  { id: 'reveal.toFile', keys: ['f'], label: 'to a file', help: 'write the key into a dotenv file (PATH[:VAR]); it stays on screen until y', scope: 'reveal' },
  { id: 'reveal.toCommand', keys: ['x'], label: 'to a command', help: 'give the key to a command on its standard input (no shell); it stays on screen until y', scope: 'reveal' },
  { id: 'reveal.deleteKey', keys: ['D'], label: 'delete it', help: 'after a failed delivery: delete the new key instead of keeping it', scope: 'reveal', dangerous: true },
  { id: 'reveal.ack', keys: ['y'], label: 'I have saved it', help: 'acknowledge: the key is then removed from the screen for good', scope: 'reveal' },
  { id: 'reveal.esc', keys: ['esc'], label: 'back', help: 'reminds you to press y: the key cannot be shown again', scope: 'reveal', hint: false },
  { id: 'reveal.interrupt', keys: ['ctrl-c'], label: 'quit', help: 'quit (exit 130); asks first while the key was never copied', scope: 'reveal', hint: false },
  { id: 'reveal.quitYes', keys: ['y', 'ctrl-c'], label: 'quit, lose the key', help: 'quit although the key was never copied (it is lost)', scope: 'reveal', dangerous: true },
  { id: 'reveal.quitNo', keys: ['esc', 'n'], label: 'back to the key', scope: 'reveal' },

  // Where a new key goes (before it is created).
  { id: 'deliver.show', keys: ['enter'], label: 'show it once here', scope: 'deliver' },
  { id: 'deliver.same', keys: ['enter'], label: 'same places', help: 'rotation: deliver the successor where keydeck delivered the old key', scope: 'deliver' },
  { id: 'deliver.showOnce', keys: ['s'], label: 'show it once', help: 'rotation: show the successor once here instead, to put it in place yourself', scope: 'deliver' },
  { id: 'deliver.file', keys: ['f'], label: 'dotenv file', help: 'write VAR=sk_… into a dotenv file (PATH[:VAR]); the key is not shown', scope: 'deliver' },
  { id: 'deliver.command', keys: ['x'], label: 'command', help: 'run a command with the key on its standard input (no shell); the key is not shown', scope: 'deliver' },
  { id: 'deliver.cancel', keys: ['esc'], label: 'cancel', scope: 'deliver' },

  // Rotation: the old key once its successor is in place.
  { id: 'handover.deactivate', keys: ['d'], label: 'deactivate old', help: 'deactivate the old key now (reversible; asks first while it is still in use)', scope: 'handover', dangerous: true },
  { id: 'handover.wait', keys: ['w'], label: 'deactivate when idle', help: 'wait until the old key has not been used for 60 s, then deactivate it', scope: 'handover' },
  { id: 'handover.delete', keys: ['x'], label: 'delete old', help: 'delete the old key for good (asks first)', scope: 'handover', dangerous: true },
  { id: 'handover.keep', keys: ['k'], label: 'keep old', help: 'keep the old key active: both keys work', scope: 'handover' },
  { id: 'handover.later', keys: ['esc'], label: 'later', help: 'close; the rotation stays recorded and is offered again at the next start', scope: 'handover' },

  // An interrupted rotation (found at start).
  {
    id: 'pending.finish',
    keys: ['f'],
    label: 'finish',
    help: 'finish it: the new key read back from a file that holds it, or a new one, to every destination (then, for a rotation, the old key)',
    scope: 'pending',
  },
  { id: 'pending.undo', keys: ['u'], label: 'undo', help: 'undo it: files put back, the new key deleted unless a command took it, an old key kept (asks first)', scope: 'pending', dangerous: true },
  { id: 'pending.later', keys: ['esc'], label: 'later', help: 'leave it recorded for now', scope: 'pending' },

  // Help overlay.
  { id: 'help.pageDown', keys: ['pgdn', 'space'], label: 'next page', help: 'the next screenful', scope: 'help' },
  { id: 'help.pageUp', keys: ['pgup'], label: 'previous page', scope: 'help' },
  { id: 'help.down', keys: ['j', 'down'], label: 'scroll', help: 'one line down', scope: 'help', hint: false },
  { id: 'help.up', keys: ['k', 'up'], label: 'scroll up', help: 'one line up', scope: 'help', hint: false },
  { id: 'help.close', keys: ['esc', '?', 'q'], label: 'close', scope: 'help' },

  // Billing pane (3) and the top-up walk-through.
  ...BILLING_KEY_ACTIONS,

  // Accounts pane (0).
  ...ACCOUNTS_KEY_ACTIONS,

  // Setup.
  { id: 'setup.submit', keys: ['enter'], label: 'continue', scope: 'setupInput' },
  { id: 'setup.back', keys: ['esc'], label: 'back', help: 'back to the previous step', scope: 'setupInput' },
  { id: 'choice.down', keys: ['down', 'j', 'tab'], label: 'move', scope: 'setupChoice' },
  { id: 'choice.up', keys: ['up', 'k', 'shift-tab'], label: 'up', scope: 'setupChoice', hint: false },
  { id: 'choice.pick', keys: ['enter'], label: 'choose', scope: 'setupChoice' },
  { id: 'choice.file', keys: ['1'], label: 'file', help: 'store in a plaintext file (mode 0600; warned in the header)', scope: 'setupChoice', dangerous: true },
  { id: 'choice.session', keys: ['2'], label: 'this session only', help: 'keep the key in memory only; gone when keydeck exits', scope: 'setupChoice' },
  { id: 'choice.quit', keys: ['3'], label: 'quit, use KEYDECK_TOKEN', help: 'quit and set KEYDECK_TOKEN yourself', scope: 'setupChoice' },

  // Terminal too small.
  { id: 'small.quit', keys: ['q'], label: 'quit', scope: 'tooSmall' },
  { id: 'keychain.retry', keys: ['r'], label: 'ask the keychain again', scope: 'keychainHung' },
  { id: 'keychain.quit', keys: ['q'], label: 'quit', scope: 'keychainHung' },
];

const KEY_LABELS: Readonly<Record<string, string>> = {
  up: '↑',
  down: '↓',
  left: '←',
  right: '→',
  pgup: 'PgUp',
  pgdn: 'PgDn',
  home: 'Home',
  end: 'End',
};

/** How a key is written in the hint bar and the overlay: `↑`, `PgDn`, `ctrl-c`, `j`. */
export function keyLabel(name: KeyName): string {
  return KEY_LABELS[name] ?? name;
}
