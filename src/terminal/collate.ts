/**
 * Names in the order a person expects: case and accents aside, numbers by value (`key-9` before
 * `key-10`), through `Intl.Collator('en', { sensitivity: 'base', numeric: true })`. The collator is
 * made on the first comparison that needs it: ICU's collation data costs about 3 MB of resident
 * memory (bench/memory.mjs), and the paths that stay open (the monitor, a list sorted by
 * creation with no ties) never need it.
 */

let collator: Intl.Collator | undefined;

/** Negative when `a` sorts before `b`, positive after, 0 when a person would call them equal. */
export function compareNames(a: string, b: string): number {
  collator ??= new Intl.Collator('en', { sensitivity: 'base', numeric: true });
  return collator.compare(a, b);
}
