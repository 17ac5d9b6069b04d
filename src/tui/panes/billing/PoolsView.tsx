/**
 * The pools view of the Billing pane (`p`), read-only: the service's pools
 * (`GET /api/pools`: model, status, seats, lowest monthly price of a seat, annual discount) and,
 * on enter, one pool (`GET /api/pools/:id`): its facts, its blocks (UTC hours, free seats,
 * monthly and yearly price) and its hour slots' availability hour by hour. What keydeck cannot
 * read is shown as a tree, never an error. Subscribing is not offered: the view says how to
 * (`SUBSCRIBE_HINT`). Keys (scope `pools`): j/k move, enter opens,
 * esc goes back (to the list, then to the pane), r reads again, c cancels the renewal of a
 * pledge in the selected pool (../../flows/CancelRenewalFlow.tsx).
 */
import { useMemo, useState } from 'react';
import { Box, Text } from 'ink';
import { BLOCK_NAMES } from '../../../api/poolBlocks.js';
import type { HourSlot, PoolAnswer, PoolList } from '../../../api/poolSchemas.js';
import { BLOCK_HEADERS, blockRow, POOL_HEADERS_COMPACT, poolFacts, poolRow } from '../../../billing/poolView.js';

/** How to subscribe: keydeck does not buy; the service's site (or its API) does; then n on the Keys pane mints the pledge's key. */
const SUBSCRIBE_HINT = 'keydeck does not subscribe: reserve seats on the service’s dashboard (or POST /api/pools/:id/subscribe), then mint the key with n on the Keys pane';
import { visible } from '../../../terminal/sanitize.js';
import { DataTable, tableWidth, type DataColumn, type DataRow } from '../../components/DataTable.js';
import { useKeymap } from '../../contexts/KeymapContext.js';
import { useSession } from '../../contexts/SessionContext.js';
import { describeFailure } from '../../errors.js';
import { displayWidth, truncateTo } from '../../format.js';
import { useResource } from '../../hooks/useResource.js';
import { theme } from '../../theme.js';
import { StatusTree, treeLines, type TreeLine } from './StatusTree.js';

/** Props of {@link PoolsView}. */
export interface PoolsViewProps {
  readonly columns: number;
  readonly rows: number;
  /** Back to the Billing pane. */
  readonly onClose: () => void;
  /** `c`: cancel the renewal of a pledge in this pool (its slug or id); absent: not offered. */
  readonly onCancelRenewal?: (pool: string) => void;
}

/**
 * Columns of a table fitted to `width`: the first takes what the others leave (at least 8 cells);
 * trailing columns give way while even that does not fit.
 */
function fitted(headers: readonly string[], given: readonly number[], width: number, cells: ReadonlyArray<readonly string[]> = []): DataColumn[] {
  // A column is at least as wide as its widest cell ("10 of 10 free" was cut).
  const widths = given.map((w, i) => (i === 0 ? w : Math.max(w, ...cells.map((row) => displayWidth(visible(row[i] ?? ''))))));
  let count = headers.length;
  while (count > 2 && tableWidth([8, ...widths.slice(1, count)]) > width) count--;
  const first = Math.max(8, width - tableWidth([0, ...widths.slice(1, count)]));
  return headers.slice(0, count).map((title, i) => ({ key: String(i), title, width: i === 0 ? first : widths[i]! }));
}

/** Cells as a table row (sanitised: the texts are the service's). */
const rowOf = (cells: readonly string[]): DataRow => Object.fromEntries(cells.map((c, i) => [String(i), visible(c)]));

/** Free seats per UTC hour, one line per block: `asia      00h 9  01h 9 …` (`—` for an hour without slots). */
export function hourLines(slots: readonly HourSlot[]): string[] {
  const free = new Array<number>(24).fill(0);
  const seen = new Array<boolean>(24).fill(false);
  for (const s of slots) {
    seen[s.hour] = true;
    if (s.status === 'available') free[s.hour]! += 1;
  }
  const cell = (h: number) => `${String(h).padStart(2, '0')}h ${seen[h] ? String(free[h]) : '—'}`.padEnd(8);
  return BLOCK_NAMES.map((block, b) => `${block.padEnd(10)}${Array.from({ length: 8 }, (_, i) => cell(b * 8 + i)).join('')}`.trimEnd());
}

