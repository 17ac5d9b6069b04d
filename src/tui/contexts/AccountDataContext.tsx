/**
 * The account's lists, loaded once per session and kept while the user switches panes:
 * consumption keys (§2.1, `GET /api/keys`) and management keys (§2.2,
 * `GET /api/keys/management`). Reloaded by `r` and after every action (the lists are read back
 * from the service rather than guessed). A 401 marks the session rejected.
 */
import { createContext, useContext, useMemo, type ReactNode } from 'react';
import type { ConsumptionKey, ManagementKey } from '../../api/schemas.js';
import { isUnauthorized } from '../errors.js';
import { useResource, type Resource } from '../hooks/useResource.js';
import { useSession, useSessionActions } from './SessionContext.js';

/** The lists of the account. */
export interface AccountData {
  readonly keys: Resource<ConsumptionKey[]>;
  readonly managementKeys: Resource<ManagementKey[]>;
}

const AccountDataContext = createContext<AccountData | undefined>(undefined);

/** Loads both lists while a client exists. */
export function AccountDataProvider({ children }: { readonly children?: ReactNode }) {
  const { client } = useSession();
  const { markRejected, markAccepted } = useSessionActions();
  const onError = (error: unknown) => {
    if (isUnauthorized(error)) markRejected();
  };
  const keys = useResource<ConsumptionKey[]>((signal) => client!.listKeys({ signal }), {
    key: client,
    enabled: client !== undefined,
    onError,
    onSuccess: markAccepted,
  });
  const managementKeys = useResource<ManagementKey[]>((signal) => client!.listManagementKeys({ signal }), {
    key: client,
    enabled: client !== undefined,
    onError,
    onSuccess: markAccepted,
  });
  const value = useMemo(() => ({ keys, managementKeys }), [keys, managementKeys]);
  return <AccountDataContext.Provider value={value}>{children}</AccountDataContext.Provider>;
}

/** The account's lists. */
export function useAccountData(): AccountData {
  const v = useContext(AccountDataContext);
  if (!v) throw new Error('useAccountData needs <AccountDataProvider>');
  return v;
}
