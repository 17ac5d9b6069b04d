/**
 * `keydeck keys create | rename | enable | disable | delete` (`list` is ./keysList.ts): the consumption keys
 * (`sk_`) through the service's endpoints `GET /api/keys`, `POST /api/keys/credit`, `PUT /api/keys/:id`,
 * `DELETE /api/keys/:id`, with the service's states and transitions transitions (pause, resume, delete).
 *
 * Human output is a table or one sentence on stdout; `--json` prints exactly the service's data
 * as one JSON document (for `rename`/`enable`/`disable`, whose response the service's endpoints does not show: what
 * came back, or `null` when the body was empty). `create` shows the full `sk_` value this once.
 * Input is checked before anything is sent (exit 2); `delete` and `disable` ask on a terminal
 * and need `--yes` without one. Errors and exit codes: see ./api-command.ts.
 */
import { printData, type CommandDeps, type JsonFlag, type YesFlag } from './api-command.js';
import { checkKeyRef, keyByRef } from './keyRef.js';
import { confirmKeyChange, ensureCanConfirm, ensureCanConfirmKeyChange } from './confirm.js';
import { ensureNameFree } from './nameTaken.js';
import { paidTimeLost } from '../api/keyStatus.js';
import { reactivationRefusal } from '../billing/keyRefusals.js';
import { parseKeyName, parseSubscriptionId } from './input.js';
import { ExitCode, fail, openSession, printLine, type ExitCodeValue, type GlobalOptions } from './output.js';
import { ensureCanChange } from './changeGuard.js';
import { runKeysCreate } from './createKey.js';
import { deliveryPlanOf, type DeliveryFlags } from './keyDelivery.js';
import { visible } from '../terminal/sanitize.js';
import { keyWords } from './wordingKeys.js';

/** `--yes` and `--confirm-name NAME` of a delete or a deactivation (./confirm.ts `confirmKeyChange`). */
export interface ConfirmNameFlags extends YesFlag {
  /** The key's name, as a script confirms it (required with `--yes` on a protected profile). */
  readonly confirmName?: string;
}

/** The key commands say the interrupted rotations and key creations of the profile (./output.ts openSession). */
const KEY_WARNINGS = { pendingRotations: true, pendingCreations: true } as const;

/** The flags of `keys create`: the name as `--name` or the NAME argument, and `--subscription`. */
export interface KeysCreateFlags extends JsonFlag, DeliveryFlags {
  readonly name?: string;
  /** The NAME argument, when given (to refuse two different names). */
  readonly positionalName?: string;
  /** `--subscription ID`: mint the key of that subscription or pool pledge. */
  readonly subscription?: string;
  /** `--allow-duplicate-name`: create it even when another key has the name (./nameTaken.ts). */
  readonly allowDuplicateName?: boolean;
  /** `--finish [NAME]`: take up an interrupted creation. */
  readonly finish?: boolean;
  /** `--undo [NAME]`: give up an interrupted creation: destinations put back, the key deleted. */
  readonly undo?: boolean;
  readonly yes?: boolean;
}

/**
 * `keydeck keys create NAME | --name NAME [--subscription ID] [--to-file PATH[:VAR]]…
 * [--to-command 'CMD']… [--allow-duplicate-name] [--json]`, or `--finish [NAME]` / `--undo [NAME]
 * [--yes]`: a name another key has is asked about first, or refused without a terminal
 * (./nameTaken.ts); then creates a credit key (the service's endpoints `POST /api/keys/credit`; needs a balance above
 * 0, else `insufficient_balance`, exit 1), or with `--subscription ID` mints the one active key of
 * that subscription or pool pledge (`POST /api/keys/subscription`, refused before sending
 * when it already has one: exit 1 `subscription_has_key`, `subscription_not_active` or
 * `subscription_unknown`, "nothing was sent"), as the persisted machine of
 * src/operations/createKey.ts (./createKey.ts). Without a destination it prints the full `sk_`
 * value once (`--json`: the created object); with destinations they are checked first
 * (nothing is created when one cannot take a key, exit 1), the key goes to each of them and never
 * to the terminal, and
 * `--json` prints the created object without `apiKey` plus `deliveries`; a failed destination
 * ends with exit 1 `delivery_failed`, the creation recorded for `--finish` / `--undo`.
 */
