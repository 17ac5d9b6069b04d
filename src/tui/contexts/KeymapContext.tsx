/**
 * The app's one input layer, driven by the key-action table (keymap.ts). One `useInput` and one
 * `usePaste` here receive everything the terminal sends: each chunk becomes key events
 * (input/keyEvents.ts) that are handled one by one, in order, each after React has committed the
 * screen state left by the one before (so `jjj` in one write is three moves, and `/ab` opens the
 * filter and types `ab` into it). Bracketed paste is on while the app runs (Ink turns it off
 * again on exit); a paste goes whole into the focused text field, never to key actions.
 *
 * Components bind handlers to the table's actions for a scope with {@link useKeymap}: ctrl-c
 * always quits; while a modal scope (a dialog, the overlay, a setup step) is bound only the most
 * recent one gets keys (but `?` on a page of its own, the top-up walk-through or the pools view,
 * opens the key overlay there: {@link HELP_PAGES}); otherwise the pane's scope, then `list`, then `global`. A scope bound
 * with `textEntry` gives typing and editing keys to the focused text field ({@link useTextSink},
 * components/TextField.tsx). {@link useActiveActions} gives the hint bar exactly the actions
 * that work right now.
 */
import { createContext, useCallback, useContext, useEffect, useId, useLayoutEffect, useMemo, useRef, useState, type ReactNode } from 'react';
import { useInput, usePaste } from 'ink';
import { KEY_ACTIONS, type KeyActionDef, type KeyName, type Scope } from '../keymap.js';
import { isTextEntryKey, keyEventsOf, type KeyEvent } from '../input/keyEvents.js';

/** A bound handler. */
export type KeyHandler = () => void;

/** Handlers by action id; an undefined handler leaves the action inactive and hidden. */
export type KeyHandlers = Partial<Record<string, KeyHandler | undefined>>;

/** Options of {@link useKeymap}. */
export interface UseKeymapOptions {
  /** Default true. False unbinds the scope (e.g. a pane hidden behind a dialog). */
  readonly active?: boolean;
  /** A dialog-like scope: while bound, it alone receives keys (besides ctrl-c). */
  readonly modal?: boolean;
  /** A text field is focused: printable and editing keys go to the field, not to actions. */
  readonly textEntry?: boolean;
}

interface Registration {
  readonly scope: Scope;
  readonly modal: boolean;
  readonly textEntry: boolean;
  readonly order: number;
  handlers: KeyHandlers;
  /** The bound action ids the hint bar was last told about ({@link boundIds}). */
  boundKey?: string;
}

/** An action that works right now, with its handler. */
export interface ActiveAction extends KeyActionDef {
  readonly handler: KeyHandler;
}

/** A focused text field, as the input layer sees it. */
export interface TextSink {
  /** Applies a typing or editing key. */
  readonly key: (event: KeyEvent) => void;
  /** Inserts pasted text whole. */
  readonly paste: (text: string) => void;
}

/** What the input layer hands over, one at a time. */
type InputItem = { readonly event: KeyEvent } | { readonly paste: string };

/** Modal scopes that are pages of their own, where `?` opens the key overlay (at their keys). */
const HELP_PAGES: ReadonlySet<Scope> = new Set(['topup', 'pools']);

interface Registry {
  /** The page `?` was pressed on (a scope of {@link HELP_PAGES}), while its handler runs. */
  readonly helpPage: () => Scope | undefined;
  readonly set: (id: string, reg: Registration | undefined) => void;
  readonly setSink: (id: string, sink: { readonly sink: TextSink; readonly order: number } | undefined) => void;
  readonly update: (id: string, handlers: KeyHandlers) => void;
  /** Gives a registration this render's handlers at once (no re-render asked). */
  readonly refresh: (id: string, handlers: KeyHandlers) => void;
  readonly nextOrder: () => number;
  readonly active: () => ActiveAction[];
  readonly quit: () => void;
  readonly interrupt: () => void;
}

