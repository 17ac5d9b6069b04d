/**
 * `keydeck keys list [--json]`: the consumption keys (§4 `GET /api/keys`) as a table, or the §4
 * array as JSON with each key's published limits. Its own module, apart from the other `keys`
 * commands so that a read of the list loads the client, the session
 * and the table, nothing of key creation, delivery or the history database (bench/oneshot.mjs;
 * test/house/oneshot.test.ts keeps Ink, React, Fastify, node:sqlite and viem out of its imports).
 * Errors and exit codes: see ./api-command.ts.
 */
import type { ConsumptionKey } from '../api/schemas.js';
import { keyStatus } from '../api/keyStatus.js';
import { plansFor, withLimits } from '../billing/keyLimits.js';
import { printData, type CommandDeps, type JsonFlag } from './api-command.js';
import { ExitCode, openSession, printFormatted, printLine, type ExitCodeValue, type GlobalOptions } from './output.js';
import { colorEnabled, formatTable, formatTimestamp, type Cell, type TerminalText } from './table.js';

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
  // The key commands say the interrupted rotations and key creations of the profile (./output.ts openSession).
  const { client } = await openSession(globals, { ...deps.session, pendingRotations: true, pendingCreations: true });
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
