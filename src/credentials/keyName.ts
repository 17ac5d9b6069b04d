/**
 * The names keydeck gives the management keys it creates: meaningful and unique, so
 * the keys of several setups, machines and profiles can be told apart in any list:
 * `keydeck@<host> <profile> <YYYY-MM-DD>`, with ` (2)`, ` (3)`… when that name is already taken.
 * The user may edit it (setup's name step, `auth login --name`).
 */

/** Longest key name the service accepts (1–128 characters). */
const MAX_NAME = 128;

/** What a default name is made of. */
export interface KeyNameParts {
  /** This machine's name (`os.hostname()`); `localhost` when empty. */
  readonly host: string;
  /** The profile the key is for. */
  readonly profile: string;
  /** When it is created, epoch ms (the date is written in UTC). */
  readonly now: number;
}

/**
 * `keydeck@vm default 2026-11-23`, or the same with ` (2)`, ` (3)`… appended when a name in
 * `taken` (the account's management key names) already is it. At most 128 characters (the host
 * is shortened first).
 */
export function managementKeyName(parts: KeyNameParts, taken: readonly string[] = []): string {
  const date = new Date(parts.now).toISOString().slice(0, 10);
  const tail = ` ${parts.profile} ${date}`;
  const host = (parts.host.trim() || 'localhost').replace(/\s+/g, '-').slice(0, Math.max(1, MAX_NAME - 8 - 'keydeck@'.length - tail.length));
  const base = `keydeck@${host}${tail}`;
  const used = new Set(taken);
  if (!used.has(base)) return base;
  for (let n = 2; ; n++) {
    const candidate = `${base} (${n})`;
    if (!used.has(candidate)) return candidate;
  }
}
