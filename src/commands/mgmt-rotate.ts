/**
 * `keydeck mgmt-keys rotate [--name NAME] [--token-file PATH] [--finish | --undo] [--json]`:
 * replaces a management key where it lives — the one keydeck itself uses (the
 * keychain, or the plaintext file of `--insecure-storage`), or with `--token-file PATH` the key in a
 * token file another program reads (the exporter's), written back where it was read, atomically,
 * with its owner and mode. The new `mk_` is created (the service's endpoints `POST /api/keys/management`), stored, read
 * back, checked against the service (`GET /api/keys/management` with it), and only then is the old
 * one deleted. The steps are the machine of src/operations/mgmtRotate.ts (its table names every
 * crash point), which this face drives and whose events it says (src/operations/wording.ts); an
 * interrupted rotation is named at the next start and taken up by `--finish`, `--undo` or a plain
 * rerun (which finishes it). Neither key is ever printed.
 *
 * Not possible in place, and said so: a key given in `KEYDECK_TOKEN` (keydeck does not know where
 * the variable is set), a session token (not a management key), and a token file holding the key
 * keydeck itself has stored for the profile (keydeck would delete the key it signs in with).
 */
import path from 'node:path';
import { KeydeckClient } from '../api/client.js';
import { keyPrefixOf } from '../api/errors.js';
import { dataDir } from '../config/paths.js';
import { clientTimeoutFromEnv } from '../config/timeout.js';
import { describeCredential, originOf, originTarget } from '../credentials/index.js';
import { tokenKind } from '../credentials/token.js';
import {
  CredentialPlaceError,
  MgmtRotationRecord,
  OperationDrivers,
  resumeManagementRotation,
  rotateManagementKey,
  failpointsFrom,
  storePlace,
  tokenFilePlace,
  type CredentialPlace,
  type MgmtRotationContext,
  type MgmtRotationResult,
} from '../operations/index.js';
import { visible } from '../terminal/sanitize.js';
import { printData, type CommandDeps, type JsonFlag } from './api-command.js';
import { parseKeyName } from './input.js';
import { operationFailure, renderEvent, say } from './keyDelivery.js';
import { cliSignIn, ExitCode, fail, openSession, type ExitCodeValue, type GlobalOptions, type Session } from './output.js';
import { ensureCanChange } from './changeGuard.js';
import { keyWords } from './wordingKeys.js';

/** Flags of `mgmt-keys rotate`. */
export interface MgmtRotateFlags extends JsonFlag {
  readonly name?: string;
  readonly finish?: boolean;
  readonly undo?: boolean;
  /** The token file whose key is rotated (written back there), instead of keydeck's stored key. */
  readonly tokenFile?: string;
}

/** The session and the place of the key to rotate. */
async function open(globals: GlobalOptions, flags: MgmtRotateFlags, deps: CommandDeps): Promise<{ session: Session; place: CredentialPlace }> {
  const env = deps.session?.env ?? process.env;
  if (flags.tokenFile !== undefined) {
    if (flags.tokenFile.trim() === '' || /^(mk_|sk_)/.test(flags.tokenFile)) {
      fail(ExitCode.usage, keyWords.usageTokenFileTakes);
    }
    const file = path.resolve(flags.tokenFile);
    const place = tokenFilePlace(file, env);
    let token: string | undefined;
    try {
      token = await place.read();
    } catch (err) {
      fail(ExitCode.refused, keyWords.cannotRotateCreated, { err });
    }
    if (token === undefined) fail(ExitCode.usage, keyWords.tokenFileMissing, { file });
    const session = await openSession(globals, { ...deps.session, pendingRotations: false, tokenFile: { token, path: file } });
    const { profile, store } = session;
    const stored = await store.get(profile.name, { ...originTarget(profile.baseUrl, profile.savedBaseUrl), ignoreEnv: true }).catch(() => undefined); // no stored key readable: nothing to compare the token file with
    if (stored && tokenKind(token) === 'management' && keyPrefixOf(stored.token) === keyPrefixOf(token)) {
      fail(ExitCode.refused, keyWords.cannotRotateHoldsKeyItself, { file, token, name: profile.name });
    }
    return { session, place };
  }
  const session = await openSession(globals, { ...deps.session, pendingRotations: false });
  const { credential, profile, store } = session;
  if (credential.source === 'env') {
    fail(ExitCode.refused, keyWords.cannotRotateKeyComesFrom);
  }
  if (tokenKind(credential.token) !== 'management') fail(ExitCode.refused, keyWords.cannotRotateSignedInWith);
  return { session, place: storePlace(store, profile.name, originTarget(profile.baseUrl, profile.savedBaseUrl), credential.source === 'file', credential.path) };
}

