/**
 * `keydeck keys list | create | rename | enable | disable | delete`: the consumption keys
 * (`sk_`, §2.1) through §4 `GET /api/keys`, `POST /api/keys/credit`, `PUT /api/keys/:id`,
 * `DELETE /api/keys/:id`, with the §3 transitions (pause, resume, delete).
 *
 * Human output is a table or one sentence on stdout; `--json` prints exactly the service's data
 * as one JSON document (for `rename`/`enable`/`disable`, whose response §4 does not show: what
 * came back, or `null` when the body was empty). `create` shows the full `sk_` value this once.
 * Input is checked before anything is sent (exit 2); `delete` and `disable` ask on a terminal
 * and need `--yes` without one. Errors and exit codes: see ./api-command.ts.
 */
import type { ConsumptionKey } from '../api/schemas.js';
import { byId, printData, type CommandDeps, type JsonFlag, type YesFlag } from './api-command.js';
import { confirmDestructive, ensureCanConfirm } from './confirm.js';
import { ensureNameFree } from './nameTaken.js';
import { endedWords, keyStatus, paidTimeLost } from '../api/keyStatus.js';
import { parseKeyId, parseKeyName, parseSubscriptionId } from './input.js';
import { canPrompt, ExitCode, fail, openSession, printFormatted, printLine, type ExitCodeValue, type GlobalOptions, type Session } from './output.js';
import { runKeysCreate } from './createKey.js';
import { deliveryPlanOf, type DeliveryFlags } from './keyDelivery.js';
import { colorEnabled, formatTable, formatTimestamp, type Cell, type TerminalText } from './table.js';
import { visible } from '../terminal/sanitize.js';
import { plansFor, withLimits } from './keysShow.js';

const STATUS_STYLE = { active: 'green', inactive: 'yellow', expired: 'red' } as const;

/**
 * The `keys list` table: id, name, keyType, keyPlan, status (active/inactive/expired), expires
 * (the subscription's end; `never` for a credit key, §2.1), createdAt, and lastUsedAt when the
 * service sends it on any key (the newer documentation pages do; `never` for null). No key value (§5).
 */
export function keysTable(keys: readonly ConsumptionKey[], options: { color?: boolean; now?: number } = {}): TerminalText {
  const withLastUsed = keys.some((k) => k.lastUsedAt !== undefined);
  const rows: Cell[][] = keys.map((k) => {
    const status = keyStatus(k, options.now);
    return [
      k.id,
      k.name,
      k.keyType,
      k.keyPlan,
      { text: status, style: STATUS_STYLE[status] },
      k.subscriptionExpiresAt ? formatTimestamp(k.subscriptionExpiresAt) : k.keyType === 'credit' ? 'never' : '—',
      formatTimestamp(k.createdAt),
      ...(withLastUsed ? [k.lastUsedAt === undefined ? '—' : formatTimestamp(k.lastUsedAt, 'never')] : []),
    ];
  });
  const headers = ['id', 'name', 'keyType', 'keyPlan', 'status', 'expires', 'createdAt', ...(withLastUsed ? ['lastUsedAt'] : [])];
  return formatTable(headers, rows, { color: options.color ?? false });
}

/**
 * `keydeck keys list [--json]`: the table, or the §4 array as JSON, each entry with its published
 * `limits` (src/billing/keyLimits.ts: `{ requestsPerMinute, tokensPerMinute, concurrentRequests,
 * onlyInBlocks, boundedByBalance, source, sources }`, null when none are published; `GET
 * /api/plans` is read only when a legacy plan's key is listed). Exit 0.
 */
export async function keysList(globals: GlobalOptions, flags: JsonFlag = {}, deps: CommandDeps = {}): Promise<ExitCodeValue> {
  const { client } = await openSession(globals, deps.session);
  const keys = await client.keys.list();
  if (flags.json) {
    printData(withLimits(keys, await plansFor(client, keys)));
  } else if (keys.length === 0) {
    printLine('No consumption keys yet. Create a credit key with: keydeck keys create --name NAME');
  } else {
    printFormatted(keysTable(keys, { color: colorEnabled() }));
  }
  return ExitCode.ok;
}

