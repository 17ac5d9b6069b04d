/**
 * `keydeck mgmt-keys rotate [--name NAME] [--json]` (issue 26): replaces the management key keydeck
 * itself uses, so that a long-lived key can be rotated on a schedule (cron): the new `mk_` is
 * created (§4 `POST /api/keys/management`), stored where the old one was (the keychain, or the
 * plaintext file when the profile uses `--insecure-storage`), read back from the store and checked
 * against the service (`GET /api/keys/management` with it), and only then is the old one deleted
 * (with the new key). Each step is in the rotation record (src/delivery/rotationRecord.ts, kind
 * `management`), so an interruption is named at the next start and taken up with `--finish` or
 * `--undo`. Neither key is ever printed.
 *
 * Not possible in place, and said so: a key given in `KEYDECK_TOKEN` (keydeck does not know where
 * the variable is set), and a session token (not a management key).
 */
import { KeydeckClient } from '../api/client.js';
import { KeydeckApiError, keyPrefixOf } from '../api/errors.js';
import type { ManagementKey } from '../api/schemas.js';
import { dataDir } from '../config/paths.js';
import { clientTimeoutFromEnv } from '../config/timeout.js';
import { credentialAccount, describeCredential, originOf, originTarget, TOKEN_ENV_VAR } from '../credentials/index.js';
import { tokenKind } from '../credentials/token.js';
import { successorName } from '../delivery/rotation.js';
import { RotationRecord, RotationRecordError, type Rotation } from '../delivery/rotationRecord.js';
import { visible } from '../terminal/sanitize.js';
import { printData, type CommandDeps, type JsonFlag } from './api-command.js';
import { parseKeyName } from './input.js';
import { say } from './keyDelivery.js';
import { ExitCode, fail, openSession, sentenceOf, type ExitCodeValue, type GlobalOptions, type Session } from './output.js';
import { findOwnKey } from './mgmt-keys.js';

/** Flags of `mgmt-keys rotate`. */
export interface MgmtRotateFlags extends JsonFlag {
  readonly name?: string;
  readonly finish?: boolean;
  readonly undo?: boolean;
}

/** How long ago a new key counts as this rotation's when found by name (clock skew, slow answers), ms. */
const FOUND_BY_NAME_WINDOW_MS = 10 * 60_000;

/** `mgmt-keys rotate`: see the module comment. */
export async function mgmtKeysRotate(globals: GlobalOptions, flags: MgmtRotateFlags = {}, deps: CommandDeps = {}): Promise<ExitCodeValue> {
  if (flags.finish && flags.undo) fail(ExitCode.usage, 'invalid_request: --finish and --undo cannot be given together');
  const env = deps.session?.env ?? process.env;
  const session = await openSession(globals, { ...deps.session, pendingRotations: false });
  const { credential, profile, client } = session;
  if (credential.source === 'env') {
    fail(
      ExitCode.refused,
      `cannot_rotate: the key comes from ${TOKEN_ENV_VAR}, which keydeck cannot change (it does not know where the variable is set). ` +
        'Rotate it yourself: `keydeck mgmt-keys create --name NAME --json` for the new key, put it where the variable is set, then `keydeck mgmt-keys delete OLD_ID --yes`',
    );
  }
  if (tokenKind(credential.token) !== 'management') fail(ExitCode.refused, 'cannot_rotate: keydeck is signed in with a session token, not a management key: `keydeck auth login` makes one');
  const record = new RotationRecord(dataDir(env));
  const origin = originOf(profile.baseUrl);
  const json = flags.json === true;
  try {
    const pending = (await record.list({ profile: profile.name, origin })).filter((r) => r.kind === 'management');
    if (flags.finish || flags.undo) {
      if (pending.length === 0) {
        say('No unfinished rotation of keydeck’s management key for this profile and service.', json);
        return ExitCode.ok;
      }
      return flags.undo ? await undo(session, record, pending[0]!, json) : await finish(session, record, pending[0]!, flags, json);
    }
    if (pending.length > 0) {
      fail(ExitCode.refused, `rotation_pending: an earlier rotation of keydeck’s management key was interrupted: \`keydeck mgmt-keys rotate --finish\` or \`--undo\` first`);
    }
    const keys = await client.managementKeys.list();
    const own = findOwnKey(keys, credential.token);
    if (!own) fail(ExitCode.refused, `not_found: the service lists no management key ${keyPrefixOf(credential.token)}…, so keydeck cannot tell which key to replace`);
    const name = flags.name !== undefined ? parseKeyName(flags.name) : successorName(own.name, keys.map((k) => k.name));
    const rotation = await record.start({ kind: 'management', profile: profile.name, origin, old: { id: own.id, name: own.name, keyPrefix: own.keyPrefix }, successor: { name } });
    return await rotateFrom(session, record, rotation, json);
  } catch (err) {
    if (err instanceof RotationRecordError) fail(ExitCode.refused, `rotation_record: ${err.message}`);
    throw err;
  }
}

