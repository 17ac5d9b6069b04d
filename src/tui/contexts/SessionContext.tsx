/**
 * The session: which service and which credential the app uses, and whether the service
 * rejected it. State and actions are published through two contexts (Gemini CLI's pattern),
 * so components that only act never re-render on state changes.
 *
 * Phases: `loading` (reading the credential store) → `setup` (no credential, or asked for)
 * → `ready` (a client exists). The demo account of the sandbox keydeck runs itself (`--sandbox`)
 * needs no setup: with nothing stored for it, its demo session token signs in at once (play
 * money on this machine: no keychain is asked, nothing is written); `keychain-hung` when the keychain did not answer, so whether a key
 * is stored is unknown (never the setup then: it would invite a second key). A 401 anywhere
 * marks the session `rejected` (banner, `S`). The stored key read is the one of the service's
 * origin only (src/credentials/origin.ts).
 */
import { tokenKind } from '../../credentials/token.js';
import { describeCredential } from '../../credentials/describe.js';
import { createContext, useCallback, useContext, useEffect, useMemo, useReducer, useRef, type ReactNode } from 'react';
import { keyPrefixOf } from '../../api/errors.js';
import { originOf, originTarget } from '../../credentials/origin.js';
import { credentialIdOf } from '../../billing/usageBudget.js';
import type { AccountClient } from '../services.js';
import { useClock, useServices } from './ServicesContext.js';

/**
 * Where the credential in use lives: the store's sources, `memory` ("this session only"), or
 * `sandbox`: the demo session token of the sandbox keydeck itself runs (`--sandbox`), kept beside
 * its database in the data dir (src/sandbox/shared.ts), used when nothing is stored for it.
 */
export type CredentialOrigin = 'env' | 'keychain' | 'file' | 'memory' | 'sandbox';

/** The credential in use. `token` is secret: never render or log it. */
export interface ActiveCredential {
  readonly token: string;
  readonly origin: CredentialOrigin;
  /** For `file`: the plaintext file's path (shown with the warning). */
  readonly path?: string;
}

/** State of the session. */
export interface SessionState {
  readonly phase: 'loading' | 'setup' | 'ready' | 'keychain-hung';
  readonly baseUrl?: string;
  readonly credential?: ActiveCredential;
  /** The service answered 401 to the credential in use. */
  readonly rejected: boolean;
  /** Why setup is shown (e.g. after the key in use was deleted); shown on its first step. */
  readonly notice?: string;
  /** Phase `keychain-hung`: the store's sentence (which keychain, how long it was given). */
  readonly keychainReason?: string;
}

/** Actions of the session reducer. */
export type SessionAction =
  | { type: 'signIn'; baseUrl: string; credential: ActiveCredential }
  | { type: 'setup'; notice?: string }
  | { type: 'keychainHung'; reason: string }
  | { type: 'retry' }
  | { type: 'rejected' }
  | { type: 'accepted' };

/** Pure reducer of {@link SessionState}. */
export function sessionReducer(state: SessionState, action: SessionAction): SessionState {
  switch (action.type) {
    case 'signIn':
      return { phase: 'ready', baseUrl: action.baseUrl, credential: action.credential, rejected: false };
    case 'setup':
      return { phase: 'setup', rejected: false, ...(state.baseUrl !== undefined && { baseUrl: state.baseUrl }), ...(action.notice !== undefined && { notice: action.notice }) };
    case 'keychainHung':
      return { phase: 'keychain-hung', rejected: false, keychainReason: action.reason, ...(state.baseUrl !== undefined && { baseUrl: state.baseUrl }) };
    case 'retry':
      return { phase: 'loading', rejected: false, ...(state.baseUrl !== undefined && { baseUrl: state.baseUrl }) };
    case 'rejected':
      return state.rejected || state.phase !== 'ready' ? state : { ...state, rejected: true };
    case 'accepted':
      return state.rejected ? { ...state, rejected: false } : state;
  }
}

/** What the app knows about the credential in use, without the secret. */
export interface CredentialInfo {
  readonly origin: CredentialOrigin;
  readonly kind: 'management-key' | 'session-token';
  /** `mk_` + 8 characters when the credential is a management key. */
  readonly keyPrefix?: string;
  readonly path?: string;
}

/** Describes a credential without its secret. */
export function credentialInfo(credential: ActiveCredential): CredentialInfo {
  const isMk = tokenKind(credential.token) === 'management';
  return {
    origin: credential.origin,
    kind: isMk ? 'management-key' : 'session-token',
    ...(isMk && { keyPrefix: keyPrefixOf(credential.token) }),
    ...(credential.path !== undefined && { path: credential.path }),
  };
}

/** Published session state. */
export interface SessionView {
  readonly phase: SessionState['phase'];
  readonly baseUrl?: string;
  readonly info?: CredentialInfo;
  readonly rejected: boolean;
  readonly notice?: string;
  /** Phase `keychain-hung`: why (one sentence). */
  readonly keychainReason?: string;
  /** The client of the credential in use (phase `ready`). */
  readonly client?: AccountClient;
  /** The credential's name in the shared record of usage reads (a one-way hash of origin and token). */
  readonly credentialId?: string;
}

/** Published session actions (stable). */
export interface SessionActions {
  /** Use `credential` against `baseUrl` from now on (after setup). */
  readonly signIn: (baseUrl: string, credential: ActiveCredential) => void;
  /** Show the guided setup, with `notice` on its first step. */
  readonly startSetup: (notice?: string) => void;
  /** The service answered 401 to the credential in use. */
  readonly markRejected: () => void;
  /** A request with the credential in use succeeded again. */
  readonly markAccepted: () => void;
  /** Phase `keychain-hung`: ask the keychain again. */
  readonly retryKeychain: () => void;
}