/** The flags of `keys create`: the name as `--name` or the NAME argument, and `--subscription`. */
export interface KeysCreateFlags extends JsonFlag, DeliveryFlags {
  readonly name?: string;
  /** The NAME argument, when given (to refuse two different names). */
  readonly positionalName?: string;
  /** `--subscription ID`: mint the key of that subscription or pool pledge (issue 23). */
  readonly subscription?: string;
  /** `--allow-duplicate-name`: create it even when another key has the name (./nameTaken.ts). */
  readonly allowDuplicateName?: boolean;
  /** `--finish [NAME]`: take up an interrupted creation (issue 42). */
  readonly finish?: boolean;
  /** `--undo [NAME]`: give up an interrupted creation: destinations put back, the key deleted. */
  readonly undo?: boolean;
  readonly yes?: boolean;
}

/**
 * `keydeck keys create NAME | --name NAME [--subscription ID] [--to-file PATH[:VAR]]…
 * [--to-command 'CMD']… [--allow-duplicate-name] [--json]`, or `--finish [NAME]` / `--undo [NAME]
 * [--yes]`: a name another key has is asked about first, or refused without a terminal
 * (./nameTaken.ts); then creates a credit key (§4 `POST /api/keys/credit`; needs a balance above
 * 0, else `insufficient_balance`, exit 1), or with `--subscription ID` mints the one active key of
 * that subscription or pool pledge (`POST /api/keys/subscription`, issue 23; refused before sending
 * when it already has one: exit 1 `subscription_has_key`, `subscription_not_active` or
 * `subscription_unknown`, "nothing was sent"), as the persisted machine of
 * src/operations/createKey.ts (./createKey.ts). Without a destination it prints the full `sk_`
 * value once (`--json`: the created object); with destinations (issue 26) they are checked first
 * (nothing is created when one cannot take a key, exit 1), the key goes to each of them and never
 * to the terminal, and
 * `--json` prints the created object without `apiKey` plus `deliveries`; a failed destination
 * ends with exit 1 `delivery_failed`, the creation recorded for `--finish` / `--undo`.
 */
export async function keysCreate(globals: GlobalOptions, flags: KeysCreateFlags, deps: CommandDeps = {}): Promise<ExitCodeValue> {
  if (flags.positionalName !== undefined && flags.name !== undefined && flags.positionalName !== flags.name) {
    fail(ExitCode.usage, 'invalid_request: give the name once: as NAME or as --name NAME');
  }
  if (flags.finish && flags.undo) fail(ExitCode.usage, 'invalid_request: --finish and --undo cannot be given together');
  const resuming = flags.finish === true || flags.undo === true;
  if (flags.name === undefined && !resuming) fail(ExitCode.usage, 'invalid_request: --name: give the key’s name (keydeck keys create NAME, or --name NAME)');
  const name = flags.name === undefined ? undefined : resuming ? flags.name : parseKeyName(flags.name);
  const subscriptionId = flags.subscription === undefined ? undefined : parseSubscriptionId(flags.subscription);
  const plan = deliveryPlanOf(flags);
  if (flags.undo) ensureCanConfirm({ yes: flags.yes, command: `keydeck keys create --undo ${name ?? ''}`.trim() });
  const session = await openSession(globals, { ...deps.session, pendingCreations: !resuming });
  return runKeysCreate(
    session,
    // A name another key has is asked about before a new key is created (not when one is taken up).
    { ...(name !== undefined && { name }), ...(subscriptionId !== undefined && { subscriptionId }), plan, finish: flags.finish === true, undo: flags.undo === true, yes: flags.yes === true, json: flags.json === true, allowDuplicateName: flags.allowDuplicateName === true },
  );
}

/** The listed item with `id`, or undefined when the list cannot be read or has none. */
async function findQuietly<T extends { id: string }>(list: () => Promise<readonly T[]>, id: string): Promise<T | undefined> {
  try {
    return (await list()).find((k) => k.id === id);
  } catch {
    return undefined;
  }
}

/**
 * `keydeck keys rename ID --name NAME [--allow-duplicate-name] [--json]` (§4 `PUT /api/keys/:id`
 * with `name`); a name another key has is asked about first (./nameTaken.ts).
 */