/** Steps from `creating`: create, store, check, delete the old key. */
async function rotateFrom(session: Session, record: RotationRecord, rotation: Rotation, json: boolean): Promise<ExitCodeValue> {
  const { client, store, profile, credential } = session;
  let created;
  try {
    created = await client.managementKeys.create({ name: rotation.successor.name });
  } catch (err) {
    if (!(err instanceof KeydeckApiError && err.outcomeUnknown)) await record.remove(rotation.id);
    throw err;
  }
  let current = await record.update(rotation.id, { stage: 'created', successor: { name: created.name, id: created.id, keyPrefix: created.keyPrefix } });
  say(`Created the management key "${visible(created.name)}" (${visible(created.keyPrefix)}…).`, json);

  // Stored where the old one was: the keychain, or the plaintext file the profile consented to.
  const target = originTarget(profile.baseUrl, profile.savedBaseUrl);
  let stored: { source: 'keychain' | 'file'; path?: string };
  try {
    stored = await store.set(profile.name, created.apiKey, { ...target, insecureStorage: credential.source === 'file' });
    const back = await store.get(profile.name, { ...target, ignoreEnv: true });
    if (back?.token !== created.apiKey) throw new Error('the store does not give the new key back');
  } catch (err) {
    await undoCreate(session, record, current, credential.token);
    fail(ExitCode.refused, `store_failed: the new management key could not be stored (${sentenceOf(err).replace(/\.$/, '')}); it was deleted again, and keydeck keeps using ${keyPrefixOf(credential.token)}…`);
  }
  current = await record.update(rotation.id, { stage: 'stored', storedIn: stored.source });
  const where = stored.source === 'keychain' ? `the keychain (account "${credentialAccount(profile.name, target.origin)}")` : `the plaintext key file ${stored.path} (mode 0600, as before)`;
  say(`Stored it in ${where}.`, json);
  // Refused by the service after all: the old key (still in memory) goes back where it was.
  const rollback = async (why: string): Promise<never> => {
    await store.set(profile.name, credential.token, { ...target, insecureStorage: credential.source === 'file' });
    await undoCreate(session, record, current, credential.token);
    fail(ExitCode.refused, `check_failed: the service did not accept the new key (${why}); keydeck stored the old key ${keyPrefixOf(credential.token)}… again and deleted the new one`);
  };
  return checkAndDeleteOld(session, record, current, created.apiKey, json, rollback);
}

/** A client for the new key, as keydeck will use it from now on. */
function clientFor(session: Session, token: string): KeydeckClient {
  return new KeydeckClient({
    ...clientTimeoutFromEnv(process.env),
    baseUrl: session.profile.baseUrl,
    token,
    credential: describeCredential(token, session.credential.source, session.profile.name),
  });
}

/** Checks the new key against the service, then deletes the old one with it, and ends the rotation. */
async function checkAndDeleteOld(
  session: Session,
  record: RotationRecord,
  rotation: Rotation,
  newToken: string,
  json: boolean,
  rollback?: (why: string) => Promise<never>,
): Promise<ExitCodeValue> {
  const fresh = clientFor(session, newToken);
  let listed: ManagementKey[];
  try {
    listed = await fresh.managementKeys.list();
  } catch (err) {
    if (rollback && err instanceof KeydeckApiError && (err.code === 'unauthorized' || err.code === 'forbidden')) await rollback(sentenceOf(err).replace(/\.$/, ''));
    fail(ExitCode.refused, `check_failed: the service does not accept the new key yet (${sentenceOf(err).replace(/\.$/, '')}); the old key was not deleted; run \`keydeck mgmt-keys rotate --finish\` to check again`);
  }
  say(`The service accepts it.`, json);
  const old = listed.find((k) => k.id === rotation.old.id);
  if (old) {
    try {
      await fresh.managementKeys.delete(rotation.old.id);
    } catch (err) {
      if (!(err instanceof KeydeckApiError && err.code === 'not_found')) throw err;
    }
  }
  await record.remove(rotation.id);
  say(`Deleted the old management key "${visible(rotation.old.name)}" (${visible(rotation.old.keyPrefix ?? '')}…): keydeck now uses ${visible(rotation.successor.keyPrefix ?? '')}….`, json);
  if (json) {
    printData({ old: { id: rotation.old.id, name: rotation.old.name, keyPrefix: rotation.old.keyPrefix }, new: { id: rotation.successor.id, name: rotation.successor.name, keyPrefix: rotation.successor.keyPrefix }, storedIn: rotation.storedIn });
  }
  return ExitCode.ok;
}