/** Stable registry functions (consumers never re-render because of it). */
const RegistryContext = createContext<Registry | undefined>(undefined);
/** Bumped when the set of bound actions changes: only the hint bar and overlay read it. */
const VersionContext = createContext(0);

const SCOPE_RANK: Partial<Record<Scope, number>> = { list: 1, global: 2 };

/** The ids of `actions`, in order: what the hint bar draws of them. */
function actionIds(actions: readonly ActiveAction[]): string {
  return actions.map((a) => a.id).join(',');
}

function boundIds(handlers: KeyHandlers): string {
  return Object.keys(handlers)
    .filter((k) => handlers[k])
    .sort()
    .join(',');
}

/** Props of {@link KeymapProvider}. */
export interface KeymapProviderProps {
  /** Called for `q` (and {@link useQuit}): leave normally (exit 0). */
  readonly onQuit: () => void;
  /**
   * Called for ctrl-c wherever the user is (exit 130, as shells expect); default `onQuit`. A
   * modal scope may claim ctrl-c first by binding a row of its own with the key `ctrl-c` (the
   * one-time reveal asks before a key that was never copied is lost).
   */
  readonly onInterrupt?: () => void;
  readonly children?: ReactNode;
}

/** Owns the registry and the single input dispatcher of the app. */
export function KeymapProvider({ onQuit, onInterrupt, children }: KeymapProviderProps) {
  const regs = useRef(new Map<string, Registration>());
  const sinks = useRef(new Map<string, { readonly sink: TextSink; readonly order: number }>());
  const order = useRef(0);
  const [version, setVersion] = useState(0);
  const quitRef = useRef(onQuit);
  quitRef.current = onQuit;
  const interruptRef = useRef(onInterrupt ?? onQuit);
  interruptRef.current = onInterrupt ?? onQuit;

  const helpPageRef = useRef<Scope | undefined>(undefined);
  // The actions the hint bar last drew (their ids, in order): a registration that changes none of
  // them asks for no render (each React commit is a whole frame drawn again by Ink).
  const drawn = useRef<string | undefined>(undefined);
  const activeNow = useCallback((): ActiveAction[] => {
    const out: ActiveAction[] = [];
    const chosen = chooseRegistrations([...regs.current.values()]);
    for (const reg of chosen) {
      for (const def of KEY_ACTIONS) {
        if (def.scope !== reg.scope) continue;
        const handler = reg.handlers[def.id];
        if (handler) out.push({ ...def, handler });
      }
    }
    const help = pageHelp(chosen, [...regs.current.values()]);
    if (help && !out.some((a) => a.keys.includes('?'))) out.unshift({ ...KEY_ACTIONS.find((a) => a.id === 'help')!, handler: help });
    return out;
  }, []);
  const active = useCallback((): ActiveAction[] => {
    const out = activeNow();
    drawn.current = actionIds(out);
    return out;
  }, [activeNow]);
  const redrawHints = useCallback(() => {
    if (drawn.current === undefined || actionIds(activeNow()) !== drawn.current) setVersion((v) => v + 1);
  }, [activeNow]);

  const registry = useMemo<Registry>(
    () => ({
      helpPage: () => helpPageRef.current,
      set: (id, reg) => {
        if (reg) regs.current.set(id, reg);
        else regs.current.delete(id);
        redrawHints();
      },
      update: (id, handlers) => {
        const reg = regs.current.get(id);
        if (!reg) return;
        reg.handlers = handlers;
        const key = boundIds(handlers);
        if (reg.boundKey === undefined) reg.boundKey = key;
        else if (key !== reg.boundKey) {
          reg.boundKey = key;
          redrawHints();
        }
      },
      refresh: (id, handlers) => {
        const reg = regs.current.get(id);
        if (reg) reg.handlers = handlers;
      },
      setSink: (id, sink) => {
        if (sink) sinks.current.set(id, sink);
        else sinks.current.delete(id);
      },
      nextOrder: () => ++order.current,
      active,
      quit: () => quitRef.current(),
      interrupt: () => interruptRef.current(),
    }),
    [active, redrawHints],
  );

  /** Hands one key or paste to whoever has the keyboard now. */
  const dispatch = (item: InputItem): void => {
    const chosen = chooseRegistrations([...regs.current.values()]);
    if ('event' in item && item.event.name === 'ctrl-c') {
      const modal = chosen.length === 1 && chosen[0]!.modal ? chosen[0] : undefined;
      const claimed = modal ? findHandler(modal, 'ctrl-c') : undefined;
      if (claimed) claimed();
      else interruptRef.current();
      return;
    }
    const sink = topSink(sinks.current);
    if ('paste' in item) {
      if (sink && chosen.some((r) => r.textEntry)) sink.paste(item.paste);
      return;
    }
    for (const reg of chosen) {
      if (reg.textEntry && isTextEntryKey(item.event)) {
        sink?.key(item.event);
        return;
      }
      const handler = findHandler(reg, item.event.name);
      if (handler) {
        handler();
        return;
      }
    }
    const help = item.event.name === '?' ? pageHelp(chosen, [...regs.current.values()]) : undefined;
    if (help) {
      helpPageRef.current = chosen[0]!.scope;
      try {
        help();
      } finally {
        helpPageRef.current = undefined;
      }
    }
  };

  // Items not yet handled. One is handled at once when nothing is in flight; each further one only
  // after React has committed what the one before did, so it meets the dialog, field, selection
  // or sort that key left behind. "Committed" is observed, not assumed: each dispatch also bumps
  // `handled`, a state update in the same batch as the handler's own, and the effect below (run
  // after that commit, once the effects of the components under this provider have run) lets the
  // next item go a macrotask later. A setImmediate alone was not enough: outside Ink's input event
  // React renders in a Scheduler task, which under load can come after the next setImmediate (a
  // key then acted on the state before the last one: two `s` presses, one sort step).
  const queue = useRef<InputItem[]>([]);
  const pending = useRef<NodeJS.Immediate | undefined>(undefined);
  const inFlight = useRef(false);
  const [handled, setHandled] = useState(0);
  const drainRef = useRef<() => void>(() => {});
  drainRef.current = () => {
    const item = queue.current.shift();
    if (!item) return;
    inFlight.current = true;
    setHandled((n) => n + 1);
    dispatch(item);
  };
  useEffect(() => {
    if (!inFlight.current) return;
    inFlight.current = false;
    if (queue.current.length > 0 && pending.current === undefined) {
      pending.current = setImmediate(() => {
        pending.current = undefined;
        drainRef.current();
      });
    }
  }, [handled]);
  const enqueue = (items: readonly InputItem[]): void => {
    if (items.length === 0) return;
    queue.current.push(...items);
    if (!inFlight.current && pending.current === undefined) drainRef.current();
  };
  useEffect(
    () => () => {
      if (pending.current !== undefined) clearImmediate(pending.current);
      pending.current = undefined;
      queue.current = [];
    },
    [],
  );

  useInput((input, key) => {
    enqueue(keyEventsOf(input, key).map((event) => ({ event })));
  });
  usePaste((text) => {
    enqueue([{ paste: text }]);
  });

  return (
    <RegistryContext.Provider value={registry}>
      <VersionContext.Provider value={version}>{children}</VersionContext.Provider>
    </RegistryContext.Provider>
  );
}

