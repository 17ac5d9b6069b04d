/**
 * The one wording table of the operations: for every event and failure of the kit's machines
 * (./events.ts), and for an unfinished operation named at a face's start, the words each face
 * says. The commands and the TUI both read it; no machine, and no layer below, builds a face's
 * sentence. Where the faces differ it says so in one place: a command names the command that does
 * the next step (`keydeck keys delete ID`), the TUI its key (`d` on the Keys pane); a command
 * writes whole sentences, the TUI's status line lower-case phrases. Names and paths come raw:
 * each face sanitises the line it writes (src/terminal/sanitize.ts).
 *
 * A failure is a row of {@link failureWords}: its shown code (what `keydeck: CODE: …` prints), its
 * sentence (also the error's message), and the next step by face.
 */
import { describeDestination, type Destination } from '../delivery/destinations.js';
import type { GuardrailNotice, KeyRef, OperationEvent, OperationFailure, OperationKind } from './events.js';
import { guardrailPhrase } from './guardrailWords.js';

/** Which face words it. */
export type Face = 'cli' | 'tui';

/** `"web" (id 12)`, or `"web"` without an id. */
const named = (k: KeyRef) => `"${k.name}"${k.id !== undefined ? ` (id ${k.id})` : ''}`;
/** How a face says "delete the key `id`". */
const deleteIt = (id: string | undefined, face: Face, tick = false) =>
  face === 'tui' ? 'delete it on the Keys pane (d)' : tick ? `delete it with \`keydeck keys delete ${id}\`` : `delete it with keydeck keys delete ${id}`;
const holdWord = (n: number) => (n === 1 ? 'holds' : 'hold');
/** `the new key … never stored…` of a management rotation taken up. */
const unstored = (deleted: readonly string[]) => (deleted.length > 0 ? `the new key ${deleted.join(', ')}, never stored, is deleted (its value is gone)` : 'no new key was made');
/** A sentence from a phrase: capital first letter, one final period (none after `.`, `…`, `:`). */
export function sentence(phrase: string): string {
  return phrase === '' ? phrase : `${phrase[0]!.toUpperCase()}${phrase.slice(1)}${/[.\u2026!?:]$/.test(phrase) ? '' : '.'}`;
}
const successorLost =
  'its successor never reached every destination, and its value is gone (keydeck never stores a key, and no file destination holds it): a new successor is made and delivered; the unfinished one is deleted once that is done';

/**
 * What a face says for `event`, as phrases (none: that face does not say it): {@link eventWords}
 * makes them sentences (a command's lines, the TUI's dialogs); a status line or a failure's
 * parenthesis joins them with `; `.
 */
