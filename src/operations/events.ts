/**
 * What the kit's machines (./kit.ts) tell the faces, as data: the events a drive emits while it
 * runs (progress, warnings, what each step did) and the failures it ends with (a stable `code`
 * and the facts a sentence needs). No sentence is built here or in a machine: each face words
 * them through the one wording table of the operations (./wording.ts), in its own way where the
 * faces differ (a command names `keydeck keys delete ID`, the TUI the Keys pane's `d`).
 *
 * Types only: the machines, the wording table and the faces import them.
 */
import type { DeliveryOutcome } from '../delivery/deliver.js';
import type { Destination } from '../delivery/destinations.js';

/** Which operation an event or a failure is about. */
export type OperationKind = 'create' | 'pledge' | 'rotate' | 'mgmt-rotate' | 'guardrail' | 'autotopup' | 'topup' | 'verify';

/** A key as events name it (never its value). */
export interface KeyRef {
  readonly id?: string | undefined;
  readonly name: string;
  /** A management key's prefix (`mk_12345678`). */
  readonly keyPrefix?: string | undefined;
}

/** A credential's place as events name it: `the keychain (account "…")`, `the token file /etc/keydeck/prod`. */
export interface PlaceRef {
  /** The place in words (./credentialPlace.ts `describe`). */
  readonly where: string;
  /** True for keydeck's own store (the keychain, or the plaintext key file). */
  readonly own: boolean;
  /** What a write kept, after `where`: ` (mode 0600, as before)`. */
  readonly kept: string;
}

/**
 * What a guardrail tells (./guardrail.ts, docs/guardrails.md), once each per key, rule and period:
 * a threshold reached (`threshold`), the limit reached with `warn` (`limit`) or a deadline with
 * `flag` (`flagged`), the key disabled, re-enabled, enabled again by a person (`overridden`),
 * rotated (`rotated`, `rotate_failed`), not rotated for want of a destination (`no_destination`),
 * a deadline near (`warning`). Figures USD, times ISO 8601 (the service's clock).
 */
export interface GuardrailNotice {
  readonly what: 'threshold' | 'limit' | 'flagged' | 'disabled' | 'enabled' | 'overridden' | 'rotated' | 'rotate_failed' | 'no_destination' | 'warning';
  /** `budget`, `expiry` (`expiresIn`), `age` (`maxAge`). */
  readonly rule: 'budget' | 'expiry' | 'age';
  readonly key: KeyRef & { readonly id: string };
  readonly action: 'warn' | 'disable' | 'rotate' | 'flag';
  /** `threshold`: the fraction of the limit reached. */
  readonly threshold?: number;
  readonly period?: 'day' | 'week' | 'month';
  readonly limitUsd?: number;
  readonly spentUsd?: number;
  /** The soft cap's worst case (src/billing/guardrails.ts BudgetView.overshootUsd). */
  readonly overshootUsd?: number;
  /** When the period ends (a disabled key comes back then, unless told otherwise), or when the deadline passes. */
  readonly until?: string;
  /** `rotated`: the successor's name. */
  readonly successor?: string;
}

/**
 * One event of a drive (see the module comment). `kind` names the operation where the words
 * differ by operation (`the key` / `the successor`).
 */