/**
 * The registrations that get keys, in order: the "too small" notice alone; else the most
 * recent modal alone; else every non-modal one, pane scopes before `list` before `global`.
 */
function chooseRegistrations(all: Registration[]): Registration[] {
  const small = all.find((r) => r.scope === 'tooSmall');
  if (small) return [small];
  const modal = all.filter((r) => r.modal).sort((a, b) => b.order - a.order)[0];
  if (modal) return [modal];
  return all.filter((r) => !r.modal).sort((a, b) => (SCOPE_RANK[a.scope] ?? 0) - (SCOPE_RANK[b.scope] ?? 0));
}

/** The overlay's handler (the global `help`) when `chosen` is a page of {@link HELP_PAGES} alone, not being typed in. */
function pageHelp(chosen: readonly Registration[], all: readonly Registration[]): KeyHandler | undefined {
  const page = chosen.length === 1 && chosen[0]!.modal && !chosen[0]!.textEntry && HELP_PAGES.has(chosen[0]!.scope) ? chosen[0] : undefined;
  return page ? all.find((r) => r.scope === 'global' && !r.modal && r.handlers.help)?.handlers.help : undefined;
}

function topSink(all: ReadonlyMap<string, { readonly sink: TextSink; readonly order: number }>): TextSink | undefined {
  let top: { readonly sink: TextSink; readonly order: number } | undefined;
  for (const s of all.values()) if (!top || s.order > top.order) top = s;
  return top?.sink;
}