export function eventPhrases(event: OperationEvent, face: Face): string[] {
  const e = event;
  switch (e.type) {
    case 'minted':
      if (e.kind === 'mgmt-rotate') return [`Created the management key "${e.key.name}" (${e.key.keyPrefix}…).`];
      if (e.kind === 'rotate') return face === 'cli' ? [`Created the successor "${e.key.name}" (id ${e.key.id ?? 'unknown'}).`] : [];
      return face === 'cli' && e.destinations > 0 ? [`Created ${e.kind === 'pledge' ? 'the subscription key' : 'the credit key'} "${e.key.name}" (id ${e.key.id ?? 'unknown'}); delivering it:`] : [];
    case 'salvaged': {
      const what = e.kind === 'rotate' ? 'the successor' : 'the key';
      const words = `the service's answer could not be fully read (${e.problem}), but it held ${what}'s value (in ${e.field}): keydeck goes on with it${e.idKnown ? '' : '; its id is not known'}`;
      return [words];
    }
    case 'made_unseen':
      if (e.kind === 'rotate') return [successorLost];
      return e.keys.map((k) => `the key ${named(k)} was created, but its value never reached keydeck: a new key is made, and this one deleted once that is delivered`);
    case 'read_back': {
      const from = e.from ? describeDestination(e.from) : 'its file';
      return [
        e.kind === 'rotate'
          ? `the successor "${e.key.name}" was read back from ${from}, which holds it: it goes to the other destinations`
          : `the key "${e.key.name}" was read back from ${from}, which holds it`,
      ];
    }
    case 'value_lost':
      if (e.kind === 'rotate') return [successorLost];
      return e.key
        ? [`the value of the key ${named(e.key)} is gone (keydeck never stores a key, and no file destination holds it): a new key is made, and the lost one deleted once that is delivered`]
        : [];
    case 'shown_unknown':
      return [
        e.listed
          ? `the key ${named(e.key)} was being shown when keydeck stopped; if its value was not kept, ${face === 'tui' ? deleteIt(e.key.id, face) : `delete it: keydeck keys delete ${e.key.id}`}`
          : `the key "${e.key.name}" that was being shown no longer exists`,
      ];
    case 'delivery':
      return [];
    case 'restored':
      return [e.sentence];
    case 'command_holds':
      return [`${describeDestination(e.destination)} ${e.took ? 'took' : 'may have taken'} the new key, and a command cannot be undone`];
    case 'kept': {
      const holders = `${e.holders.map(describeDestination).join(', ')} ${holdWord(e.holders.length)} it`;
      return [`kept ${e.kind === 'rotate' ? 'the successor' : 'the key'} ${named(e.key)}: ${holders}; ${deleteIt(e.key.id, face)} once nothing ${e.kind === 'rotate' ? 'uses' : 'needs'} it`];
    }
    case 'deleted':
      if (e.kind === 'rotate') return [e.ok ? `deleted the successor ${e.key.id}` : `could not delete the successor ${e.key.id}: ${deleteIt(e.key.id, face, true)}`];
      return [e.ok ? `deleted the key ${named(e.key)}` : `could not delete the key ${e.key.id}: ${deleteIt(e.key.id, face)}`];
    case 'earlier': {
      const which = e.kind === 'rotate' ? 'successor' : 'key';
      return [
        e.deleted
          ? `deleted the earlier ${which} ${e.id}, whose value was lost`
          : `kept the earlier ${which} ${e.id}, whose value was lost: a command may hold it; ${deleteIt(e.id, face)} once nothing ${e.kind === 'rotate' ? 'uses' : 'needs'} it`,
      ];
    }
    case 'complete':
      return [`the ${e.kind === 'rotate' ? 'rotation' : 'creation'} of "${e.name}" had ended (its copies of previous content were being removed): nothing is left to undo`];
    case 'nothing_to_undo':
      return [face === 'cli' ? `Undone: nothing of "${e.name}" was left to undo.` : 'undone'];
    case 'rotation_started':
      if (face !== 'cli') return [];
      return [
        `Rotating the key ${named(e.old)} to a successor${e.rotatedName !== undefined ? `; it takes the name "${e.successor}", and the old key becomes "${e.rotatedName}" once it is delivered` : ` "${e.successor}"`}.`,
      ];
    case 'taking_up':
      if (face !== 'cli') return [];
      if (e.how === 'new') return [`Finishing the rotation of "${e.name}" with a new successor.`];
      if (e.how === 'read_back') return [`Finishing the rotation of "${e.name}".`];
      return [`Finishing the rotation of "${e.name}": its successor "${e.successor}" was delivered.`];
    case 'old_renamed':
      return e.takenUp ? [`renamed the old key "${e.from}" to "${e.to}": its successor is "${e.successor}" now`] : [];
    case 'old_name_back':
      return [`gave the old key its name "${e.name}" back`];
    case 'old_state':
      return [e.reactivated ? `reactivated the old key "${e.name}"` : `the old key "${e.name}" is ${e.active ? 'active' : 'inactive'}, as before`];
    case 'old_handled':
      return [face === 'tui' ? statusWords(e) : `${oldHandled(e)}${e.action === 'deactivate' && !e.gone ? ` (\`keydeck keys enable ${e.key.id}\`)` : ''}`];
    case 'rotation_complete':
      return [`the old key "${e.old}" was already deleted, so there is nothing to go back to: the rotation is complete, and its successor "${e.successor}" stays where it was delivered`];
    case 'stored':
      return [`Stored it in ${e.place.where}${e.place.kept}.`];
    case 'accepted':
      return ['The service accepts it.'];
    case 'old_deleted':
      return [`Deleted the old management key "${e.old.name}" (${e.old.keyPrefix}…): ${e.place.own ? 'keydeck now uses' : `${e.place.where} holds`} ${e.holds}….`];
    case 'interrupted_stored':
      return [`The rotation of "${e.old}" was interrupted after ${e.place.where} took the new key ${e.holds}….`];
    case 'interrupted_unstored':
      return [`The rotation of "${e.old}" was interrupted before the new key was stored: ${unstored(e.deleted)}, and another one is made.`];
    case 'mgmt_undone':
      return [mgmtUndone(e, face)];
    case 'guardrail':
      return [guardrailWords(e.notice, face)];
  }
}

/** A guardrail's notice with its next step in the face's words (a command, or the Keys pane's key). */
export function guardrailWords(n: GuardrailNotice, face: Face): string {
  const phrase = guardrailPhrase(n);
  const id = n.key.id;
  if (n.what === 'disabled' && n.rule === 'budget') return `${phrase}; ${face === 'cli' ? `\`keydeck keys enable ${id}\`` : 'space on the Keys pane'} brings it back now, and wins until then`;
  if (n.what === 'rotate_failed') return `${phrase}: ${face === 'cli' ? `\`keydeck keys rotate --finish ${id}\`` : 'R on the Keys pane'} takes it up`;
  if (n.what === 'flagged' && n.rule === 'age') return `${phrase}; ${face === 'cli' ? `\`keydeck keys rotate ${id} --to-file …\`` : 'R on the Keys pane'} rotates it`;
  return phrase;
}

/** What a face says for `event`, as sentences (see {@link eventPhrases}). */
export function eventWords(event: OperationEvent, face: Face): string[] {
  return eventPhrases(event, face).map(sentence);
}

/** The old key's fate at the end of a rotation, as a phrase. */
function oldHandled(e: Extract<OperationEvent, { type: 'old_handled' }>): string {
  const label = `the old key ${named(e.key)}`;
  if (e.action === 'deactivate')
    return e.gone ? `${label} no longer exists (deleted elsewhere), so there was nothing to deactivate` : `deactivated ${label}: it is refused from now on until reactivated`;
  if (e.action === 'delete') return `deleted ${label} for good`;
  return `kept ${label} active, as asked: both keys work until you disable it`;
}

/** What a management rotation undone (or ended without both keys) left. */
function mgmtUndone(e: Extract<OperationEvent, { type: 'mgmt_undone' }>, face: Face): string {
  const stays = (id: string | undefined) =>
    `the old "${e.old.name}" stays on the service (${face === 'cli' ? `\`keydeck mgmt-keys delete ${id}\`` : 'd on the Management keys pane'} when nothing uses it)`;
  switch (e.how) {
    case 'unstored':
      return `Undone: ${unstored(e.deleted)}; ${e.place.where} keeps ${e.holds}….`;
    case 'put_back':
      return `Undone: ${e.place.where} holds the old key ${e.holds}… again (the service accepts it), and the new key ${e.newKey}… is deleted.`;
    case 'already_deleted':
      return `Nothing to undo: the old key "${e.old.name}" (${e.old.keyPrefix}…) was deleted already; ${e.place.where} holds the new key ${e.newKey}….`;
    case 'kept_both':
      return `The old key's copy is gone, so keydeck cannot put it back: ${e.place.where} keeps the new key ${e.newKey}…, and ${stays(e.old.id)}.`;
    case 'mismatch':
      return `${e.place.where} holds ${e.holds}…, neither key of this rotation (it changed since): ${e.deleted.length > 0 ? 'the new key, held nowhere, is deleted' : 'no new key is left'}${e.oldListed ? `; ${stays(e.old.id)}` : ''}.`;
  }
}

/** The TUI's status line for an event that ends a step the user asked for (a lower-case phrase). */
export function statusWords(event: OperationEvent): string {
  switch (event.type) {
    case 'minted':
      return `created ${event.kind === 'pledge' ? 'the subscription key' : event.kind === 'rotate' ? 'the successor' : 'the credit key'} "${event.key.name}"`;
    case 'old_handled':
      return event.gone ? `the rotation of "${event.rotation}" is done: the old key no longer exists` : oldHandled(event);
    default:
      return eventPhrases(event, 'tui').join('; ');
  }
}

/** What a face shows of a failure: the code it prints, the sentence, and the next step. */
export interface FailureWords {
  /** What `keydeck: CODE: …` prints (the failure's code, or the code a command printed before). */
  readonly code: string;
  readonly sentence: string;
  /** The next step (empty: the sentence says it all), and how the two join. */
  readonly next: string;
  readonly join: string;
  /** A usage error of the command (exit 2) rather than a refusal (exit 1). */
  readonly usage?: boolean;
}

/** The record's code in a command's words: `operation_record` (key creations) or `rotation_record`. */
const recordCode = (kind: OperationKind) => (kind === 'create' || kind === 'pledge' ? 'operation_record' : kind === 'guardrail' ? 'guardrail_record' : 'rotation_record');
const what = (kind: OperationKind) => (kind === 'create' || kind === 'pledge' ? 'key creation' : kind === 'guardrail' ? 'guardrail action' : 'rotation');

/** The row of `failure` for `face` (see the module comment). */
export function failureWords(failure: OperationFailure, face: Face): FailureWords {
  const f = failure;
  const row = (code: string, text: string, next = '', join = '; ', usage = false): FailureWords => ({ code, sentence: text, next, join, ...(usage && { usage }) });
  switch (f.code) {
    case 'subscription_key': {
      const disable = face === 'cli' ? `\`keydeck keys disable ${f.key.id}\`` : 'space on the Keys pane';
      const credit = face === 'cli' ? '`keydeck keys create --name NAME --to-file …`' : 'n on the Keys pane';
      return row(
        f.code,
        `"${f.key.name}" is a subscription key, and those cannot be rotated: the service creates exactly one per subscription payment, so keydeck cannot make its successor`,
        `What works instead: the next subscription payment creates a new key; put it in place, then disable this one (${disable}). To stop a leaked one at once, disable it now, or replace it with a credit key (${credit})`,
        '. ',
      );
    }
    case 'key_inactive':
      return face === 'cli'
        ? row(f.code, `the key ${named(f.key)} is not active: a rotation replaces a key in use, and nothing uses this one`, 'rotate the active key of its lineage (keydeck keys list)')
        : row(f.code, `"${f.key.name}" is not active: a rotation replaces a key in use, and nothing uses this one`, 'Rotate the active key of its lineage.', '. ');
    case 'rotation_pending':
      return row(f.code, `the key "${f.name}" already has an unfinished rotation: finish or undo it first`);
    case 'operation_pending':
      return row(f.code, `the creation of the key "${f.name}" was interrupted earlier: finish or undo it first`);
    case 'mgmt_rotation_pending':
      return row('rotation_record', 'this management key already has an unfinished rotation: finish or undo it first');
    case 'too_many':
      return row(recordCode(f.kind), `${f.most} ${what(f.kind)}s are unfinished: finish or undo some first`);
    case 'in_progress':
      if (f.kind === 'guardrail') return row(f.code, `the guardrail of "${f.name}" is acting in another keydeck (an exporter, a cron job): it is left to it`);
      return f.kind === 'create' || f.kind === 'pledge'
        ? row('operation_in_progress', `the creation of "${f.name}" is in progress in another keydeck (another shell, the TUI): let it end first`)
        : row(f.code, `the rotation of "${f.name}" is in progress in another keydeck (another shell, the TUI, a cron job): let it end first`);
    case 'no_longer_recorded':
      return row(recordCode(f.kind), `this ${what(f.kind)} is no longer recorded: another keydeck finished or undid it`);
    case 'bad_transition':
      return row(recordCode(f.kind), `the ${what(f.kind)} record refuses a move from "${f.from}" to "${f.to}"`);
    case 'record':
      return row(recordCode(f.kind), f.sentence);
    case 'old_key_deleted':
      return row(f.code, `the old key "${f.name}" no longer exists, so the rotation cannot be undone: finish it instead`);
    case 'cannot_show':
      return f.kind === 'rotate'
        ? row('invalid_request', 'this rotation has no destination and stdout is not a terminal: run it on a terminal', '', '; ', true)
        : row(
            'invalid_request',
            `the new key "${f.name}" would be shown, and stdout is not a terminal`,
            `run \`${createCommand(f.name, 'finish')}\` on a terminal (or with --json), or \`${createCommand(f.name, 'undo')}\``,
            ': ',
            true,
          );
    case 'mint_refused': {
      const where = f.refusal.code !== 'subscription_unknown' ? '' : face === 'cli' ? ' (keydeck billing status shows them)' : ' (s on the Billing pane shows them)';
      return row(f.refusal.code === 'pledge_has_key' ? 'subscription_has_key' : f.refusal.code, `${f.refusal.sentence}${where}${face === 'cli' ? '; nothing was sent' : ''}`);
    }
    case 'no_credential':
      return row(f.code, `${f.place.where} holds no key`);
    case 'cannot_rotate':
      return f.reason === 'session_token'
        ? row(f.code, `${f.place.where} holds a session token, not a management key`, '`keydeck auth login` makes one', ': ')
        : row(f.code, `${f.sentence}; nothing was created`);
    case 'not_found':
      return row(f.code, `the service lists no management key ${f.keyPrefix}…, so keydeck cannot tell which key to replace`);
    case 'store_failed':
      return row(f.code, `the new management key could not be stored (${f.problem}); it was deleted again, and ${f.place.where} keeps ${f.holds}…`);
    case 'check_failed':
      return f.rolledBack
        ? row(f.code, `the service did not accept the new key (${f.problem}); ${f.place.where} holds the old key ${f.holds}… again, and the new one was deleted`)
        : row(
            f.code,
            `the service does not accept the new key yet (${f.problem}); the old key was not deleted`,
            '`keydeck mgmt-keys rotate --finish` checks again, `--undo` puts the old key back',
            ': ',
          );
    case 'rotation_mismatch':
      return f.reason === 'own_key'
        ? row(f.code, `${f.place.where} holds the key ${f.keyPrefix}… this step was to delete: keydeck never deletes the key it signs in with`)
        : row(f.code, `${f.place.where} holds no management key now`, 'sign in again (`keydeck auth login`), then take the rotation up again', ': ');
    case 'guardrail_recorded':
      return row(f.code, `another keydeck is acting on the guardrail of "${f.name}" for this period: it is left to it`);
    case 'crashed':
      return row(f.code, `stopped at the kit's failpoint ${f.point} (a crash test)`);
    case 'autotopup_settle':
      return row(f.code, `${f.problem}; nothing was charged`);
  }
}

/** The sentence of `failure` (an OperationError's message). */
export function failureSentence(failure: OperationFailure): string {
  return failureWords(failure, 'cli').sentence;
}

/** The sentence and its next step, as a face writes them after the code. */
export function failureLine(failure: OperationFailure, face: Face): string {
  const w = failureWords(failure, face);
  return w.next === '' ? w.sentence : `${w.sentence}${w.join}${w.next}`;
}

/** `keydeck keys create --finish web` (the name quoted when it needs it). */
export function createCommand(name: string, flag: 'finish' | 'undo'): string {
  return `keydeck keys create --${flag} ${/^[\w.@-]+$/.test(name) ? name : JSON.stringify(name)}`;
}

/** A destination list in words: `.env (KEY), \`gh …\``. */
export function destinationsWords(destinations: readonly Destination[]): string {
  return destinations.map(describeDestination).join(', ');
}

/**
 * An unfinished operation as {@link unfinishedWords} reads it: the records' entries fit
 * (./keyOperationRecord.ts, ./rotationRecord.ts, ./mgmtRotationRecord.ts).
 */
export type UnfinishedView =
  | { readonly kind: 'creation'; readonly op: { readonly kind: 'create' | 'pledge'; readonly name: string; readonly state: string; readonly startedAt: string } }
  | {
      readonly kind: 'rotation';
      readonly op: {
        readonly kind: 'consumption' | 'management';
        readonly state: string;
        readonly startedAt: string;
        readonly old: { readonly id: string; readonly name: string };
        readonly successor: { readonly name: string };
      };
    }
  | {
      readonly kind: 'mgmt';
      readonly op: {
        readonly state: string;
        readonly startedAt: string;
        readonly old: { readonly id: string; readonly name: string };
        readonly target: { readonly kind: 'store' } | { readonly kind: 'token_file'; readonly path: string };
      };
    };

/** Where `u` stopped, as a phrase (`while its successor was being created`). */
function stoppedWhere(u: UnfinishedView): string {
  if (u.kind === 'creation') {
    if (u.op.state === 'creating') return 'while the key was being created';
    if (u.op.state === 'showing') return 'while the new key was shown';
    if (u.op.state === 'delivered') return 'after the new key reached every destination, before it was cleaned up';
    if (u.op.state === 'ending') return 'once it was done, while its copies of previous content were being removed';
    return 'before the new key reached every destination';
  }
  if (u.kind === 'mgmt') {
    if (u.op.state === 'creating') return 'while its successor was being created';
    if (u.op.state === 'created') return 'after the new management key was created (it may be stored already)';
    return 'after the new management key was stored, before the old one was deleted';
  }
  const management = u.op.kind === 'management';
  switch (u.op.state) {
    case 'creating':
      return 'while its successor was being created';
    case 'created':
      return management ? 'after the new management key was created, before it was stored' : 'before its successor reached every destination';
    case 'delivered':
      return 'after its successor was delivered, before the old key was handled';
    case 'ending':
      return 'once the old key was handled, while its copies of previous content were being removed';
    default:
      return 'after the new management key was stored, before the old one was deleted';
  }
}

/**
 * Where `u` stopped and how to take it up, as a face says it at its start: a command's warning
 * (naming the commands that finish or undo it), or the TUI's dialog line.
 */
export function unfinishedWords(u: UnfinishedView, face: Face): string {
  const at = u.op.startedAt.slice(0, 16).replace('T', ' ');
  if (face === 'tui') {
    if (u.kind === 'creation') return `The creation of the key "${u.op.name}" stopped ${stoppedWhere(u)}, on ${at} UTC.`;
    if (u.kind === 'rotation') return `The rotation of "${u.op.old.name}" (successor "${u.op.successor.name}") stopped ${stoppedWhere(u)}, on ${at} UTC.`;
    return `The rotation of the management key "${u.op.old.name}" stopped ${stoppedWhere(u)}, on ${at} UTC.`;
  }
  if (u.kind === 'creation') {
    return (
      `the creation of the ${u.op.kind === 'pledge' ? 'subscription ' : ''}key "${u.op.name}" was interrupted ${stoppedWhere(u)} on ${at} UTC: ` +
      `finish it with \`${createCommand(u.op.name, 'finish')}\` (or the same command again) or undo it with \`${createCommand(u.op.name, 'undo')}\``
    );
  }
  if (u.kind === 'mgmt') {
    const flags = u.op.target.kind === 'token_file' ? ` --token-file ${u.op.target.path}` : '';
    const where = u.op.target.kind === 'token_file' ? ` in the token file ${u.op.target.path}` : '';
    return `the rotation of the management key "${u.op.old.name}" (id ${u.op.old.id})${where} was interrupted ${stoppedWhere(u)} on ${at} UTC: finish it with \`keydeck mgmt-keys rotate --finish${flags}\` or undo it with \`keydeck mgmt-keys rotate --undo${flags}\``;
  }
  const management = u.op.kind === 'management';
  const group = management ? 'mgmt-keys' : 'keys';
  const target = management ? '' : ` ${u.op.old.id}`;
  return (
    `the rotation of the ${management ? 'management key' : 'key'} "${u.op.old.name}" (id ${u.op.old.id}) was interrupted ${stoppedWhere(u)} on ${at} UTC: ` +
    `finish it with \`keydeck ${group} rotate --finish${target}\` or undo it with \`keydeck ${group} rotate --undo${target}\``
  );
}
