/**
 * The status line's transient message: set by any action's outcome, cleared by itself after a
 * few seconds. State and the `flash` action are published through separate contexts.
 *
 * A message belongs to its screen: a message is owned by the component that flashed
 * it (a dialog, a setup step, the shell) and is cleared when that component closes; a component
 * that is gone posts nothing (a late answer never reaches another screen); switching panes clears
 * the message ({@link useClearStatus}).
 */
import { createContext, useContext, useEffect, useMemo, useRef, useState, type ReactNode } from 'react';
import { clampTimerMs } from '../../api/retry.js';
import { visible } from '../../terminal/sanitize.js';

/** Tone of a message; each is shown with a word or symbol, never colour alone. */
export type StatusTone = 'info' | 'ok' | 'warning' | 'error';

/** One status message. */
export interface StatusMessage {
  readonly text: string;
  readonly tone: StatusTone;
  /** Monotonic id (a repeated text still restarts its timer). */
  readonly id: number;
  /** The component that flashed it (cleared when that one unmounts); none: kept until its timer. */
  readonly owner?: object;
}

/** Shows `text` on the status line for `ms` (default 6 000; errors 10 000); returns the message id. */
export type Flash = (text: string, tone?: StatusTone, ms?: number) => number;

/** Clears the message `id` if it is still the one shown. */
export type ClearFlash = (id: number) => void;

/** The provider's raw actions: flash with an owner, clear an owner's message, clear any. */
interface StatusActions {
  readonly flash: (text: string, tone: StatusTone | undefined, ms: number | undefined, owner: object | undefined) => number;
  readonly release: (owner: object) => void;
  readonly clearAll: () => void;
}

const StatusStateContext = createContext<StatusMessage | undefined>(undefined);
const StatusActionsContext = createContext<StatusActions>({ flash: () => 0, release: () => {}, clearAll: () => {} });
const StatusClearContext = createContext<ClearFlash>(() => {});

let nextId = 0;

/** Owns the status message and its clearing timer. */
export function StatusProvider({ children }: { readonly children?: ReactNode }) {
  const [message, setMessage] = useState<(StatusMessage & { ms: number }) | undefined>(undefined);

  useEffect(() => {
    if (!message) return;
    const timer = setTimeout(() => setMessage((m) => (m?.id === message.id ? undefined : m)), clampTimerMs(message.ms));
    return () => clearTimeout(timer);
  }, [message]);

  const actions = useMemo<StatusActions>(
    () => ({
      flash: (text, tone = 'info', ms, owner) => {
        const id = ++nextId;
        // Messages quote names and the service's words: sanitised here, once for every caller.
        setMessage({ text: visible(text), tone, id, ms: ms ?? (tone === 'error' ? 10_000 : 6_000), ...(owner && { owner }) });
        return id;
      },
      release: (owner) => setMessage((m) => (m?.owner === owner ? undefined : m)),
      clearAll: () => setMessage(undefined),
    }),
    [],
  );
  const clear = useMemo<ClearFlash>(() => (id) => setMessage((m) => (m?.id === id ? undefined : m)), []);

  return (
    <StatusActionsContext.Provider value={actions}>
      <StatusClearContext.Provider value={clear}>
        <StatusStateContext.Provider value={message}>{children}</StatusStateContext.Provider>
      </StatusClearContext.Provider>
    </StatusActionsContext.Provider>
  );
}

/** The current status message, if any. */
export function useStatusMessage(): StatusMessage | undefined {
  return useContext(StatusStateContext);
}

/**
 * The `flash` action of the calling component (stable identity). Its messages are cleared when
 * the component unmounts, and it posts nothing once unmounted; `{ owned: false }` (a flow whose
 * outcome is shown on the screen that follows it, as the setup's "setup done") keeps them.
 */
export function useFlash(options: { readonly owned?: boolean } = {}): Flash {
  const actions = useContext(StatusActionsContext);
  const owned = options.owned ?? true;
  const owner = useRef<object>({});
  const alive = useRef(true);
  useEffect(() => {
    alive.current = true;
    const me = owner.current;
    return () => {
      alive.current = false;
      if (owned) actions.release(me);
    };
  }, [actions, owned]);
  return useMemo<Flash>(() => (text, tone, ms) => (alive.current ? actions.flash(text, tone, ms, owned ? owner.current : undefined) : 0), [actions, owned]);
}

/**
 * A `flash` whose message outlives its caller: posted even after the calling component unmounted,
 * owned by no one (kept until its timer). For the outcome of something the user already finished
 * and left: the one-time reveal's clipboard clearing, which ends after the dialog has closed.
 */
export function useLastingFlash(): Flash {
  const actions = useContext(StatusActionsContext);
  return useMemo<Flash>(() => (text, tone, ms) => actions.flash(text, tone, ms, undefined), [actions]);
}

/** Clears whatever message is shown (a pane switch: the message belonged to the pane left). */
export function useClearStatus(): () => void {
  return useContext(StatusActionsContext).clearAll;
}

/** The `clear` action (stable identity). */
export function useClearFlash(): ClearFlash {
  return useContext(StatusClearContext);
}