const SessionStateContext = createContext<SessionView | undefined>(undefined);
const SessionActionsContext = createContext<SessionActions | undefined>(undefined);

/** Props of {@link SessionProvider}. */
export interface SessionProviderProps {
  /** Start from this state instead of reading the store (tests). */
  readonly initial?: SessionState;
  readonly children?: ReactNode;
}

/** Reads the stored credential at mount, then owns the session. */
export function SessionProvider({ initial, children }: SessionProviderProps) {
  const services = useServices();
  const [state, dispatch] = useReducer(sessionReducer, initial ?? { phase: 'loading', rejected: false, ...(services.profile.baseUrl !== undefined && { baseUrl: services.profile.baseUrl }) });

  useEffect(() => {
    if (state.phase !== 'loading') return;
    let cancelled = false;
    const baseUrl = services.profile.baseUrl;
    const read = async () => {
      // Without a base URL there is no service to hold a key for: setup asks where it is.
      if (!baseUrl) return { stored: undefined, hung: undefined };
      const stored = await services.store.get(services.profile.name, originTarget(baseUrl, services.profile.savedBaseUrl));
      if (stored) return { stored, hung: undefined };
      // The sandbox keydeck runs itself: its demo account signs in with the demo token (a hung
      // keychain makes no difference: no key would be created, so none can be made twice).
      if (services.demoToken !== undefined) return { stored: { token: services.demoToken, source: 'sandbox' as const, path: undefined }, hung: undefined };
      const status = await services.store.keychainStatus();
      return { stored, hung: status.code === 'keychain_timeout' ? (status.reason ?? 'the keychain did not answer') : undefined };
    };
    read().then(
      ({ stored, hung }) => {
        if (cancelled) return;
        if (stored && baseUrl) {
          dispatch({ type: 'signIn', baseUrl, credential: { token: stored.token, origin: stored.source, ...(stored.path !== undefined && { path: stored.path }) } });
        } else if (hung !== undefined) {
          dispatch({ type: 'keychainHung', reason: hung });
        } else {
          dispatch({ type: 'setup' });
        }
      },
      (error: unknown) => {
        if (cancelled) return;
        dispatch({ type: 'setup', notice: `could not read the stored key: ${error instanceof Error ? error.message : String(error)}` });
      },
    );
    return () => {
      cancelled = true;
    };
    // Runs at start and on a retry after a hung keychain (the phase back to `loading`); the services are the app's, one set for its life.
  }, [state.phase, services]);

  const token = state.credential?.token;
  const origin = state.credential?.origin;
  const client = useMemo(
    () =>
      token && origin && state.baseUrl ? services.createClient(state.baseUrl, token, describeCredential(token, origin, services.profile.name, 'press S to run the guided setup again')) : undefined,
    [services, token, origin, state.baseUrl],
  );
  const info = useMemo(() => (state.credential ? credentialInfo(state.credential) : undefined), [state.credential]);
  // The credential's name in the shared record of usage reads: a one-way hash, never the token.
  const credentialId = useMemo(() => (token && state.baseUrl ? credentialIdOf(originOf(state.baseUrl), token) : undefined), [token, state.baseUrl]);

  const view = useMemo<SessionView>(
    () => ({
      phase: state.phase,
      rejected: state.rejected,
      ...(state.baseUrl !== undefined && { baseUrl: state.baseUrl }),
      ...(info && { info }),
      ...(state.notice !== undefined && { notice: state.notice }),
      ...(state.keychainReason !== undefined && { keychainReason: state.keychainReason }),
      ...(client && { client }),
      ...(credentialId && { credentialId }),
    }),
    [state.phase, state.rejected, state.baseUrl, state.notice, state.keychainReason, info, client, credentialId],
  );

  // `accepted` changes nothing unless the credential was rejected: no render (and no frame) for it at every poll.
  const rejectedRef = useRef(state.rejected);
  rejectedRef.current = state.rejected;
  const actions = useMemo<SessionActions>(
    () => ({
      signIn: (baseUrl, credential) => dispatch({ type: 'signIn', baseUrl, credential }),
      startSetup: (notice) => dispatch(notice === undefined ? { type: 'setup' } : { type: 'setup', notice }),
      markRejected: () => {
        rejectedRef.current = true;
        dispatch({ type: 'rejected' });
      },
      markAccepted: () => {
        if (!rejectedRef.current) return;
        rejectedRef.current = false;
        dispatch({ type: 'accepted' });
      },
      retryKeychain: () => {
        services.store.resetKeychain?.();
        dispatch({ type: 'retry' });
      },
    }),
    [services],
  );

  return (
    <SessionActionsContext.Provider value={actions}>
      <SessionStateContext.Provider value={view}>{children}</SessionStateContext.Provider>
    </SessionActionsContext.Provider>
  );
}

/** The session state. */
export function useSession(): SessionView {
  const v = useContext(SessionStateContext);
  if (!v) throw new Error('useSession needs <SessionProvider>');
  return v;
}

/**
 * The service's clock (epoch ms): the app's clock corrected by the offset the client read from
 * The service's HTTP `Date` headers. Subscription time left is reckoned by it, so a
 * machine whose clock is off never shows paid time that the service has already ended.
 */
export function useServiceClock(): () => number {
  const clock = useClock();
  const { client } = useSession();
  return useCallback(() => clock() + (client?.serviceClockOffsetMs ?? 0), [clock, client]);
}

/** The session actions (stable identity). */
export function useSessionActions(): SessionActions {
  const v = useContext(SessionActionsContext);
  if (!v) throw new Error('useSessionActions needs <SessionProvider>');
  return v;
}
