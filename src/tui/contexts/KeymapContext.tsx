/**
 * Input dispatch driven by the key-action table (keymap.ts). Components bind handlers to the
 * table's actions for a scope with {@link useKeymap}; one `useInput` here routes every key:
 * ctrl-c always quits; while a modal scope (a dialog, the overlay, a setup step) is bound only
 * the most recent one gets keys; otherwise the pane's scope, then `list`, then `global`.
 * {@link useActiveActions} gives the hint bar exactly the actions that work right now.
 */
import { createContext, useCallback, useContext, useId, useLayoutEffect, useMemo, useRef, useState, type ReactNode } from 'react';
import { useInput } from 'ink';
import { KEY_ACTIONS, isTextEntryKey, keyNameOf, type KeyActionDef, type KeyName, type Scope } from '../keymap.js';

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
}

/** An action that works right now, with its handler. */
export interface ActiveAction extends KeyActionDef {
  readonly handler: KeyHandler;
}

interface Registry {
  readonly set: (id: string, reg: Registration | undefined) => void;
  readonly update: (id: string, handlers: KeyHandlers) => void;
  readonly nextOrder: () => number;
  readonly active: () => ActiveAction[];
  readonly quit: () => void;
}

/** Stable registry functions (consumers never re-render because of it). */
const RegistryContext = createContext<Registry | undefined>(undefined);
/** Bumped when the set of bound actions changes: only the hint bar and overlay read it. */
const VersionContext = createContext(0);

const SCOPE_RANK: Partial<Record<Scope, number>> = { list: 1, global: 2 };

function boundIds(handlers: KeyHandlers): string {
  return Object.keys(handlers)
    .filter((k) => handlers[k])
    .sort()
    .join(',');
}

/** Props of {@link KeymapProvider}. */
export interface KeymapProviderProps {
  /** Called for ctrl-c wherever the user is. */
  readonly onQuit: () => void;
  readonly children?: ReactNode;
}

/** Owns the registry and the single input dispatcher of the app. */
export function KeymapProvider({ onQuit, children }: KeymapProviderProps) {
  const regs = useRef(new Map<string, Registration>());
  const order = useRef(0);
  const [version, setVersion] = useState(0);
  const quitRef = useRef(onQuit);
  quitRef.current = onQuit;

  const active = useCallback((): ActiveAction[] => {
    const out: ActiveAction[] = [];
    for (const reg of chooseRegistrations([...regs.current.values()])) {
      for (const def of KEY_ACTIONS) {
        if (def.scope !== reg.scope) continue;
        const handler = reg.handlers[def.id];
        if (handler) out.push({ ...def, handler });
      }
    }
    return out;
  }, []);

  const registry = useMemo<Registry>(
    () => ({
      set: (id, reg) => {
        if (reg) regs.current.set(id, reg);
        else regs.current.delete(id);
        setVersion((v) => v + 1);
      },
      update: (id, handlers) => {
        const reg = regs.current.get(id);
        if (!reg) return;
        const changed = boundIds(reg.handlers) !== boundIds(handlers);
        reg.handlers = handlers;
        if (changed) setVersion((v) => v + 1);
      },
      nextOrder: () => ++order.current,
      active,
      quit: () => quitRef.current(),
    }),
    [active],
  );

  useInput((input, key) => {
    const name = keyNameOf(input, key);
    if (name === undefined) return;
    if (name === 'ctrl-c') {
      quitRef.current();
      return;
    }
    for (const reg of chooseRegistrations([...regs.current.values()])) {
      if (reg.textEntry && isTextEntryKey(name)) return;
      const handler = findHandler(reg, name);
      if (handler) {
        handler();
        return;
      }
    }
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
    registry.set(id, { scope, modal, textEntry, order: registry.nextOrder(), handlers: handlersRef.current });
    return () => registry.set(id, undefined);
  }, [registry, active, scope, modal, textEntry, id]);

  useLayoutEffect(() => {
    if (active) registry.update(id, handlers);
  });
}

/** The actions that work right now (the hint bar's content), re-rendering when they change. */
export function useActiveActions(): ActiveAction[] {
  const registry = useRegistry();
  const version = useContext(VersionContext);
  // eslint-disable-next-line react-hooks/exhaustive-deps -- recomputed when the version changes
  return useMemo(() => registry.active(), [version, registry]);
}

/** Asks the app to quit (the same path as ctrl-c). */
export function useQuit(): () => void {
  return useRegistry().quit;
}
