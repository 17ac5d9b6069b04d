/**
 * The daily reserved-hour blocks of a pool subscription, as the service documents them
 * (seed the service's description: "1 to 3 daily 8-hour UTC blocks … `asia`, `europe` and `americas`"; the hours are the
 * Management API page's table, https://cheapestinference-docs.pages.dev/guides/management-api/:
 * `asia` 00:00–08:00, `europe` 08:00–16:00, `americas` 16:00–24:00 UTC). A pool key works only
 * inside its blocks; outside them its requests get 429
 * (https://cheapestinference-docs.pages.dev/guides/per-key-plans/).
 *
 * Pure time arithmetic in UTC epoch ms, shared by the client's readers and faces and by the
 * sandbox, which enforces the same hours on its own clock.
 */

/** The three documented block names, in the order of the day. */
export const BLOCK_NAMES = ['asia', 'europe', 'americas'] as const;
/** A documented block name. */
export type BlockName = (typeof BLOCK_NAMES)[number];

/** Hours per block. */
export const BLOCK_HOURS = 8;
const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

/** First UTC hour (0, 8 or 16) of a documented block. */
export function blockStartHour(block: BlockName): number {
  return BLOCK_NAMES.indexOf(block) * BLOCK_HOURS;
}

/** True for one of the three documented block names. */
export function isBlockName(value: unknown): value is BlockName {
  return typeof value === 'string' && (BLOCK_NAMES as readonly string[]).includes(value);
}

/** The block a UTC hour (0–23) belongs to. */
export function blockOfHour(hour: number): BlockName {
  return BLOCK_NAMES[Math.min(2, Math.max(0, Math.floor(hour / BLOCK_HOURS)))]!;
}

/**
 * Where a key with reserved `blocks` stands at `now` (epoch ms):
 * - `inside`: usable now; `block` is the current one and `endsAt` when the reservation stops
 *   (consecutive reserved blocks run together: europe + americas from 10:00 ends at 24:00);
 * - `outside`: its requests get 429 now; `block` is the next reserved one and `startsAt` its start.
 * Undefined when `blocks` holds no documented block name (nothing is guessed).
 */
export type ReservedHours = { readonly inside: true; readonly block: BlockName; readonly endsAt: number } | { readonly inside: false; readonly block: BlockName; readonly startsAt: number };

/** See {@link ReservedHours}. Unknown names in `blocks` are ignored here (shown as given elsewhere). */
export function reservedHoursAt(blocks: readonly string[], now: number): ReservedHours | undefined {
  const reserved = new Set(blocks.filter(isBlockName));
  if (reserved.size === 0) return undefined;
  const dayStart = Math.floor(now / DAY_MS) * DAY_MS;
  const current = blockOfHour(Math.floor((now - dayStart) / HOUR_MS));
  const startOf = (dayOffset: number, block: BlockName) => dayStart + dayOffset * DAY_MS + blockStartHour(block) * HOUR_MS;
  if (reserved.has(current)) {
    if (reserved.size === 3) return { inside: true, block: current, endsAt: Number.POSITIVE_INFINITY };
    // Walk forward over the reserved blocks that follow without a gap.
    let index = BLOCK_NAMES.indexOf(current);
    let day = 0;
    for (;;) {
      index++;
      if (index === 3) {
        index = 0;
        day++;
      }
      const next = BLOCK_NAMES[index]!;
      if (!reserved.has(next)) return { inside: true, block: current, endsAt: startOf(day, next) };
    }
  }
  for (let step = 1; step <= 3; step++) {
    const index = (BLOCK_NAMES.indexOf(current) + step) % 3;
    const next = BLOCK_NAMES[index]!;
    if (reserved.has(next)) {
      const day = BLOCK_NAMES.indexOf(current) + step >= 3 ? 1 : 0;
      return { inside: false, block: next, startsAt: startOf(day, next) };
    }
  }
  return undefined;
}

/** `3 h`, `45 min`, `1 min` for a span of ms (hours rounded down from 1 h, minutes up below it). */
export function spanText(ms: number): string {
  if (!Number.isFinite(ms)) return 'no end';
  if (ms >= HOUR_MS) return `${Math.floor(ms / HOUR_MS)} h`;
  return `${Math.max(1, Math.ceil(ms / 60_000))} min`;
}

/**
 * One phrase for people: `in block europe, 3 h left`, `in its blocks around the clock`, or
 * `outside its blocks: next asia in 5 h`; undefined when the blocks are not known.
 */
export function reservedHoursText(blocks: readonly string[] | undefined, now: number): string | undefined {
  if (blocks === undefined) return undefined;
  const at = reservedHoursAt(blocks, now);
  if (at === undefined) return undefined;
  if (at.inside) return Number.isFinite(at.endsAt) ? `in block ${at.block}, ${spanText(at.endsAt - now)} left` : 'in its blocks around the clock';
  return `outside its blocks: next ${at.block} in ${spanText(at.startsAt - now)}`;
}
