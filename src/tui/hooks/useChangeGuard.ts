/**
 * The TUI's half of the one read-only check (src/config/profileMarks.ts): every action that
 * changes the account (create, rename, on/off, delete, rotate, top-up, verify, cancel, the runaway
 * alert's deactivation) asks {@link ChangeGuard.allows} at its key, before any dialog opens. On a
 * read-only profile the answer is no, and the status line says why in one sentence; nothing is
 * asked and nothing is sent. (The clients of a read-only profile refuse every change before
 * sending too: the last line, src/api/core.ts.)
 */
import { useCallback, useMemo } from 'react';
import { readOnlyRefusal } from '../../config/profileMarks.js';
import { useServices } from '../contexts/ServicesContext.js';
import { useFlash } from '../contexts/StatusContext.js';

/** What {@link useChangeGuard} returns. */
export interface ChangeGuard {
  /** Why the profile is read-only (a clause), or undefined when changes are allowed. */
  readonly readOnly: string | undefined;
  /** True when the profile is marked `protected`: a delete or a deactivation asks for the key's name typed. */
  readonly protected: boolean;
  /**
   * True when `action` (an infinitive: `delete a key`) may go ahead; false on a read-only profile,
   * after the status line said why.
   */
  readonly allows: (action: string) => boolean;
}

/** See the module comment. */
export function useChangeGuard(): ChangeGuard {
  const { profile } = useServices();
  const flash = useFlash({ owned: false });
  const readOnly = profile.readOnly;
  const allows = useCallback(
    (action: string) => {
      if (readOnly === undefined) return true;
      const sentence = readOnlyRefusal(readOnly, action);
      flash(`${sentence[0]!.toUpperCase()}${sentence.slice(1)}.`, 'warning', 10_000);
      return false;
    },
    [readOnly, flash],
  );
  return useMemo(() => ({ readOnly, protected: profile.protected === true, allows }), [readOnly, profile.protected, allows]);
}

/**
 * `handler` behind the guard: undefined stays undefined (the action is not offered), otherwise the
 * key first asks `guard.allows(action)`.
 */
export function guarded<A extends unknown[]>(guard: ChangeGuard, action: string, handler: ((...args: A) => void) | undefined): ((...args: A) => void) | undefined {
  return handler === undefined ? undefined : (...args: A) => (guard.allows(action) ? handler(...args) : undefined);
}
