/**
 * `keydeck mgmt-keys list | create | delete`: the management keys (`mk_`) through the service's endpoints
 * `GET /api/keys/management`, `POST /api/keys/management`, `DELETE /api/keys/management/:id`.
 *
 * `create` shows the full `mk_` value this once. `delete` asks on a terminal and needs `--yes`
 * without one (exit 2). Deleting the management key keydeck itself is signed in with warns that
 * keydeck will be signed out, and after the deletion removes the stored copy through the
 * credential store (as `keydeck auth logout` does); a key given in `KEYDECK_TOKEN` is never
 * stored, so then only a warning says it no longer works. Errors and exit codes: ./api-command.ts.
 */
import { keyPrefixOf } from '../api/errors.js';
import type { ManagementKey } from '../api/schemas.js';
import { originTarget, TOKEN_ENV_VAR } from '../credentials/index.js';
import { tokenKind } from '../credentials/token.js';
import { printData, type CommandDeps, type JsonFlag, type YesFlag } from './api-command.js';
import { checkKeyRef, keyByRef, MANAGEMENT_KEYS } from './keyRef.js';
import { confirmKeyChange, ensureCanConfirmKeyChange } from './confirm.js';
import { parseKeyName } from './input.js';
import { ExitCode, openSession, printFormatted, printLine, warn, type ExitCodeValue, type GlobalOptions } from './output.js';
import { ensureCanChange } from './changeGuard.js';
import { colorEnabled, formatTable, formatTimestamp, type Cell, type TerminalText } from './table.js';
import { visible } from '../terminal/sanitize.js';

/** The `mgmt-keys list` table: id, name, keyPrefix, isActive (yes/no), lastUsedAt (`never`), createdAt. */
export function managementKeysTable(keys: readonly ManagementKey[], options: { color?: boolean } = {}): TerminalText {
  const rows: Cell[][] = keys.map((k) => [
    k.id,
    k.name,
    `${k.keyPrefix}…`,
    k.isActive ? { text: 'yes', style: 'green' } : { text: 'no', style: 'yellow' },
    formatTimestamp(k.lastUsedAt, 'never'),
    formatTimestamp(k.createdAt),
  ]);
  return formatTable(['id', 'name', 'keyPrefix', 'isActive', 'lastUsedAt', 'createdAt'], rows, { color: options.color ?? false });
}

/**
 * `keydeck mgmt-keys list [--json]`: the table (followed by a line naming the key keydeck is
 * signed in with, when listed), or the service's endpoints array as JSON. Exit 0.
 */
export async function mgmtKeysList(globals: GlobalOptions, flags: JsonFlag = {}, deps: CommandDeps = {}): Promise<ExitCodeValue> {
  const { client, credential } = await openSession(globals, { ...deps.session, pendingRotations: true });
  const keys = await client.managementKeys.list();
  if (flags.json) {
    printData(keys);
    return ExitCode.ok;
  }
  if (keys.length === 0) {
    printLine('No management keys yet. Create one with: keydeck mgmt-keys create --name NAME (or keydeck auth login).');
    return ExitCode.ok;
  }
  printFormatted(managementKeysTable(keys, { color: colorEnabled() }));
  const mine = findOwnKey(keys, credential.token);
  if (mine) printLine(`keydeck is signed in with ${visible(mine.keyPrefix)}… ("${visible(mine.name)}", id ${visible(mine.id)}).`);
  return ExitCode.ok;
}

/**
 * `keydeck mgmt-keys create --name NAME [--json]` (the service's endpoints `POST /api/keys/management`). Prints the
 * full `mk_` value once: a short block in human mode, the created object with `--json`.
 * keydeck keeps using its own credential; the new key is for other tools (or `KEYDECK_TOKEN`).
 */