export async function keysRename(
  globals: GlobalOptions,
  id: string,
  flags: JsonFlag & { name: string; allowDuplicateName?: boolean },
  deps: CommandDeps = {},
): Promise<ExitCodeValue> {
  const keyId = parseKeyId(id);
  const name = parseKeyName(flags.name);
  const { client } = await openSession(globals, deps.session);
  await ensureNameFree(() => client.keys.list(), name, { action: 'rename', exceptId: keyId, ...(flags.allowDuplicateName && { allowDuplicate: true }) });
  const result = await byId(keyId, () => client.keys.update(keyId, { name }), () => client.keys.list(), 'keydeck keys list');
  if (flags.json) printData(result);
  else printLine(`Renamed the key ${keyId} to "${name}".`);
  return ExitCode.ok;
}

/**
 * `keydeck keys enable ID` / `keydeck keys disable ID [--yes]` (§4 `PUT /api/keys/:id` with
 * `isActive`; §3: a disabled key is revoked at once, enabling reactivates it). `disable` asks on a
 * terminal and needs `--yes` without one (exit 2).
 */
export async function keysSetActive(
  globals: GlobalOptions,
  id: string,
  isActive: boolean,
  flags: YesFlag = {},
  deps: CommandDeps = {},
): Promise<ExitCodeValue> {
  const keyId = parseKeyId(id);
  if (!isActive) ensureCanConfirm({ yes: flags.yes, command: `keydeck keys disable ${keyId}` });
  const { client } = await openSession(globals, deps.session);
  // The key as listed (its name, whether it is an expired subscription, its paid time left), by
  // the service's clock (the list's HTTP Date); undefined when it cannot be read.
  const key = await findQuietly(() => client.keys.list(), keyId);
  const now = client.serviceNow();
  const expired = key !== undefined && keyStatus(key, now) === 'expired';
  // An ended subscription cannot be switched back on (§3): said before anything is sent, with
  // what does work, instead of the service's bare refusal.
  if (isActive && expired) {
    fail(
      ExitCode.refused,
      `subscription_ended: the key "${visible(key.name)}" (id ${keyId}) is a subscription whose paid period has ended, so it cannot be enabled again; ${endedWords(key)}. Nothing was sent`,
    );
  }
  const label = key !== undefined ? `the key "${visible(key.name)}" (id ${keyId})` : `the key ${keyId}`;
  if (!isActive) {
    const lost = key ? paidTimeLost(key, 'deactivate', now) : undefined;
    await confirmDestructive({
      yes: flags.yes,
      question: expired
        ? `Disable ${label}? Its subscription has ended, so it cannot be enabled again.`
        : `Disable ${label}? It stops working at once, until \`keydeck keys enable ${keyId}\`${lost ? `; ${lost}` : ''}.`,
      command: `keydeck keys disable ${keyId}`,
    });
  }
  const result = await byId(keyId, () => client.keys.update(keyId, { isActive }), () => client.keys.list(), 'keydeck keys list');
  if (flags.json) printData(result);
  else if (isActive) printLine(`Enabled ${label}: it works again.`);
  else if (expired) printLine(`Disabled ${label}: its subscription has ended (${endedWords(key)}).`);
  else printLine(`Disabled ${label}: it is refused from now on; \`keydeck keys enable ${keyId}\` turns it back on.`);
  return ExitCode.ok;
}

/**
 * `keydeck keys delete ID [--yes] [--json]` (§4 `DELETE /api/keys/:id`; §3: permanent). Asks on
 * a terminal, needs `--yes` without one (exit 2). `--json` prints `{ "deleted": true }`.
 */
export async function keysDelete(globals: GlobalOptions, id: string, flags: YesFlag = {}, deps: CommandDeps = {}): Promise<ExitCodeValue> {
  const keyId = parseKeyId(id);
  ensureCanConfirm({ yes: flags.yes, command: `keydeck keys delete ${keyId}` });
  const { client } = await openSession(globals, deps.session);
  const key = !flags.yes && canPrompt() ? await findQuietly(() => client.keys.list(), keyId) : undefined;
  const label = key !== undefined ? `the key "${visible(key.name)}" (id ${keyId})` : `the key ${keyId}`;
  const lost = key ? paidTimeLost(key, 'delete', client.serviceNow()) : undefined;
  await confirmDestructive({
    yes: flags.yes,
    question: `Delete ${label}? It is revoked at once and cannot be restored${lost ? `; ${lost}` : ''}.`,
    command: `keydeck keys delete ${keyId}`,
  });
  const result = await byId(keyId, () => client.keys.delete(keyId), () => client.keys.list(), 'keydeck keys list');
  if (flags.json) printData(result);
  else printLine(`Deleted ${label}.`);
  return ExitCode.ok;
}
