/**
 * The steps of the guided first-time setup and the pure checks of its inputs. Secrets (the
 * session token, the new mk_) never live in these step values except the one-time `reveal`.
 */
import { baseUrlProblem as urlProblem } from '../../api/baseUrl.js';
import { consumptionKeyRefusal, tokenKind } from '../../credentials/token.js';

/** A step of the setup. */
export type SetupStep =
  | { step: 'where'; error?: string }
  | { step: 'token'; error?: string }
  | { step: 'verifying' }
  | { step: 'name'; error?: string }
  | { step: 'creating' }
  | { step: 'reveal'; name: string; keyPrefix: string; apiKey: string }
  | { step: 'storing' }
  /** `beforeCreate`: asked before a management key is created (nothing exists yet to store or delete). */
  | { step: 'storage-choice'; reason: string; beforeCreate?: boolean }
  | { step: 'finishing' };

/** Why `value` is not a usable service URL in the setup's words, or undefined (src/api/baseUrl.ts rules). */
export function baseUrlProblem(value: string): string | undefined {
  if (value.trim() === '') return 'type the service’s address, e.g. https://api.cheapestinference.com';
  const problem = urlProblem(value);
  return problem && `the address ${problem}`;
}

/**
 * Why `value` cannot be keydeck's credential, or undefined. Empty is accepted when a demo
 * token is on offer (enter takes it). An `sk_` is refused: it authorizes inference only.
 */
export function tokenProblem(value: string, demoOffered: boolean): string | undefined {
  const v = value.trim();
  if (v === '') return demoOffered ? undefined : 'paste a session token or a management key (mk_…)';
  if (/\s/.test(v)) return 'the token contains spaces or line breaks: paste only the token itself';
  if (tokenKind(v) === 'consumption') return consumptionKeyRefusal('this');
  return undefined;
}
