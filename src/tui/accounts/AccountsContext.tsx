/**
 * What the Accounts pane (./AccountsPane.tsx) reads from the session around the app
 * (./AccountsRoot.tsx): every profile's account watcher, the profile the other panes show, and
 * how to open another one there. Absent (an app rendered alone, as in most tests): the pane says
 * that no other profile is watched.
 */
import { createContext, useContext } from 'react';
import type { ProfileWatch } from '../../watcher/profileWatchers.js';

/** See the module comment. */
export interface AccountsValue {
  /** One watcher per profile (empty while the config file is read); the shown profile's starts at {@link want}. */
  readonly watches: readonly ProfileWatch[];
  /** The profile the other panes show. */
  readonly current: string;
  /** Starts the watcher of the profile shown too (the pane calls it when it is first shown); idempotent. */
  readonly want: () => void;
  /** Shows profile `name`'s account in the other panes (the app starts again on it, on its Keys pane). */
  readonly open: (name: string) => void;
  /** Why the profiles could not be listed (the config file refused), when so. */
  readonly problem?: string | undefined;
}

export const AccountsContext = createContext<AccountsValue | undefined>(undefined);

/** The accounts of every profile, or undefined outside {@link AccountsContext}. */
export function useAccounts(): AccountsValue | undefined {
  return useContext(AccountsContext);
}
