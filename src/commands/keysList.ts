/**
 * `keydeck keys list [--json]`: the consumption keys (the service's endpoints `GET /api/keys`) as a table, or the service's endpoints
 * array as JSON with each key's published limits. Its own module, apart from the other `keys`
 * commands so that a read of the list loads the client, the session
 * and the table, nothing of key creation, delivery or the history database (bench/oneshot.mjs;
 * test/house/oneshot.test.ts keeps Ink, React, Fastify, node:sqlite and viem out of its imports).
 * Errors and exit codes: see ./api-command.ts.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import type { ConsumptionKey } from '../api/schemas.js';
import { dataDir } from '../config/paths.js';
import { originOf } from '../credentials/origin.js';
import type { GuardrailMark } from '../operations/queries.js';
import { keyStatus } from '../api/keyStatus.js';
import { plansFor, withLimits } from '../billing/keyLimits.js';
import { printData, type CommandDeps, type JsonFlag } from './api-command.js';
import { ExitCode, openSession, printFormatted, printLine, type ExitCodeValue, type GlobalOptions } from './output.js';
import { colorEnabled, formatTable, formatTimestamp, type Cell, type TerminalText } from './table.js';

const STATUS_STYLE = { active: 'green', inactive: 'yellow', expired: 'red' } as const;

/**
 * The `keys list` table: id, name, keyType, keyPlan, status (active/inactive/expired), expires
 * (the subscription's end; `never` for a credit key), createdAt, and lastUsedAt when the
 * service sends it on any key (the newer documentation pages do; `never` for null). No key value.
 */
export function keysTable(keys: readonly ConsumptionKey[], options: { color?: boolean; now?: number; marks?: ReadonlyMap<string, GuardrailMark> } = {}): TerminalText {
  const withLastUsed = keys.some((k) => k.lastUsedAt !== undefined);
  const marks = options.marks ?? new Map<string, GuardrailMark>();
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
      ...(marks.size > 0 ? [markCell(marks.get(k.id))] : []),
    ];
  });
  const headers = ['id', 'name', 'keyType', 'keyPlan', 'status', 'expires', 'createdAt', ...(withLastUsed ? ['lastUsedAt'] : []), ...(marks.size > 0 ? ['guardrail'] : [])];
  return formatTable(headers, rows, { color: options.color ?? false });
}

/** The guardrail cell of a key: `budget until 2026-06-02 00:00`, `expired by rule`, or empty. */
function markCell(mark: GuardrailMark | undefined): string {
  if (!mark) return '';
  if (mark.reason === 'budget') return mark.until === null ? 'budget (until enabled)' : `budget until ${formatTimestamp(mark.until)}`;
  return mark.reason === 'expiry' ? 'expired by rule' : 'past its maxAge';
}

/**
 * The keys a guardrail disabled (src/operations/guardrailRecord.ts), by id; empty without a
 * record (read only when the file exists: the one-shot path stays light). Never throws: a record
 * that cannot be read marks nothing (`keys list` still lists).
 */
async function guardrailMarks(profile: string, baseUrl: string, env: NodeJS.ProcessEnv): Promise<Map<string, GuardrailMark>> {
  const dir = dataDir(env);
  if (!existsSync(path.join(dir, 'guardrails.json'))) return new Map();
  try {
    const { guardrailEntries, guardrailMark } = await import('../operations/queries.js');
    const entries = await guardrailEntries(dir, { profile, origin: originOf(baseUrl) });
    const out = new Map<string, GuardrailMark>();
    for (const e of entries) {
      const mark = guardrailMark(entries, e.keyId);
      if (mark) out.set(e.keyId, mark);
    }
    return out;
  } catch {
    // a guardrail record that cannot be read marks nothing; keys list still lists
    return new Map();
  }
}

/**
 * `keydeck keys list [--json]`: the table, or the service's endpoints array as JSON, each entry with its published
 * `limits` (src/billing/keyLimits.ts: `{ requestsPerMinute, tokensPerMinute, concurrentRequests,
 * onlyInBlocks, boundedByBalance, source, sources }`, null when none are published; `GET
 * /api/plans` is read only when a legacy plan's key is listed) and, for a key a guardrail disabled,
 * its `guardrail`: `{ reason, limitUsd, period, since, until }` (docs/guardrails.md). Exit 0.
 */
export async function keysList(globals: GlobalOptions, flags: JsonFlag = {}, deps: CommandDeps = {}): Promise<ExitCodeValue> {
  // The key commands say the interrupted rotations and key creations of the profile (./output.ts openSession).
  const { client, profile } = await openSession(globals, { ...deps.session, pendingRotations: true, pendingCreations: true });
  const keys = await client.keys.list();
  // A key marked but active again was enabled by a person since: its mark is stale.
  const marks = new Map([...(await guardrailMarks(profile.name, profile.baseUrl, deps.session?.env ?? process.env))].filter(([id]) => keys.some((k) => k.id === id && !k.isActive)));
  if (flags.json) {
    printData(withLimits(keys, await plansFor(client, keys)).map((k) => (marks.has(k.id) ? { ...k, guardrail: marks.get(k.id) } : k)));
  } else if (keys.length === 0) {
    printLine('No consumption keys yet. Create a credit key with: keydeck keys create --name NAME');
  } else {
    printFormatted(keysTable(keys, { color: colorEnabled(), marks }));
  }
  return ExitCode.ok;
}