export type OperationEvent =
  /** A new key was made. */
  | { readonly type: 'minted'; readonly kind: OperationKind; readonly key: KeyRef; readonly destinations: number }
  /** The creating answer could not be fully read, but held the key's value (I2): going on with it. */
  | { readonly type: 'salvaged'; readonly kind: OperationKind; readonly problem: string; readonly field: string; readonly idKnown: boolean }
  /** Keys an earlier try made, whose value never reached keydeck: deleted once a new one is delivered. */
  | { readonly type: 'made_unseen'; readonly kind: OperationKind; readonly keys: readonly KeyRef[] }
  /** The key's value was read back from a file destination that holds it (by fingerprint). */
  | { readonly type: 'read_back'; readonly kind: OperationKind; readonly key: KeyRef; readonly from: Destination | undefined }
  /** The key's value is gone (no file destination holds it): a new key is made, this one deleted once that is delivered. */
  | { readonly type: 'value_lost'; readonly kind: OperationKind; readonly key: KeyRef | undefined }
  /** A key that was being shown when keydeck stopped: named with how to delete it (or gone already). */
  | { readonly type: 'shown_unknown'; readonly key: KeyRef; readonly listed: boolean }
  /** One destination's outcome (its sentence is src/delivery's; a command's output beside it). */
  | { readonly type: 'delivery'; readonly outcome: DeliveryOutcome }
  /** Undo: what was done at a file destination (src/delivery/fileUndo.ts says it). */
  | { readonly type: 'restored'; readonly destination: Destination; readonly sentence: string }
  /** Undo: a command took (or may have taken) the key, and cannot be undone. */
  | { readonly type: 'command_holds'; readonly destination: Destination; readonly took: boolean }
  /** Undo: the new key is kept (destinations hold it); `renamed` when it was renamed for that. */
  | { readonly type: 'kept'; readonly kind: OperationKind; readonly key: KeyRef; readonly holders: readonly Destination[] }
  /** Undo: the new key was deleted (or could not be). */
  | { readonly type: 'deleted'; readonly kind: OperationKind; readonly key: KeyRef; readonly ok: boolean }
  /** Undo: an earlier key whose value was lost was deleted, or kept (a command may hold it). */
  | { readonly type: 'earlier'; readonly kind: OperationKind; readonly id: string; readonly deleted: boolean }
  /** Taken up (or undone) while its copies of previous content were being removed: it had ended, nothing can be undone. */
  | { readonly type: 'complete'; readonly kind: OperationKind; readonly name: string }
  /** Nothing of the operation was left to undo. */
  | { readonly type: 'nothing_to_undo'; readonly name: string }
  /** Rotation recorded: the old key, its successor's name, and the old key's name once it is delivered (when the successor takes its name). */
  | { readonly type: 'rotation_started'; readonly old: KeyRef; readonly successor: string; readonly rotatedName?: string | undefined }
  /** Rotation taken up: how it goes on (a new successor, the one read back, or the handover). */
  | { readonly type: 'taking_up'; readonly name: string; readonly successor: string; readonly how: 'new' | 'read_back' | 'delivered' }
  /** Rotation: the old key renamed `NAME (rotated DATE)`, its successor took its name (`takenUp`: by a finish). */
  | { readonly type: 'old_renamed'; readonly from: string; readonly to: string; readonly successor: string; readonly takenUp: boolean }
  /** Rotation: the old key's name put back (undo). */
  | { readonly type: 'old_name_back'; readonly name: string }
  /** Rotation: the old key reactivated (undo), or as it was. */
  | { readonly type: 'old_state'; readonly name: string; readonly reactivated: boolean; readonly active: boolean }
  /** Rotation: the old key handled at the end (`gone`: it no longer existed; `rotation`: the old key's name when the rotation began). */
  | { readonly type: 'old_handled'; readonly key: KeyRef; readonly rotation: string; readonly action: 'deactivate' | 'delete' | 'keep'; readonly gone: boolean }
  /** Rotation undone after the old key was deleted as asked: the rotation is complete. */
  | { readonly type: 'rotation_complete'; readonly old: string; readonly successor: string }
  /** Management-key rotation: the new key stored in the place. */
  | { readonly type: 'stored'; readonly place: PlaceRef }
  /** Management-key rotation: the service accepts the new key. */
  | { readonly type: 'accepted' }
  /** Management-key rotation: the old key deleted; `holds` is the new key's prefix. */
  | { readonly type: 'old_deleted'; readonly old: KeyRef; readonly holds: string; readonly place: PlaceRef }
  /** Management-key rotation taken up: where it was interrupted, by what the place holds. */
  | { readonly type: 'interrupted_stored'; readonly old: string; readonly place: PlaceRef; readonly holds: string }
  /** Management-key rotation taken up before the new key was stored: lost new keys deleted, another made. */
  | { readonly type: 'interrupted_unstored'; readonly old: string; readonly deleted: readonly string[] }
  /** Management-key rotation undone or ended without both keys. */
  /** A guardrail told something (./guardrail.ts): the face says it, the `--on-guardrail` hook hears it. */
  | { readonly type: 'guardrail'; readonly notice: GuardrailNotice }
  | {
      readonly type: 'mgmt_undone';
      readonly how: 'unstored' | 'put_back' | 'already_deleted' | 'kept_both' | 'mismatch';
      readonly old: KeyRef;
      readonly place: PlaceRef;
      readonly deleted: readonly string[];
      readonly holds?: string | undefined;
      readonly newKey?: string | undefined;
      readonly oldListed?: boolean;
    };