function findHandler(reg: Registration, name: KeyName): KeyHandler | undefined {
  for (const def of KEY_ACTIONS) {
    if (def.scope !== reg.scope || !def.keys.includes(name)) continue;
    const handler = reg.handlers[def.id];
    if (handler) return handler;
  }
  return undefined;
}

function useRegistry(): Registry {
  const registry = useContext(RegistryContext);
  if (!registry) throw new Error('useKeymap needs a <KeymapProvider> above it');
  return registry;
}

/**
 * Binds `handlers` (by action id of keymap.ts) for `scope` while the calling component is
 * mounted and `options.active` is not false. Handlers may be new closures on every render.
 */
export function useKeymap(scope: Scope, handlers: KeyHandlers, options: UseKeymapOptions = {}): void {
  const registry = useRegistry();
  const id = useId();
  const active = options.active ?? true;
  const modal = options.modal ?? false;
  const textEntry = options.textEntry ?? false;
  const handlersRef = useRef(handlers);
  handlersRef.current = handlers;

  useLayoutEffect(() => {
    if (!active) return;
    registry.set(id, { scope, modal, textEntry, order: registry.nextOrder(), handlers: handlersRef.current, boundKey: boundIds(handlersRef.current) });
    return () => registry.set(id, undefined);
  }, [registry, active, scope, modal, textEntry, id]);

  // The registration gets this render's handlers at once, so what renders after this component in
  // the same pass (the hint bar) already shows them; the layout effect then asks the hint bar to
  // render again when the set of bound actions changed.
  if (active) registry.refresh(id, handlers);
  useLayoutEffect(() => {
    if (active) registry.update(id, handlers);
  });
}

/**
 * Makes `sink` the focused text field while the calling component is mounted and `active` is
 * not false (the most recently mounted field wins). It gets keys only while a scope bound with
 * `textEntry` is the one that has the keyboard. `sink` may be a new object on every render.
 */
export function useTextSink(sink: TextSink, active = true): void {
  const registry = useRegistry();
  const id = useId();
  const sinkRef = useRef(sink);
  sinkRef.current = sink;
  useLayoutEffect(() => {
    if (!active) return;
    registry.setSink(id, {
      sink: { key: (e) => sinkRef.current.key(e), paste: (t) => sinkRef.current.paste(t) },
      order: registry.nextOrder(),
    });
    return () => registry.setSink(id, undefined);
  }, [registry, active, id]);
}

/** The page `?` is being pressed on (the top-up walk-through, the pools view), read by the overlay's handler to open at its keys. */
export function useHelpPage(): () => Scope | undefined {
  return useRegistry().helpPage;
}

/** The actions that work right now (the hint bar's content), re-rendering when they change. */
export function useActiveActions(): ActiveAction[] {
  const registry = useRegistry();
  // Re-rendered when the version changes; read on every render (the handlers may be newer than the version).
  useContext(VersionContext);
  return registry.active();
}

/** Asks the app to quit (the same path as `q`: exit 0). */
export function useQuit(): () => void {
  return useRegistry().quit;
}

/** Asks the app to end as ctrl-c does (exit 130), past any modal's claim on ctrl-c. */
export function useInterrupt(): () => void {
  return useRegistry().interrupt;
}
