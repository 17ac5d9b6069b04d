/**
 * "Did you mean …?" for a mistyped command, help topic or choice. The root program has a default
 * action (the TUI), so commander reads a mistyped command as an argument of that action instead of
 * reporting an unknown command: src/cli/errors.ts hands such arguments here.
 */

/** Optimal-string-alignment distance (Levenshtein plus adjacent transpositions) between `a` and `b`. */
export function editDistance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => [i, ...new Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) d[0]![j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let v = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) v = Math.min(v, d[i - 2]![j - 2]! + 1);
      d[i]![j] = v;
    }
  }
  return d[a.length]![b.length]!;
}

/**
 * The candidate `input` most likely meant, or undefined: the closest by {@link editDistance}
 * when at most 2 edits away (3 for words of 6+ characters) and less than half the word; else a
 * candidate that starts with `input` (3+ characters: `mgmt` → `mgmt-keys`). Case-insensitive.
 */
export function suggestCommand(input: string, candidates: readonly string[]): string | undefined {
  const word = input.toLowerCase();
  let best: { name: string; distance: number } | undefined;
  for (const name of candidates) {
    const distance = editDistance(word, name.toLowerCase());
    if (!best || distance < best.distance) best = { name, distance };
  }
  const limit = word.length >= 6 ? 3 : 2;
  if (best && best.distance <= limit && best.distance < Math.max(word.length, best.name.length) / 2) return best.name;
  if (word.length >= 3) return candidates.find((name) => name.toLowerCase().startsWith(word));
  return undefined;
}
