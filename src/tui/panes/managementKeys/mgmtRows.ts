/**
 * Pure helpers of the Management keys pane: sort, columns, display row.
 */
import type { ManagementKey } from '../../../api/schemas.js';
import type { DataColumn, DataRow } from '../../components/DataTable.js';
import { tableWidth } from '../../components/DataTable.js';
import { newestFirst, relativeAgo, shortDate } from '../../format.js';
import { symbols } from '../../theme.js';

/** Newest first ({@link newestFirst}). */
export function sortManagementKeys(keys: readonly ManagementKey[]): ManagementKey[] {
  return newestFirst(keys);
}

/** Table columns for a terminal `width` cells wide. */
export function managementColumns(width: number, compact: boolean): DataColumn[] {
  const fixed: DataColumn[] = [
    { key: 'prefix', title: 'key prefix', width: 11 },
    { key: 'status', title: 'status', width: 10 },
    { key: 'lastUsed', title: 'last used', width: 11 },
    ...(compact ? [] : [{ key: 'created', title: 'created ↓', width: 10 }]),
  ];
  const nameWidth = Math.max(8, width - tableWidth([0, ...fixed.map((c) => c.width)]));
  return [{ key: 'name', title: '  name', width: nameWidth }, ...fixed];
}

/** The display row of `key`: `▶` when selected, `◆` when keydeck uses it. */
export function managementRow(key: ManagementKey, selected: boolean, inUse: boolean, now: number): DataRow {
  return {
    name: `${selected ? symbols.selected : ' '} ${inUse ? `${symbols.inUse} ` : ''}${key.name}`,
    prefix: key.keyPrefix,
    status: key.isActive ? `${symbols.active} active` : `${symbols.inactive} inactive`,
    lastUsed: relativeAgo(key.lastUsedAt, now),
    created: shortDate(key.createdAt),
  };
}
