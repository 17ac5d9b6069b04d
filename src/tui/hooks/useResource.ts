/**
 * A list read from the service on demand (`reload()`), keeping the last data when a reload
 * fails. One request at a time: a reload aborts the one in flight (GETs only). Aborted on unmount.
 */
import { useCallback, useEffect, useMemo, useRef, useState, useSyncExternalStore } from 'react';
import { isAbortError } from '../errors.js';
import { useChangedState, type SetChangedState } from './useChangedState.js';

/** State of a {@link useResource}. */
export interface ResourceState<T> {
  /** The last successful result (kept while reloads fail). */
  readonly data?: T;
  /** When `data` arrived (epoch ms). */
  readonly updatedAt?: number;
  /** The last failure; cleared by the next success. */
  readonly error?: unknown;
  /** A request is in flight. */
  readonly loading: boolean;
}

/** Options of one {@link Resource} `reload()`. */
export interface ReloadOptions {
  /**
   * A reload in the background: `loading` is not set, and an answer the same as the data held
   * (the same JSON) changes nothing (`updatedAt` stays): no render, so no frame, for a list
   * read again and found unchanged.
   */
  readonly quiet?: boolean;
}

/** {@link ResourceState} plus `reload()`, which resolves once the list is read (true) or failed (false). */
export interface Resource<T> extends ResourceState<T> {
  readonly reload: (options?: ReloadOptions) => Promise<boolean>;
}

/** Options of {@link useResource}. */
export interface UseResourceOptions {
  /** A new value drops the data and loads again (e.g. a new client). */
  readonly key?: unknown;
  /** False: nothing is loaded. Default true. */
  readonly enabled?: boolean;
  /** Called with every failure (not with aborts). */
  readonly onError?: (error: unknown) => void;
  /** Called after every success. */
  readonly onSuccess?: () => void;
}

/** Loads `fetcher` at mount (and when `key` changes); `reload()` reads it again. */
export function useResource<T>(fetcher: (signal: AbortSignal) => Promise<T>, options: UseResourceOptions = {}): Resource<T> {
  // A state set to itself (a quiet reload finding the same list) calls no setState (see useChangedState).
  const [state, setState] = useChangedState<ResourceState<T>>({ loading: false });
  const reload = useLoader(fetcher, options, setState);
  return useMemo(() => ({ ...state, reload }), [state, reload]);
}

/**
 * A {@link useResource} kept outside React's state: its answers commit nothing by themselves (each
 * React commit is a whole frame drawn again by Ink), and a component reads it with
 * {@link useResourceView}, re-rendered by its changes only while it passes `live` (a pane shown).
 * For a list only a hidden pane shows: read at start and behind the pane, it drew the same frame
 * again for each answer (docs/performance.md, "The TUI's memory (round 5)": the start's commits).
 */
export interface ResourceStore<T> {
  /** The state now (the same object while it stays the same). */
  readonly current: () => ResourceState<T>;
  /** Calls `listener` after each change of the state; returns the unsubscription. */
  readonly subscribe: (listener: () => void) => () => void;
  readonly reload: Resource<T>['reload'];
}

/** {@link useResource}'s loading, kept in a {@link ResourceStore}. */
export function useResourceStore<T>(fetcher: (signal: AbortSignal) => Promise<T>, options: UseResourceOptions = {}): ResourceStore<T> {
  const [store] = useState(() => {
    let state: ResourceState<T> = { loading: false };
    const listeners = new Set<() => void>();
    const set: SetChangedState<ResourceState<T>> = (next) => {
      const value = typeof next === 'function' ? (next as (state: ResourceState<T>) => ResourceState<T>)(state) : next;
      if (Object.is(value, state)) return;
      state = value;
      for (const listener of [...listeners]) listener();
    };
    const subscribe = (listener: () => void) => {
      listeners.add(listener);
      return () => void listeners.delete(listener);
    };
    return { current: () => state, subscribe, set };
  });
  const reload = useLoader(fetcher, options, store.set);
  return useMemo(() => ({ current: store.current, subscribe: store.subscribe, reload }), [store, reload]);
}

/** The state of a {@link Resource} or of a {@link ResourceStore}, as it is now. */
export function stateOf<T>(list: Resource<T> | ResourceStore<T>): ResourceState<T> {
  return 'current' in list ? list.current() : list;
}

function noSubscribe(): () => void {
  return () => {};
}

/**
 * The {@link Resource} of `store` as it is now: the caller re-renders at each change while `live`
 * (default true); not live, it reads the state as it is when it renders for another reason.
 */
export function useResourceView<T>(store: ResourceStore<T>, live = true): Resource<T> {
  const state = useSyncExternalStore(live ? store.subscribe : noSubscribe, store.current);
  return useMemo(() => ({ ...state, reload: store.reload }), [state, store.reload]);
}

/** The loading of a resource: `reload`, and the first load at mount (and at each new `key`), through `setState`. */
function useLoader<T>(fetcher: (signal: AbortSignal) => Promise<T>, options: UseResourceOptions, setState: SetChangedState<ResourceState<T>>): Resource<T>['reload'] {
  const fetchRef = useRef(fetcher);
  fetchRef.current = fetcher;
  const optsRef = useRef(options);
  optsRef.current = options;
  const controllerRef = useRef<AbortController | undefined>(undefined);
  const enabled = options.enabled ?? true;

  // The JSON of the data held, made on a quiet reload's first comparison (undefined: not made yet).
  const heldJson = useRef<{ readonly data: unknown; readonly json: string } | undefined>(undefined);
  const reload = useCallback(
    async (options?: ReloadOptions): Promise<boolean> => {
      controllerRef.current?.abort();
      const controller = new AbortController();
      controllerRef.current = controller;
      const quiet = options?.quiet === true;
      if (!quiet) setState((s) => (s.loading ? s : { ...s, loading: true }));
      try {
        const data = await fetchRef.current(controller.signal);
        if (controller.signal.aborted) return false;
        if (quiet) {
          const json = JSON.stringify(data);
          // The same state back when nothing changed: no update, so no render.
          setState((s) => {
            if (s.data === undefined || s.error !== undefined || s.loading) return { data, updatedAt: Date.now(), loading: false };
            const before = heldJson.current?.data === s.data ? heldJson.current.json : JSON.stringify(s.data);
            heldJson.current = { data: s.data, json: before };
            return json === before ? s : { data, updatedAt: Date.now(), loading: false };
          });
        } else setState({ data, updatedAt: Date.now(), loading: false });
        optsRef.current.onSuccess?.();
        return true;
      } catch (error) {
        if (controller.signal.aborted || isAbortError(error)) return false;
        setState((s) => ({ ...s, error, loading: false }));
        optsRef.current.onError?.(error);
        return false;
      } finally {
        if (controllerRef.current === controller) controllerRef.current = undefined;
      }
    },
    [setState],
  );

  useEffect(() => {
    if (!enabled) return;
    setState({ loading: false });
    void reload();
    return () => {
      controllerRef.current?.abort();
      controllerRef.current = undefined;
    };
  }, [enabled, options.key, reload, setState]);

  return reload;
}