/**
 * Why a drive stopped (the `failure` of ./kit.ts OperationError): a stable code and its facts.
 * The wording table words each one for each face, with its next step.
 */
export type OperationFailure =
  | { readonly code: 'subscription_key'; readonly key: KeyRef & { readonly id: string } }
  | { readonly code: 'key_inactive'; readonly key: KeyRef & { readonly id: string } }
  | { readonly code: 'rotation_pending'; readonly name: string }
  | { readonly code: 'operation_pending'; readonly name: string }
  | { readonly code: 'mgmt_rotation_pending' }
  | { readonly code: 'too_many'; readonly kind: OperationKind; readonly most: number }
  | { readonly code: 'in_progress'; readonly kind: OperationKind; readonly name: string }
  | { readonly code: 'no_longer_recorded'; readonly kind: OperationKind }
  | { readonly code: 'bad_transition'; readonly kind: OperationKind; readonly from: string; readonly to: string }
  | { readonly code: 'record'; readonly kind: OperationKind; readonly sentence: string }
  | { readonly code: 'old_key_deleted'; readonly name: string }
  | { readonly code: 'cannot_show'; readonly kind: OperationKind; readonly name: string }
  | { readonly code: 'mint_refused'; readonly refusal: MintRefusal }
  | { readonly code: 'no_credential'; readonly place: PlaceRef }
  /** `session_token`: the place holds no management key; `place`: the place cannot be written as the rotation will (its sentence). */
  | { readonly code: 'cannot_rotate'; readonly reason: 'session_token' | 'place'; readonly place: PlaceRef; readonly sentence?: string }
  /** The service lists no management key with the prefix of the one in the place. */
  | { readonly code: 'not_found'; readonly keyPrefix: string }
  | { readonly code: 'store_failed'; readonly problem: string; readonly place: PlaceRef; readonly holds: string }
  /** `rolledBack`: the service rejected the new key, the old one is in the place again. */
  | { readonly code: 'check_failed'; readonly problem: string; readonly rolledBack: boolean; readonly place: PlaceRef; readonly holds?: string }
  /** `own_key`: a step was to delete the key in the place; `no_key`: the place holds no management key now. */
  | { readonly code: 'rotation_mismatch'; readonly reason: 'own_key' | 'no_key'; readonly place: PlaceRef; readonly keyPrefix?: string }
  /** The key's rule already has an entry for this period (another keydeck recorded it first). */
  | { readonly code: 'guardrail_recorded'; readonly name: string }
  /** The kit's failpoint stopped the drive (crash walks only). */
  | { readonly code: 'crashed'; readonly point: string }
  /** Auto top-up's settle wait refused (`KEYDECK_AUTOTOPUP_SETTLE_SECONDS`): no run is made, nothing charged. */
  | { readonly code: 'autotopup_settle'; readonly problem: string };

/** Why a pledge's key must not be minted now (src/billing/pledges.ts `mintRefusalOf`). */
export interface MintRefusal {
  /** `subscription_has_key`, `pledge_has_key` (the status's `hasKey: true`), `subscription_not_active`, `subscription_unknown`. */
  readonly code: 'subscription_has_key' | 'pledge_has_key' | 'subscription_not_active' | 'subscription_unknown';
  /** src/billing's sentence. */
  readonly sentence: string;
}
