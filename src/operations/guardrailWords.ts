/**
 * What a guardrail's notices (./events.ts GuardrailNotice) say, as phrases the wording table
 * (./wording.ts) makes each face's: it adds the command or key that undoes or finishes a change.
 * Names come raw (each face sanitises the line it writes). Amounts to the cent, cut.
 */
import { formatUsd } from '../api/money.js';
import type { GuardrailNotice } from './events.js';

const usd = (n: number | undefined) => (n === undefined ? '?' : formatUsd(n));
/** `2026-06-02 00:00 UTC`. */
export const utcWords = (iso: string | undefined) => (iso === undefined ? 'later' : `${iso.slice(0, 16).replace('T', ' ')} UTC`);
/** `today`, `this week`, `this month`. */
export const periodPhrase = (p: GuardrailNotice['period']) => (p === 'week' ? 'this week' : p === 'month' ? 'this month' : 'today');

/** The budget's figures: `$6.00 of its $5.00 budget today`. */
function spent(n: GuardrailNotice): string {
  return `${usd(n.spentUsd)} of its ${usd(n.limitUsd)} budget ${periodPhrase(n.period)}`;
}

/** The deadline's words: `is older than its maxAge` / `expires by its rule`. */
function deadline(n: GuardrailNotice, passed: boolean): string {
  if (n.rule === 'age') return passed ? `is older than its maxAge (since ${utcWords(n.until)})` : `passes its maxAge on ${utcWords(n.until)}`;
  return passed ? `expired by its rule (expiresIn) on ${utcWords(n.until)}` : `expires by its rule (expiresIn) on ${utcWords(n.until)}`;
}

/** The phrase of `n` (see the module comment), without the next step. */
export function guardrailPhrase(n: GuardrailNotice): string {
  const key = `"${n.key.name}"`;
  switch (n.what) {
    case 'threshold':
      return `${key} has spent ${spent(n)} (${Math.round((n.threshold ?? 0) * 100)} % reached)${n.overshootUsd !== undefined ? `; up to ${usd(n.overshootUsd)} more before the next usage read` : ''}`;
    case 'limit':
      return `${key} reached its limit: ${spent(n)}; its guardrail only warns (action warn)`;
    case 'flagged':
      return `${key} ${deadline(n, true)}: flagged, nothing changed (onMaxAge flag, or no destination to rotate it to)`;
    case 'warning':
      return `${key} ${deadline(n, false)}: it will be ${n.action === 'disable' ? 'disabled' : n.action === 'rotate' ? 'rotated' : 'flagged'} then`;
    case 'disabled':
      return n.rule === 'budget'
        ? `disabled ${key}: it spent ${spent(n)}; ${n.until !== undefined ? `it comes back at ${utcWords(n.until)}` : 'it stays disabled'}`
        : `disabled ${key}: it ${deadline(n, true)}`;
    case 'enabled':
      return `re-enabled ${key}: a new period began (its budget of ${usd(n.limitUsd)} counts again from 0)`;
    case 'overridden':
      return `${key} was enabled again by hand: its guardrail leaves it alone until ${utcWords(n.until)}`;
    case 'rotated':
      return `rotated ${key} (${n.rule === 'age' ? `older than its maxAge since ${utcWords(n.until)}` : `it spent ${spent(n)}`}): its successor "${n.successor ?? n.key.name}" is in place, the old key deactivated`;
    case 'rotate_failed':
      return `the rotation of ${key} did not reach every destination: the old key still works, and the rotation stays recorded`;
    case 'no_destination':
      return `${key} was to be rotated, but keydeck knows no destination for its successor: ${n.action === 'disable' ? 'it is disabled instead' : 'flagged instead'}`;
  }
}
