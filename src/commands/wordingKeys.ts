/**
 * The wording table of the key commands (keys, mgmt-keys, key-info, usage, apply, policy): every way one of them fails, a row naming its
 * stable code and wording its facts (docs/architecture.md, "The error type"). A command fails with
 * `fail(ExitCode…, keyWords.row, facts)` (./failure.ts), never with a sentence of its own.
 */
import { errorText, row } from './failure.js';
import { visible } from '../terminal/sanitize.js';
import { keyPrefixOf } from '../api/errors.js';
import { ageWords } from '../billing/usageWords.js';
import { createCommand, eventPhrases } from '../operations/wording.js';
import type { OperationEvent } from '../operations/events.js';
import { keyStatus } from '../api/keyStatus.js';
import { describeLastUse, shortDuration, type LastUse } from '../delivery/lastUse.js';
import { TOKEN_ENV_VAR } from '../credentials/env.js';

/** What ./keyRef.ts `keyByRef` reads of a listed key. */
export interface KeyLike {
  readonly id: string;
  readonly name: string;
  readonly createdAt?: string;
  /** A consumption key's (a management key's is always true): shown with a candidate. */
  readonly isActive?: boolean;
  readonly subscriptionStatus?: string;
  readonly subscriptionExpiresAt?: string;
}

/** One candidate of an ambiguous name: `id (active, created 2026-02-27)`. */
function candidate(key: KeyLike): string {
  const state = typeof key.isActive === 'boolean' ? keyStatus({ ...key, isActive: key.isActive }) : undefined;
  const created = typeof key.createdAt === 'string' ? key.createdAt.slice(0, 10) : undefined;
  const about = [state, created && `created ${created}`].filter(Boolean).join(', ');
  return `${visible(key.id)}${about ? ` (${about})` : ''}`;
}