/** `mgmt-keys rotate`: see the module comment. */
export async function mgmtKeysRotate(globals: GlobalOptions, flags: MgmtRotateFlags = {}, deps: CommandDeps = {}): Promise<ExitCodeValue> {
  if (flags.finish && flags.undo) fail(ExitCode.usage, keyWords.invalidRequestFinishUndoCannot);
  await ensureCanChange(globals, 'rotate a management key', deps.session?.env);
  const name = flags.name !== undefined ? parseKeyName(flags.name) : undefined;
  const env = deps.session?.env ?? process.env;
  const json = flags.json === true;
  const { session, place } = await open(globals, flags, deps);
  const { profile } = session;
  const origin = originOf(profile.baseUrl);
  const record = new MgmtRotationRecord(dataDir(env));
  const ctx: MgmtRotationContext = {
    record,
    place,
    profile: profile.name,
    origin,
    keysWith: (token) =>
      new KeydeckClient({
        ...clientTimeoutFromEnv(env),
        baseUrl: profile.baseUrl,
        token,
        credential:
          place.target.kind === 'token_file'
            ? { label: `the management key ${keyPrefixOf(token)} in the token file ${place.target.path}`, whenRejected: `put a valid management key in ${place.target.path}` }
            : describeCredential(token, session.credential.source, profile.name, cliSignIn(profile.name)),
      }).managementKeys,
    drivers: new OperationDrivers(dataDir(env)),
    failpoints: failpointsFrom(env),
    emit: (event) => renderEvent(event, json),
  };
  let result: MgmtRotationResult;
  try {
    const pending = await record.find(profile.name, origin, place.target);
    if (flags.finish || flags.undo) {
      if (!pending) {
        say(`No unfinished rotation of the management key in ${place.describe()}.`, json);
        if (json) printData(null);
        return ExitCode.ok;
      }
      result = await resumeManagementRotation(ctx, pending, flags.undo ? 'undo' : 'finish', { name });
    } else if (pending) {
      say(visible(`An earlier rotation of "${pending.old.name}" was interrupted (${pending.startedAt.slice(0, 16).replace('T', ' ')} UTC): finishing it.`), json);
      result = await resumeManagementRotation(ctx, pending, 'finish', { name });
    } else {
      result = await rotateManagementKey(ctx, { name });
    }
  } catch (err) {
    if (err instanceof CredentialPlaceError)
      fail(ExitCode.refused, keyWords.credentialPlace, {
        message: err.message,
        tokenFile: flags.tokenFile,
        path: place.target.kind === 'token_file' ? place.target.path : undefined,
      });
    return operationFailure(err);
  } finally {
    ctx.drivers?.releaseAll();
  }
  if (result.kind === 'rotated' && place.target.kind === 'token_file') {
    say(`Programs that read ${place.target.path} when they start still hold the old key, deleted now: reload them (keydeck exporter reads its token files again on SIGHUP).`, json);
  }
  if (json) {
    const key = (k: { id?: string | undefined; name: string; keyPrefix?: string | undefined }) => ({ id: k.id, name: k.name, keyPrefix: k.keyPrefix });
    const where = place.target.kind === 'token_file' ? { tokenFile: place.target.path } : { storedIn: place.target.storedIn };
    if (result.kind === 'undone') printData({ undone: true, old: key(result.old), deleted: result.deleted, ...where });
    else printData({ ...(result.kind === 'kept_both' && { undone: true, keptBoth: true }), old: key(result.old), new: key(result.new), ...where });
  }
  return ExitCode.ok;
}