export async function keysCreate(globals: GlobalOptions, flags: KeysCreateFlags, deps: CommandDeps = {}): Promise<ExitCodeValue> {
  if (flags.positionalName !== undefined && flags.name !== undefined && flags.positionalName !== flags.name) {
    fail(ExitCode.usage, keyWords.invalidRequestGiveNameOnce);
  }
  if (flags.finish && flags.undo) fail(ExitCode.usage, keyWords.invalidRequestFinishUndoCannot);
  const resuming = flags.finish === true || flags.undo === true;
  await ensureCanChange(globals, flags.undo ? 'undo a key creation' : flags.finish ? 'finish a key creation' : 'create a key', deps.session?.env);
  if (flags.name === undefined && !resuming) fail(ExitCode.usage, keyWords.invalidRequestNameGiveKey);
  const name = flags.name === undefined ? undefined : resuming ? flags.name : parseKeyName(flags.name);
  const subscriptionId = flags.subscription === undefined ? undefined : parseSubscriptionId(flags.subscription);
  const plan = deliveryPlanOf(flags);
  if (flags.undo) ensureCanConfirm({ yes: flags.yes, command: `keydeck keys create --undo ${name ?? ''}`.trim() });
  const session = await openSession(globals, { ...deps.session, pendingRotations: true, pendingCreations: !resuming });
  return runKeysCreate(
    session,
    // A name another key has is asked about before a new key is created (not when one is taken up).
    {
      ...(name !== undefined && { name }),
      ...(subscriptionId !== undefined && { subscriptionId }),
      plan,
      finish: flags.finish === true,
      undo: flags.undo === true,
      yes: flags.yes === true,
      json: flags.json === true,
      allowDuplicateName: flags.allowDuplicateName === true,
    },
  );
}

/**
 * `keydeck keys rename ID|NAME --name NAME [--allow-duplicate-name] [--json]` (the service's endpoints `PUT
 * /api/keys/:id` with `name`): the key resolved first (./keyRef.ts), then a name another key has is
 * asked about (./nameTaken.ts).
 */
export async function keysRename(globals: GlobalOptions, idOrName: string, flags: JsonFlag & { name: string; allowDuplicateName?: boolean }, deps: CommandDeps = {}): Promise<ExitCodeValue> {
  const given = checkKeyRef(idOrName);
  const name = parseKeyName(flags.name);
  await ensureCanChange(globals, 'rename a key', deps.session?.env);
  const { client } = await openSession(globals, { ...deps.session, ...KEY_WARNINGS });
  const keys = await client.keys.list();
  const key = keyByRef(keys, given);
  await ensureNameFree(async () => keys, name, { action: 'rename', exceptId: key.id, ...(flags.allowDuplicateName && { allowDuplicate: true }) });
  const result = await client.keys.update(key.id, { name });
  if (flags.json) printData(result);
  else printLine(`Renamed the key "${visible(key.name)}" (id ${visible(key.id)}) to "${visible(name)}".`);
  return ExitCode.ok;
}

/**
 * `keydeck keys enable ID|NAME` / `keydeck keys disable ID|NAME [--yes]` (the service's endpoints `PUT /api/keys/:id`
 * with `isActive`; the service's states and transitions: a disabled key is revoked at once, enabling reactivates it): the key
 * resolved first (./keyRef.ts). `disable` asks on a terminal and needs `--yes` without one (exit 2).
 */
