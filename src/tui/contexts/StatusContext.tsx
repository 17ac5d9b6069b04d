/**
 * The status line's transient message: set by any action's outcome, cleared by itself after a
 * few seconds. State and the `flash` action are published through separate contexts.
 */
import { createContext, useContext, useEffect, useMemo, useState, type ReactNode } from 'react';
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
}

/** Shows `text` on the status line for `ms` (default 6 000; errors 10 000); returns the message id. */
export type Flash = (text: string, tone?: StatusTone, ms?: number) => number;

/** Clears the message `id` if it is still the one shown. */
export type ClearFlash = (id: number) => void;

const StatusStateContext = createContext<StatusMessage | undefined>(undefined);
const StatusActionsContext = createContext<Flash>(() => 0);
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

  const flash = useMemo<Flash>(
    () => (text, tone = 'info', ms) => {
      const id = ++nextId;
      // Messages quote names and the service's words: sanitised here, once for every caller.
      setMessage({ text: visible(text), tone, id, ms: ms ?? (tone === 'error' ? 10_000 : 6_000) });
      return id;
    },
    [],
  );
  const clear = useMemo<ClearFlash>(() => (id) => setMessage((m) => (m?.id === id ? undefined : m)), []);

  return (
    <StatusActionsContext.Provider value={flash}>
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

/** The `flash` action (stable identity). */
export function useFlash(): Flash {
  return useContext(StatusActionsContext);
}

/** The `clear` action (stable identity). */
export function useClearFlash(): ClearFlash {
  return useContext(StatusClearContext);
}
