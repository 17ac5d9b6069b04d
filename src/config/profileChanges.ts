/**
 * The one question every change a face makes on a profile's account asks first: may this profile
 * change? `keydeck apply` asks it before its first change, `exporter --enforce` before each
 * guardrail pass. A read-only profile refuses here, with one sentence; today every profile may
 * change, and this is where the check of a read-only profile goes.
 */
import type { ResolvedProfile } from './profile.js';

/**
 * Why `profile` may not make `what` (`apply the policy file`, `act on guardrails`), in one
 * sentence; undefined when it may.
 */
export function changeRefusal(profile: Pick<ResolvedProfile, 'name'>, what: string): string | undefined {
  void profile;
  void what;
  return undefined;
}