/** Each failure of the key commands (keys, mgmt-keys, key-info, usage, apply, policy): its code and its sentence from the facts. */
export const keyWords = {
  subscriptionEnded: row(
    'subscription_ended',
    (f: { name: string; keyId: string; ended: string }) =>
      `subscription_ended: the key "${visible(f.name)}" (id ${visible(f.keyId)}) is a subscription whose paid period has ended, so it cannot be enabled again; ${f.ended}. Nothing was sent`,
  ),
  rateLimitedNothingKept: row('rate_limited', (f: { prefix: string; waitWords: string }) => `rate_limited: nothing is kept for ${f.prefix}… yet and ${f.waitWords}`),
  notKept: row('not_kept', (f: { prefix: string }) => `not_kept: nothing is kept for ${f.prefix}… yet: run keydeck key-info without --cached to read it`),
  invalidRequestCommandTimeoutMust: row(
    'invalid_request',
    (f: { commandTimeout: string }) => `invalid_request: --command-timeout must be a number of seconds above 0 and at most 3600, not "${visible(f.commandTimeout)}"`,
  ),
  invalidRequestIdNameGive: row('invalid_request', (f: { noun: string; listCommand: string }) => `invalid_request: ID|NAME: give the ${f.noun}’s id or name (${f.listCommand})`),
  invalidRequestIdNameKey: row(
    'invalid_request',
    (f: { text: string; noun: string; listCommand: string }) =>
      `invalid_request: ID|NAME: ${keyPrefixOf(f.text)}… is a key value, not its id: give the ${f.noun}’s id or name (${f.listCommand}); nothing was sent, and a key value is never put in a request’s path`,
  ),
  ambiguous: row(
    'ambiguous',
    (f: { candidates: readonly KeyLike[]; noun: string; given: string }) =>
      `ambiguous: ${f.candidates.length} ${f.noun}s are named "${visible(f.given)}": name one by its id: ${f.candidates.map(candidate).join('; ')}; nothing was changed`,
  ),
  notFoundNoHasId: row(
    'not_found',
    (f: { noun: string; given: string; listCommand: string }) => `not_found: no ${f.noun} has the id or name "${visible(f.given)}" (${f.listCommand}); nothing was changed`,
  ),
  usagePeriodMustBe: row('usage', (f: { text: string }) => `--period must be one of 24h, 7d, 30d, total (got "${visible(f.text.slice(0, 20))}")`),
  usageRecordUnavailable: row(
    'usage_record_unavailable',
    (f: { error: unknown }) => `usage reads need keydeck's shared record of reads (the service allows 12 per 12 hours), which cannot be used: ${errorText(f.error)}`,
  ),
  usageRefreshCachedCannot: row('usage', () => '--refresh and --cached cannot be used together'),
  usageBudget: row(
    'usage_budget',
    (f: { used: number; when: string }) => `usage_budget: no usage figures are kept for this key and service yet, and no read can be spent (${f.used} of 12 spent in the last 12 hours): ${f.when}`,
  ),
  notFoundUsageAnswerHas: row(
    'not_found',
    (f: { at: number; now: number; keyId: string }) => `not_found: the usage answer of ${ageWords(f.at, f.now)} has no key with the id "${visible(f.keyId)}" (\`keydeck keys usage\` lists them)`,
  ),
  nameTaken: row(
    'name_taken',
    (f: { clash: string; action: string; nothing: string }) => `name_taken: ${f.clash}. Pick another name, or pass --allow-duplicate-name to ${f.action} it anyway; ${f.nothing}`,
  ),
  cancelledNameTaken: row('cancelled', (f: { nothing: string }) => `cancelled: ${f.nothing}`),
  operationInProgress: row(
    'operation_in_progress',
    (f: { name: string }) => `operation_in_progress: the creation of "${visible(f.name)}" is in progress in another keydeck (another shell, the TUI): let it end first`,
  ),
  invalidRequestKeyCreationsAre: row(
    'invalid_request',
    (f: { names: readonly string[]; undo: boolean | undefined }) =>
      `invalid_request: ${f.names.length} key creations are unfinished (${f.names.map((n) => `"${n}"`).join(', ')}): name one (keydeck keys create --${f.undo ? 'undo' : 'finish'} NAME)`,
  ),
  operationPending: row(
    'operation_pending',
    (f: { name: string }) =>
      `operation_pending: the creation of "${visible(f.name)}" was interrupted earlier with other destinations: \`${createCommand(f.name, 'finish')}\` or \`${createCommand(f.name, 'undo')}\` first`,
  ),
  createDeliveryUndone: row(
    'delivery_failed',
    (f: { what: string; failed: string; deleted: boolean; saidCount: number; said: string[] }) =>
      `delivery_failed: ${f.what} was created, but ${f.failed} did not take it; ${f.deleted ? 'the key was deleted again' : 'undone'}${f.saidCount > 0 ? ` (${f.said.join('; ')})` : ''}`,
  ),
  createDeliveryKept: row(
    'delivery_failed',
    (f: { what: string; failed: string; name: string; finish: string; holdersCount: number }) =>
      `delivery_failed: ${f.what} was created, but ${f.failed} did not take it; it is kept and the creation stays recorded: ` +
      `\`${createCommand(f.name, 'finish')}\` ${f.finish}, \`${createCommand(f.name, 'undo')}\` ${f.holdersCount > 0 ? 'puts back what the destinations held and ' : ''}deletes it`,
  ),
  invalidRequestGiveNameOnce: row('invalid_request', () => 'invalid_request: give the name once: as NAME or as --name NAME'),
  invalidRequestFinishUndoCannot: row('invalid_request', () => 'invalid_request: --finish and --undo cannot be given together'),
  invalidRequestNameGiveKey: row('invalid_request', () => 'invalid_request: --name: give the key’s name (keydeck keys create NAME, or --name NAME)'),
  invalidRequestTakesDurationWith: row(
    'invalid_request',
    (f: { flag: string; text: string }) => `invalid_request: ${f.flag} takes a duration with its unit, such as 90s, 10m or 1h30m (at most 7 days), not "${visible(f.text)}"`,
  ),
  invalidRequestOldTakesDeactivate: row('invalid_request', (f: { text: string }) => `invalid_request: --old takes deactivate, delete or keep, not "${visible(f.text)}"`),
  idleUnknown: row(
    'idle_unknown',
    (f: { oldName: string; finishHint: string }) =>
      `idle_unknown: the service does not say when a key was last used (lastUsedAt), so --wait-idle cannot tell when the old key "${visible(f.oldName)}" is idle, and it was left as it is; ` +
      `${f.finishHint}, without --wait-idle`,
  ),
  stillInUseOldKeyAfter: row(
    'still_in_use',
    (f: { oldName: string; use: LastUse; waitIdleMs: number; finishHint: string }) =>
      `still_in_use: the old key "${visible(f.oldName)}" was ${describeLastUse(f.use)}, after waiting ${shortDuration(f.waitIdleMs)}, so it was left as it is; ${f.finishHint}`,
  ),
  oldKeyUnasked: row(
    'confirmation_required',
    (f: { finishHint: string }) => `confirmation_required: no terminal to ask what becomes of the old key: pass --old deactivate|delete|keep; ${f.finishHint}`,
  ),
  stillInUseAfterSuccessorDelivered: row(
    'still_in_use',
    (f: { oldName: string; use: LastUse; finishHint: string }) =>
      `still_in_use: ${f.use.known ? `the old key "${visible(f.oldName)}" was ${describeLastUse(f.use)}` : `the usage figures show the old key "${visible(f.oldName)}" spending`}, after the successor was delivered, so it was left as it is (--wait-idle waits until it stops, --yes goes ahead anyway); ${f.finishHint}`,
  ),
  invalidRequestNameKeyRotate: row('invalid_request', () => 'invalid_request: name the key to rotate: keydeck keys rotate ID|NAME (or --finish / --undo an interrupted rotation)'),
  oldKeyUnaskedNothingChanged: row('confirmation_required', () => 'confirmation_required: no terminal to ask what becomes of the old key: pass --old deactivate|delete|keep; nothing was changed'),
  invalidRequestDoesNotKnow: row(
    'invalid_request',
    (f: { name: string }) =>
      `invalid_request: keydeck does not know where "${visible(f.name)}" is used and stdout is not a terminal, so the new key would be lost: pass --to-file or --to-command (or --json); nothing was changed`,
  ),
  rotateDeliveryUndone: row(
    'delivery_failed',
    (f: { failed: string; label: string; said: readonly OperationEvent[] }) =>
      `delivery_failed: ${f.failed} did not take ${f.label}; the rotation was undone (${f.said.flatMap((e) => eventPhrases(e, 'cli').map((p) => visible(p))).join('; ')})`,
  ),
  rotateDeliveryKept: row(
    'delivery_failed',
    (f: { label: string; failed: string; name: string; target: string; finish: string; holderCount: number; holders: string }) =>
      `delivery_failed: ${f.label} was created, but ${f.failed} did not take it; the old key "${visible(f.name)}" is untouched and still works, and the rotation stays recorded: ` +
      `\`keydeck keys rotate --finish ${f.target}\` ${f.finish}, \`keydeck keys rotate --undo ${f.target}\` ${f.holderCount > 0 ? `puts back what ${f.holders} held and ` : ''}deletes the successor`,
  ),
  invalidRequestRotationsAreUnfinished: row(
    'invalid_request',
    (f: { rotations: readonly { readonly name: string; readonly id: string }[]; undo: boolean | undefined }) =>
      `invalid_request: ${f.rotations.length} rotations are unfinished (${f.rotations.map((r) => `"${r.name}" ${r.id}`).join(', ')}): name one (keydeck keys rotate --${f.undo ? 'undo' : 'finish'} ID)`,
  ),
  usageTokenFileTakes: row('usage', () => '--token-file takes the path of a file holding the key, never the key itself'),
  cannotRotateCreated: row('cannot_rotate', (f: { err: unknown }) => `cannot_rotate: ${(f.err as Error).message}; nothing was created`),
  tokenFileMissing: row('token_file_missing', (f: { file: string }) => `--token-file: ${f.file} does not exist`),
  cannotRotateHoldsKeyItself: row(
    'cannot_rotate',
    (f: { file: string; token: string; name: string }) =>
      `cannot_rotate: ${f.file} holds ${keyPrefixOf(f.token)}…, the key keydeck itself has stored for profile "${f.name}": rotating it here would delete the key keydeck signs in with. Rotate keydeck's key (\`keydeck mgmt-keys rotate\`) and give the file a key of its own (\`keydeck mgmt-keys create\`)`,
  ),
  cannotRotateKeyComesFrom: row(
    'cannot_rotate',
    () =>
      `cannot_rotate: the key comes from ${TOKEN_ENV_VAR}, which keydeck cannot change (it does not know where the variable is set). ` +
      'Rotate it yourself: `keydeck mgmt-keys create --name NAME --json` for the new key, put it where the variable is set, then `keydeck mgmt-keys delete OLD_ID --yes`',
  ),
  cannotRotateSignedInWith: row('cannot_rotate', () => 'cannot_rotate: keydeck is signed in with a session token, not a management key: `keydeck auth login` makes one'),
  credentialPlace: row(
    'credential_place',
    (f: { message: string; tokenFile: string | undefined; path: string | undefined }) =>
      `credential_place: ${f.message}; run \`keydeck mgmt-keys rotate --finish${f.tokenFile !== undefined ? ` --token-file ${f.path ?? ''}` : ''}\` once it is fixed`,
  ),
  policyProblem: row('policy_problem', (f: { problemsCount: number }) => `policy_problem: nothing was changed (${f.problemsCount} problem${f.problemsCount === 1 ? '' : 's'} in the plan)`),
  cancelledChanged: row('cancelled', () => 'cancelled: nothing was changed'),
  noConsumptionKey: row('no_consumption_key', () => 'no consumption key: set KEYDECK_SK or pipe the key on stdin (it is never taken from the command line)'),
  notConsumptionKey: row(
    'not_consumption_key',
    (f: { key: string }) =>
      `that is not a consumption key (sk_… or sk-…): it starts with "${/^[A-Za-z]{1,4}[_-]/.exec(f.key)?.[0] ?? f.key.slice(0, 2).replace(/[^A-Za-z0-9]/g, '?')}"; key-info takes the sk_ key an application uses`,
  ),
  usageRecordUnavailableKeyInfo: row('usage_record_unavailable', (f: { error: unknown }) => `usage reads need keydeck's shared record of reads, which cannot be used: ${errorText(f.error)}`),
};
