/**
 * The account's lists, loaded once per session and kept while the user switches panes:
 * consumption keys (`GET /api/keys`) and management keys (the management key's fields,
 * `GET /api/keys/management`). Reloaded by `r`, after every action (the lists are read back
 * from the service rather than guessed), when a list pane is shown (hooks/useReloadWhenShown.ts)
 * and in the background every {@link LIST_RELOAD_EVERY_POLLS}th successful balance poll (so a
 * key deleted or renamed elsewhere shows without `r`; the selection stays on its key, see
 * hooks/useListCursor.ts): the consumption keys and the billing status always (the shell, the
 * spend figures and the key details read them), the management keys only while their pane is
 * shown (their one reader, which reads them again when it comes into view). keydeck's own
 * management key is used by every poll, so its `lastUsedAt` differs at every read: read in the
 * background behind a hidden pane, it made a React commit, a whole frame drawn again by Ink
 * (about 3 MB of garbage at 100×30), for nothing on screen, every fourth poll. A 401 marks the
 * session rejected. A list whose last load failed is loaded again as soon as a balance poll
 * succeeds, so an outage (keydeck started while the service was down, a burst of failures) ends
 * by itself instead of leaving "could not load the keys" on screen until the user presses `r`.
 */
import { createContext, useContext, useMemo, useRef, type ReactNode } from 'react';
import type { ConsumptionKey, ManagementKey } from '../../api/schemas.js';
import { summarizeBillingStatus, type BillingStatusSummary } from '../../api/reader.js';
import type { Plan } from '../../api/usageSchemas.js';
import { visibleRecord } from '../../terminal/sanitize.js';
import { isUnauthorized } from '../errors.js';
import { stateOf, useResource, useResourceStore, type Resource, type ResourceStore } from '../hooks/useResource.js';
import { usePollSucceeded } from './BalanceContext.js';
import { useSession, useSessionActions } from './SessionContext.js';

/** The lists of the account. */
export interface AccountData {
  readonly keys: Resource<ConsumptionKey[]>;
  /** Kept outside React's state: its one reader, the Management keys pane, reads it with `useResourceView` while shown. */
  readonly managementKeys: ResourceStore<ManagementKey[]>;
  /**
   * The service's plans (`GET /api/plans`, public), read once per session: their rates
   * win over the service's limits's in the key details, and a subscription's price is shown. No data when it does not answer.
   */
  readonly plans: Resource<Plan[]>;
  /**
   * The billing status as the pages document it (`summarizeBillingStatus`; null for another
   * shape), for the subscriptions and pool pledges without a key and the blocks of pool keys
   *. Read with the keys, in the background too.
   */
  readonly billingStatus: Resource<BillingStatusSummary | null>;
}

const AccountDataContext = createContext<AccountData | undefined>(undefined);

/** Loads both lists while a client exists; must be inside BalanceProvider (see the module comment). */
export function AccountDataProvider({ children }: { readonly children?: ReactNode }) {
  const { client } = useSession();
  const { markRejected, markAccepted } = useSessionActions();
  const onError = (error: unknown) => {
    if (isUnauthorized(error)) markRejected();
  };
  // Service strings are made visible and capped in width once, as they enter (src/terminal/sanitize.ts):
  // names, plans, dates; ids stay as they came (the client sends them back).
  const keys = useResource<ConsumptionKey[]>(async (signal) => displayList(await client!.keys.list({ signal })), {
    key: client,
    enabled: client !== undefined,
    onError,
    onSuccess: markAccepted,
  });
  // Read at start behind its hidden pane: its answer commits nothing (a whole frame for Ink) unless the pane is shown.
  const managementKeys = useResourceStore<ManagementKey[]>(async (signal) => displayList(await client!.managementKeys.list({ signal })), {
    key: client,
    enabled: client !== undefined,
    onError,
    onSuccess: markAccepted,
  });
  const plans = useResource<Plan[]>(async (signal) => (await client!.plans!.list({ signal })).map((p) => visibleRecord(p, { except: ['slug'] })), {
    key: client,
    enabled: client?.plans !== undefined,
  });
  const billingStatus = useResource<BillingStatusSummary | null>(async (signal) => summarizeBillingStatus(await client!.billing.status({ signal })) ?? null, {
    key: client,
    enabled: client !== undefined,
  });
  useRetryAfterRecovery(keys, managementKeys);
  useBackgroundReload(true, keys, billingStatus);
  const value = useMemo(() => ({ keys, managementKeys, plans, billingStatus }), [keys, managementKeys, plans, billingStatus]);
  return <AccountDataContext.Provider value={value}>{children}</AccountDataContext.Provider>;
}

/** `items` with every string field but `id` sanitised for display (see the provider). */
function displayList<T extends { id: string }>(items: readonly T[]): T[] {
  return items.map((item) => visibleRecord(item, { except: ['id'] }));
}

/**
 * Reloads each of `lists` whose last load failed (and that is not loading) whenever a balance
 * poll succeeds: the service answers again, so the error is stale. At most one reload per list
 * per successful poll (the poll interval bounds the rate while only the list keeps failing).
 */
function useRetryAfterRecovery(...lists: ReadonlyArray<Resource<unknown> | ResourceStore<unknown>>): void {
  // Heard as an event, not a render: a poll re-renders nothing here.
  usePollSucceeded(() => {
    for (const list of lists) {
      const { error, loading } = stateOf(list);
      if (error !== undefined && !loading) void list.reload();
    }
  });
}

/** The lists are read again on every this-many successful balance polls (15 s × 4 = every minute by default). */
export const LIST_RELOAD_EVERY_POLLS = 4;

/**
 * Reloads `lists` (those not loading) on every {@link LIST_RELOAD_EVERY_POLLS}th successful balance
 * poll while `enabled` (a list pane passes whether it is shown; the polls are counted only then).
 */
export function useBackgroundReload(enabled: boolean, ...lists: ReadonlyArray<Resource<unknown> | ResourceStore<unknown>>): void {
  const polls = useRef(0);
  usePollSucceeded(() => {
    if (!enabled) return;
    polls.current += 1;
    if (polls.current % LIST_RELOAD_EVERY_POLLS !== 0) return;
    // Quiet: a list found unchanged re-renders nothing.
    for (const list of lists) if (!stateOf(list).loading) void list.reload({ quiet: true });
  });
}

/** The account's lists. */
export function useAccountData(): AccountData {
  const v = useContext(AccountDataContext);
  if (!v) throw new Error('useAccountData needs <AccountDataProvider>');
  return v;
}
