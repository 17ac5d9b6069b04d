/**
 * `keydeck pools [ID] [--json]`: the service's pools, read-only (`GET /api/pools`,
 * `GET /api/pools/:id`; https://docs.cheapestinference.com/api/unlimited-subscriptions/). Without
 * ID a table (pool, model, status, seats, lowest monthly price of a seat, annual discount); with
 * ID (UUID or slug) the pool's facts and its blocks (UTC hours, free seats, monthly and yearly
 * price). What keydeck cannot read is printed as a tree under the table, never an error.
 * `--json` prints the service's data as read (key values dropped): the list's entries, or the
 * pool. Subscribing is not offered (see `SUBSCRIBE_HINT`). Errors and exit codes: ./api-command.ts.
 */
import type { UnreadPool } from '../api/poolSchemas.js';
import { BLOCK_HEADERS, blockRow, POOL_HEADERS, poolFacts, poolRow } from '../billing/poolView.js';

/** How to subscribe: keydeck does not buy; the service's site (or its API) does. */
const SUBSCRIBE_HINT = 'keydeck does not subscribe: reserve seats on the service’s dashboard (or POST /api/pools/:id/subscribe), then mint the key with keydeck keys create --subscription ID NAME';
import { printData, type CommandDeps, type JsonFlag } from './api-command.js';
import { parseKeyId } from './input.js';
import { ExitCode, openSession, printFormatted, printLine, type ExitCodeValue, type GlobalOptions } from './output.js';
import { colorEnabled, flattenForDisplay, formatKeyValues, formatTable } from './table.js';

/** Prints what could not be read, each as a key/value tree under one line saying why. */
function printUnread(unread: readonly UnreadPool[]): void {
  for (const u of unread) {
    printLine('');
    printLine(`${u.index === undefined ? 'The answer' : `Entry ${u.index}`} is not a pool keydeck can read (${u.problem}); as sent:`);
    printFormatted(formatKeyValues(flattenForDisplay(u.value), { color: colorEnabled() }));
  }
}

/** `keydeck pools [ID] [--json]`. Exit 0; `not_found` (exit 1) for an unknown ID. */
export async function poolsCommand(globals: GlobalOptions, id: string | undefined, flags: JsonFlag = {}, deps: CommandDeps = {}): Promise<ExitCodeValue> {
  const poolId = id === undefined ? undefined : parseKeyId(id);
  const { client } = await openSession(globals, deps.session);
  const color = colorEnabled();
  if (poolId === undefined) {
    const list = await client.pools.list();
    if (flags.json) {
      printData([...list.pools.map((p) => p.raw), ...list.unread.map((u) => u.value)]);
      return ExitCode.ok;
    }
    if (list.pools.length === 0 && list.unread.length === 0) printLine('The service lists no pools.');
    if (list.pools.length > 0)
      printFormatted(
        formatTable(
          POOL_HEADERS,
          list.pools.map((p) => poolRow(p)),
          { color },
        ),
      );
    printUnread(list.unread);
    printLine('');
    printLine(`One pool’s blocks and free seats: keydeck pools ID. ${SUBSCRIBE_HINT}.`);
    return ExitCode.ok;
  }
  const answer = await client.pools.get(poolId);
  if (flags.json) {
    printData('pool' in answer ? answer.pool.raw : answer.unread.value);
    return ExitCode.ok;
  }
  if (!('pool' in answer)) {
    printUnread([answer.unread]);
    return ExitCode.ok;
  }
  const { pool } = answer;
  printFormatted(formatKeyValues(poolFacts(pool), { color }));
  printLine('');
  if (pool.blocks === undefined || pool.blocks.length === 0) printLine('The service sent no hour slots for this pool, so its blocks are not known.');
  else
    printFormatted(
      formatTable(
        BLOCK_HEADERS,
        pool.blocks.map((b) => blockRow(b, pool.annualDiscount)),
        { color },
      ),
    );
  printLine('');
  printLine(`${SUBSCRIBE_HINT}.`);
  return ExitCode.ok;
}