export async function mgmtKeysCreate(globals: GlobalOptions, flags: JsonFlag & { name: string }, deps: CommandDeps = {}): Promise<ExitCodeValue> {
  const name = parseKeyName(flags.name);
  await ensureCanChange(globals, 'create a management key', deps.session?.env);
  const { client } = await openSession(globals, { ...deps.session, pendingRotations: true });
  const created = await client.managementKeys.create({ name });
  if (flags.json) {
    printData(created);
    return ExitCode.ok;
  }
  printLine(`Created the management key "${visible(created.name)}" (${visible(created.keyPrefix)}…, id ${visible(created.id)}).`);
  printLine('');
  printLine(`  ${visible(created.apiKey)}`);
  printLine('');
  printLine('Copy it now: this is the only time the full key is shown; afterwards only its prefix is.');
  printLine('It manages the whole account (keys and billing): keep it like a password.');
  return ExitCode.ok;
}

/**
 * `keydeck mgmt-keys delete ID|NAME [--yes] [--json]` (the service's endpoints `DELETE /api/keys/management/:id`): the
 * key resolved first from the list (./keyRef.ts). When it is the key keydeck is signed in with: a
 * warning before (and in the question), and after success the stored credential of the profile is
 * removed. `--json` prints the service's body (not shown in the service's endpoints), or `null` when it was empty.
 */
export async function mgmtKeysDelete(globals: GlobalOptions, idOrName: string, flags: YesFlag & { confirmName?: string } = {}, deps: CommandDeps = {}): Promise<ExitCodeValue> {
  const given = checkKeyRef(idOrName, MANAGEMENT_KEYS);
  const marked = await ensureCanChange(globals, 'delete a management key', deps.session?.env);
  const confirm = { yes: flags.yes, ...(flags.confirmName !== undefined && { confirmName: flags.confirmName }), protected: marked.protected, profile: marked.name };
  ensureCanConfirmKeyChange({ ...confirm, command: `keydeck mgmt-keys delete ${given}` });
  const { client, credential, store, profile } = await openSession(globals, { ...deps.session, pendingRotations: true });
  const keys = await client.managementKeys.list();
  const key = keyByRef(keys, given, MANAGEMENT_KEYS);
  const keyId = key.id;
  // Only an mk_ credential can be among the listed keys (a session token is not a management key).
  const own = tokenKind(credential.token) === 'management' ? findOwnKey(keys, credential.token) : undefined;
  const isOwn = own !== undefined && own.id === keyId;
  const label = `the management key "${visible(key.name)}" (id ${visible(keyId)})`;
  if (isOwn) {
    const where = credential.source === 'env' ? TOKEN_ENV_VAR : `the ${credential.source === 'keychain' ? 'keychain' : 'key file'} of profile "${profile.name}"`;
    warn(`${visible(keyId)} is the management key keydeck is signed in with (${visible(own.keyPrefix)}…, from ${where}): deleting it signs keydeck out`);
  }
  await confirmKeyChange({
    ...confirm,
    name: key.name,
    question: `Delete ${label}?${isOwn ? ' keydeck is signed in with it and will be signed out.' : ''} Tools using it stop working at once.`,
    command: `keydeck mgmt-keys delete ${visible(keyId)}`,
  });
  const result = await client.managementKeys.delete(keyId);
  if (flags.json) printData(result);
  else printLine(`Deleted ${label}.`);
  if (isOwn) {
    if (credential.source === 'env') {
      warn(`${TOKEN_ENV_VAR} still holds the deleted key ${visible(own.keyPrefix)}…: unset it, then run keydeck auth login`);
    } else {
      const removed = await store.delete(profile.name, originTarget(profile.baseUrl, profile.savedBaseUrl));
      const where = removed.removedFrom.map((s) => (s === 'keychain' ? 'the keychain' : 'the plaintext key file')).join(' and ') || 'nowhere (it was not stored)';
      warn(`keydeck is signed out of profile "${profile.name}": removed the deleted key ${visible(own.keyPrefix)}… from ${where}; run keydeck auth login to sign in again`);
      if (removed.keychainError && credential.source === 'keychain') warn(`the keychain could not be asked, so a copy there may remain: ${removed.keychainError}`);
    }
  }
  return ExitCode.ok;
}

/** The listed key whose `keyPrefix` is the prefix of `token` (an `mk_` value), if any. */
export function findOwnKey(keys: readonly ManagementKey[], token: string): ManagementKey | undefined {
  if (tokenKind(token) !== 'management') return undefined;
  const prefix = keyPrefixOf(token);
  return keys.find((k) => k.keyPrefix === prefix);
}