/** See the module comment. */
export function PoolsView({ columns, rows, onClose, onCancelRenewal }: PoolsViewProps) {
  const { client } = useSession();
  const list = useResource<PoolList>((signal) => client!.pools!.list({ signal }), { key: client, enabled: client?.pools !== undefined });
  const [at, setAt] = useState(0);
  const [open, setOpen] = useState<string | undefined>(undefined);
  const pool = useResource<PoolAnswer>((signal) => client!.pools!.get(open!, { signal }), { key: open ?? '', enabled: client?.pools !== undefined && open !== undefined });
  const pools = list.data?.pools ?? [];
  const chosen = Math.min(at, Math.max(0, pools.length - 1));
  useKeymap(
    'pools',
    {
      'pools.down': open ? undefined : () => setAt((i) => Math.min(pools.length - 1, i + 1)),
      'pools.up': open ? undefined : () => setAt((i) => Math.max(0, i - 1)),
      'pools.open': !open && pools[chosen] ? () => setOpen(pools[chosen]!.slug ?? pools[chosen]!.id) : undefined,
      'pools.back': () => (open ? setOpen(undefined) : onClose()),
      'pools.cancel': onCancelRenewal && (open ?? pools[chosen]) ? () => onCancelRenewal(open ?? pools[chosen]!.slug ?? pools[chosen]!.id) : undefined,
      'pools.reload': () => void (open ? pool.reload() : list.reload()),
    },
    { modal: true },
  );
  const width = columns - 2;
  const unread = useMemo<TreeLine[]>(() => (list.data?.unread ?? []).flatMap((u) => [{ depth: 0, key: `entry ${u.index ?? ''} not read (${u.problem})` }, ...treeLines(u.value, 1)]), [list.data]);
  const heading = (text: string, loading: boolean, error: unknown) => (
    <>
      <Text color={theme.muted} wrap="truncate">{`${text}${loading ? ' · loading…' : ''}`}</Text>
      {error !== undefined ? <Text color={theme.danger} wrap="wrap">{`✕ ${describeFailure(error)}`}</Text> : null}
    </>
  );

  if (open) {
    const answer = pool.data;
    const one = answer && 'pool' in answer ? answer.pool : undefined;
    const facts = one ? poolFacts(one).slice(0, Math.max(1, rows - 15)) : [];
    const blockCells = (one?.blocks ?? []).map((b) => blockRow(b, one!.annualDiscount));
    return (
      <Box flexDirection="column" width={columns} height={rows} paddingX={1}>
        {heading(`pool ${visible(open)} (GET /api/pools/:id) · esc back · r reloads`, pool.loading, pool.error)}
        {facts.map(([k, v]) => (
          <Text key={k}>{truncateTo(`${k}: ${visible(v)}`, width)}</Text>
        ))}
        {one?.blocks && one.blocks.length > 0 ? (
          <>
            <DataTable columns={fitted(BLOCK_HEADERS, [0, 15, 12, 12, 13], width, blockCells)} rows={blockCells.map(rowOf)} />
            <Text color={theme.muted}>free seats by UTC hour:</Text>
            {hourLines(one.hourSlots ?? []).map((l, i) => (
              <Text key={i}>{truncateTo(l, width)}</Text>
            ))}
          </>
        ) : one ? (
          <Text>the service sent no hour slots: the blocks are not known</Text>
        ) : null}
        {answer && 'unread' in answer ? <StatusTree lines={treeLines(answer.unread.value)} offset={0} rows={Math.max(1, rows - 3)} columns={width} /> : null}
        <Text color={theme.muted} wrap="wrap">
          {SUBSCRIBE_HINT}
        </Text>
      </Box>
    );
  }
  const tableRows = Math.max(1, rows - 8 - (unread.length > 0 ? Math.min(6, unread.length) : 0));
  const poolCells = pools.map((p) => poolRow(p, true));
  const first = Math.max(0, Math.min(chosen - tableRows + 1, pools.length - tableRows));
  return (
    <Box flexDirection="column" width={columns} height={rows} paddingX={1}>
      {heading('pools (GET /api/pools) · enter opens one · esc back · r reloads', list.loading, list.error)}
      <DataTable
        columns={fitted(POOL_HEADERS_COMPACT, [0, 14, 10, 7, 8, 10], width, poolCells)}
        rows={poolCells.slice(first, first + tableRows).map(rowOf)}
        selectedIndex={chosen - first}
        emptyText={list.loading || list.data === undefined ? 'loading the pools…' : 'the service lists no pools'}
        position={pools.length > tableRows ? `${chosen + 1}/${pools.length}` : undefined}
      />
      {unread.length > 0 ? <StatusTree lines={unread} offset={0} rows={Math.min(6, unread.length)} columns={width} /> : null}
      <Text color={theme.muted} wrap="wrap">
        {SUBSCRIBE_HINT}
      </Text>
    </Box>
  );
}