export async function keysSetActive(globals: GlobalOptions, idOrName: string, isActive: boolean, flags: ConfirmNameFlags = {}, deps: CommandDeps = {}): Promise<ExitCodeValue> {
  const given = checkKeyRef(idOrName);
  const marked = await ensureCanChange(globals, isActive ? 'enable a key' : 'disable a key', deps.session?.env);
  const confirm = { yes: flags.yes, ...(flags.confirmName !== undefined && { confirmName: flags.confirmName }), protected: marked.protected, profile: marked.name };
  if (!isActive) ensureCanConfirmKeyChange({ ...confirm, command: `keydeck keys disable ${given}` });
  const { client } = await openSession(globals, { ...deps.session, ...KEY_WARNINGS });
  // The key as listed (its name, whether it is an expired subscription, its paid time left), by
  // The service's clock (the list's HTTP Date).
  const key = keyByRef(await client.keys.list(), given);
  const keyId = key.id;
  const now = client.serviceNow();
  const ended = reactivationRefusal(key, now);
  const expired = ended !== undefined;
  // An ended subscription cannot be switched back on (src/billing/keyRefusals.ts): said before
  // anything is sent, with what does work, instead of the service's bare refusal.
  if (isActive && ended) {
    fail(ExitCode.refused, keyWords.subscriptionEnded, { name: key.name, keyId, ended: ended.ended });
  }
  const label = `the key "${visible(key.name)}" (id ${visible(keyId)})`;
  if (!isActive) {
    const lost = paidTimeLost(key, 'deactivate', now);
    await confirmKeyChange({
      ...confirm,
      name: key.name,
      question: expired
        ? `Disable ${label}? Its subscription has ended, so it cannot be enabled again.`
        : `Disable ${label}? It stops working at once, until \`keydeck keys enable ${visible(keyId)}\`${lost ? `; ${lost}` : ''}.`,
      command: `keydeck keys disable ${visible(keyId)}`,
    });
  }
  const result = await client.keys.update(keyId, { isActive });
  if (flags.json) printData(result);
  else if (isActive) printLine(`Enabled ${label}: it works again.`);
  else if (ended) printLine(`Disabled ${label}: its subscription has ended (${ended.ended}).`);
  else printLine(`Disabled ${label}: it is refused from now on; \`keydeck keys enable ${visible(keyId)}\` turns it back on.`);
  return ExitCode.ok;
}

/**
 * `keydeck keys delete ID|NAME [--yes] [--json]` (the service's endpoints `DELETE /api/keys/:id`; the service's states and transitions: permanent): the
 * key resolved first (./keyRef.ts). Asks on a terminal, needs `--yes` without one (exit 2).
 * `--json` prints `{ "deleted": true }`.
 */
export async function keysDelete(globals: GlobalOptions, idOrName: string, flags: ConfirmNameFlags = {}, deps: CommandDeps = {}): Promise<ExitCodeValue> {
  const given = checkKeyRef(idOrName);
  // Read-only first (exit 3, whatever --yes says), then what a confirmation needs, before anything is sent.
  const marked = await ensureCanChange(globals, 'delete a key', deps.session?.env);
  const confirm = { yes: flags.yes, ...(flags.confirmName !== undefined && { confirmName: flags.confirmName }), protected: marked.protected, profile: marked.name };
  ensureCanConfirmKeyChange({ ...confirm, command: `keydeck keys delete ${given}` });
  const { client } = await openSession(globals, { ...deps.session, ...KEY_WARNINGS });
  const key = keyByRef(await client.keys.list(), given);
  const label = `the key "${visible(key.name)}" (id ${visible(key.id)})`;
  const lost = paidTimeLost(key, 'delete', client.serviceNow());
  await confirmKeyChange({
    ...confirm,
    name: key.name,
    question: `Delete ${label}? It is revoked at once and cannot be restored${lost ? `; ${lost}` : ''}.`,
    command: `keydeck keys delete ${visible(key.id)}`,
  });
  const result = await client.keys.delete(key.id);
  if (flags.json) printData(result);
  else printLine(`Deleted ${label}.`);
  return ExitCode.ok;
}