/** The new keys of an interrupted rotation that were never stored (its own id, or found by name). */
async function unstored(session: Session, rotation: Rotation): Promise<string[]> {
  if (rotation.successor.id !== undefined) return [rotation.successor.id];
  const since = Date.parse(rotation.startedAt) - FOUND_BY_NAME_WINDOW_MS;
  const keys = await session.client.managementKeys.list();
  return keys.filter((k) => k.name === rotation.successor.name && k.id !== rotation.old.id && Date.parse(k.createdAt ?? '') >= since).map((k) => k.id);
}

/** Deletes the unstored new key(s) with `token` and drops the rotation. */
async function undoCreate(session: Session, record: RotationRecord, rotation: Rotation, token: string): Promise<string[]> {
  const client = clientFor(session, token);
  const ids = await unstored(session, rotation);
  for (const id of ids) {
    try {
      await client.managementKeys.delete(id);
    } catch (err) {
      if (!(err instanceof KeydeckApiError && err.code === 'not_found')) throw err;
    }
  }
  await record.remove(rotation.id);
  return ids;
}

/** `--finish`: a new key never stored is deleted and the rotation starts again; one stored is checked and the old key deleted. */
async function finish(session: Session, record: RotationRecord, rotation: Rotation, flags: MgmtRotateFlags, json: boolean): Promise<ExitCodeValue> {
  const token = session.credential.token;
  if (rotation.stage === 'stored') {
    // The store holds the new key now (keydeck's session was opened with it).
    if (keyPrefixOf(token) !== rotation.successor.keyPrefix) {
      fail(ExitCode.refused, `rotation_mismatch: the stored key is ${keyPrefixOf(token)}…, not the new ${rotation.successor.keyPrefix ?? '?'}… this rotation stored: \`keydeck mgmt-keys rotate --undo\` drops the record`);
    }
    say(`Finishing the rotation of "${visible(rotation.old.name)}": the new key is stored.`, json);
    return checkAndDeleteOld(session, record, rotation, token, json);
  }
  const lost = await unstored(session, rotation);
  say(`Finishing the rotation of "${visible(rotation.old.name)}": the new key was never stored and its value is gone; ${lost.length > 0 ? 'it is deleted and ' : ''}another one is made.`, json);
  await undoCreate(session, record, rotation, token);
  const again = await record.start({ kind: 'management', profile: rotation.profile, origin: rotation.origin, old: rotation.old, successor: { name: flags.name ?? rotation.successor.name } });
  return rotateFrom(session, record, again, json);
}

/** `--undo`: a new key never stored is deleted; once stored, the old key is kept (both stay valid) and the record dropped. */
async function undo(session: Session, record: RotationRecord, rotation: Rotation, json: boolean): Promise<ExitCodeValue> {
  if (rotation.stage === 'stored') {
    await record.remove(rotation.id);
    say(
      `The new key ${visible(rotation.successor.keyPrefix ?? '')}… is stored and keydeck uses it; the old "${visible(rotation.old.name)}" is kept on the service (delete it with \`keydeck mgmt-keys delete ${rotation.old.id}\` when nothing else uses it).`,
      json,
    );
    return ExitCode.ok;
  }
  const ids = await undoCreate(session, record, rotation, session.credential.token);
  say(`Undone: ${ids.length > 0 ? `deleted the new management key${ids.length > 1 ? 's' : ''} ${ids.join(', ')}` : 'no new management key was found'}; keydeck keeps using ${keyPrefixOf(session.credential.token)}….`, json);
  return ExitCode.ok;
}
