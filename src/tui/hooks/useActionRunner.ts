/**
 * Runs one user action against the service at a time: says what is happening on the status
 * line, reports failures in one sentence (a 401 also marks the session rejected), and exposes
 * `busy` so the pane ignores keys meanwhile. Mutations are never retried (the client does not
 * retry POST/PUT/DELETE; an `outcomeUnknown` failure says so in its sentence). An action is never
 * cut short by the app's end: it is handed over to the services' `waitUntil`.
 */
import { useCallback, useRef, useState } from 'react';
import { useServices } from '../contexts/ServicesContext.js';
import { useSessionActions } from '../contexts/SessionContext.js';
import { useClearFlash, useFlash } from '../contexts/StatusContext.js';
import { describeFailure, isUnauthorized } from '../errors.js';

/** Outcome of {@link ActionRunner.run}. */
export type ActionResult<T> = { ok: true; value: T } | { ok: false; error: unknown };

/** What {@link useActionRunner} returns. */
export interface ActionRunner {
  /** What is in progress ("creating the key"), or undefined. */
  readonly busy: string | undefined;
  /**
   * Runs `fn` with `label` shown meanwhile. On failure the error's sentence is flashed (unless
   * `quiet`) and returned; never throws. Refuses (ok: false) while another action runs.
   */
  readonly run: <T>(label: string, fn: () => Promise<T>, options?: { quiet?: boolean }) => Promise<ActionResult<T>>;
}

/** See the module comment. */
export function useActionRunner(): ActionRunner {
  const flash = useFlash();
  const clearFlash = useClearFlash();
  const { markRejected } = useSessionActions();
  const { waitUntil } = useServices();
  const [busy, setBusy] = useState<string | undefined>(undefined);
  const running = useRef(false);
  const run = useCallback(
    async <T>(label: string, fn: () => Promise<T>, options: { quiet?: boolean } = {}): Promise<ActionResult<T>> => {
      if (running.current) return { ok: false, error: new Error('another action is in progress') };
      running.current = true;
      setBusy(label);
      const progress = flash(`${label}…`, 'info', 60_000);
      try {
        const value = await waitUntil(fn());
        clearFlash(progress);
        return { ok: true, value };
      } catch (error) {
        clearFlash(progress);
        if (isUnauthorized(error)) markRejected();
        if (!options.quiet) flash(describeFailure(error), 'error');
        return { ok: false, error };
      } finally {
        running.current = false;
        setBusy(undefined);
      }
    },
    [flash, clearFlash, markRejected, waitUntil],
  );
  return { busy, run };
}
