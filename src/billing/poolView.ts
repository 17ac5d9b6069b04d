/**
 * The pools in words, shared by `keydeck pools` and the TUI's pools view: one row per
 * pool (model, status, seats, the lowest monthly price of a seat and the annual discount) and
 * one row per block of a pool (its UTC hours, seats free of all, monthly and yearly price of a
 * seat). Pure; texts are the service's and are sanitised by whoever writes them to a terminal.
 * Prices are read exactly (src/api/money.ts) and shown to the cent, cut toward −∞.
 */
import { parseUsdMicros, formatUsd } from '../api/money.js';
import { BLOCK_HOURS, blockStartHour } from '../api/poolBlocks.js';
import type { Pool, PoolBlock } from '../api/poolSchemas.js';

/** `$39.00/mo` for a monthly USD amount; `—` when unknown. */
export function monthlyText(usd: number | undefined): string {
  return usd === undefined ? '—' : `${formatUsd(usd)}/mo`;
}

/** `15 % off yearly`; `—` when not sent. */
export function discountText(fraction: number | undefined): string {
  if (fraction === undefined) return '—';
  const percent = Math.round(fraction * 1000) / 10;
  return `${percent} % off yearly`;
}

/** A year of `monthlyUsd` with `discount` off (billed yearly), in USD to the cent (cut). */
export function yearlyUsd(monthlyUsd: number, discount = 0): number {
  const micros = parseUsdMicros(monthlyUsd) ?? 0;
  const cents = Math.floor((micros * 12 * (1 - discount)) / 10_000 + 1e-6);
  return cents / 100;
}

/** `3 of 10` seats pledged; `10 seats`; `—`. */
export function seatsText(pool: Pick<Pool, 'totalSlots' | 'pledgedSlots'>): string {
  if (pool.totalSlots === undefined) return pool.pledgedSlots === undefined ? '—' : `${pool.pledgedSlots} pledged`;
  return pool.pledgedSlots === undefined ? `${pool.totalSlots} seats` : `${pool.pledgedSlots} of ${pool.totalSlots} pledged`;
}

/**
 * The cells of one pool in a list: slug (or id), model, status, seats, from, annual; `compact`
 * (a terminal table): `3/10`, `$39.00`, `15 %` under {@link POOL_HEADERS_COMPACT}.
 */
export function poolRow(pool: Pool, compact = false): [string, string, string, string, string, string] {
  const seats = compact ? `${pool.pledgedSlots ?? '?'}/${pool.totalSlots ?? '?'}` : seatsText(pool);
  const price = pool.minMonthlyUsd === undefined ? '—' : compact ? formatUsd(pool.minMonthlyUsd) : `from ${monthlyText(pool.minMonthlyUsd)}`;
  const annual = compact ? (pool.annualDiscount === undefined ? '—' : `${Math.round(pool.annualDiscount * 1000) / 10} %`) : discountText(pool.annualDiscount);
  return [pool.slug ?? pool.id, pool.modelName ?? pool.modelId ?? '—', pool.status ?? '—', seats, price, annual];
}

/** The headers of {@link poolRow}. */
export const POOL_HEADERS = ['pool', 'model', 'status', 'seats', 'price per seat', 'annual'] as const;
/** The headers of {@link poolRow} with `compact`. */
export const POOL_HEADERS_COMPACT = ['pool', 'model', 'status', 'pledged', 'from/mo', 'yearly off'] as const;

/** `08:00–16:00 UTC` for a block. */
export function blockHoursText(block: PoolBlock['name']): string {
  const start = blockStartHour(block);
  const pad = (h: number) => `${String(h).padStart(2, '0')}:00`;
  return `${pad(start)}–${pad(start + BLOCK_HOURS)} UTC`;
}

/** The cells of one block: name, hours, free seats, monthly price, yearly price with the discount. */
export function blockRow(block: PoolBlock, annualDiscount: number | undefined): [string, string, string, string, string] {
  return [
    block.name,
    blockHoursText(block.name),
    `${block.availableSeats} of ${block.seats} free`,
    monthlyText(block.monthlyUsd),
    block.monthlyUsd === undefined ? '—' : `${formatUsd(yearlyUsd(block.monthlyUsd, annualDiscount ?? 0))}/yr`,
  ];
}

/** The headers of {@link blockRow}. */
export const BLOCK_HEADERS = ['block', 'hours', 'seats', 'monthly', 'yearly'] as const;

/** The facts of one pool as `[label, value]` pairs (only those the service sent). */
export function poolFacts(pool: Pool): Array<[string, string]> {
  const facts: Array<[string, string | undefined]> = [
    ['pool', pool.slug === undefined ? pool.id : `${pool.slug} (id ${pool.id})`],
    ['model', pool.modelName === undefined ? pool.modelId : `${pool.modelName}${pool.modelId !== undefined && pool.modelId !== pool.modelName ? ` (${pool.modelId})` : ''}`],
    ['status', pool.status],
    ['seats', seatsText(pool)],
    ['price per seat', pool.minMonthlyUsd === undefined ? undefined : `from ${monthlyText(pool.minMonthlyUsd)}`],
    ['annual billing', pool.annualDiscount === undefined ? undefined : discountText(pool.annualDiscount)],
    ['infrastructure', pool.infraSpec],
    ['key delivery', pool.manualProvisioning === undefined ? undefined : pool.manualProvisioning ? 'by hand, within 24 h' : 'at once'],
    ['about', pool.description],
    ['not read', pool.problems.length > 0 ? pool.problems.join(', ') : undefined],
  ];
  return facts.filter((f): f is [string, string] => f[1] !== undefined);
}
