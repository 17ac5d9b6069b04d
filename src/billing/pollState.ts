/**
 * What a watcher of a profile knows of its polls between runs, kept in `history.db` beside the
 * profile's balance history (./historyStore.ts): when it first set out to read the profile, whether
 * the profile was last up or down, and since when it has been down and why. `keydeck exporter`
 * restores it at start, so an alert written on these times (contrib/prometheus/keydeck.rules.yml:
 * down for 15 minutes, nothing read for 15 minutes) fires on time across restarts: its state lives
 * in the metrics, not in Prometheus' memory of a `for:` (docs/monitoring.md, "Running it for months").
 *
 * Its table is created when first used, without a schema version of its own, so an older keydeck
 * opening the same `history.db` still opens it (and ignores the table). One row per series; a
 * write only when the state changes. Nothing secret: times (epoch ms) and a reason word.
 */
import type { DatabaseSync, StatementSync } from 'node:sqlite';

/** A profile's poll state (epoch ms). */
export interface PollState {
  /** When a watcher first set out to read the profile (kept for ever: the stale alert of a profile never read). */
  readonly firstAttempt: number;
  /** `up`: the last poll read the balance; `down`: it could not, since `downSince`, for `downReason`; `unknown`: no poll has ended yet. */
  readonly state: 'unknown' | 'up' | 'down';
  /** When the profile's current outage began (any reason), while `state` is `down`. */
  readonly downSince?: number | undefined;
  /** Why it is down now (a `keydeck_up` reason word), while `state` is `down`. */
  readonly downReason?: string | undefined;
}

/** The poll states of one `history.db` (see the module comment). */
export class PollStates {
  readonly #get: StatementSync;
  readonly #put: StatementSync;

  /**
   * @throws Error from node:sqlite when the table cannot be created (a read-only or locked database).
   */
  constructor(db: DatabaseSync) {
    db.exec(`CREATE TABLE IF NOT EXISTS poll_state (
      series INTEGER PRIMARY KEY REFERENCES series (id),
      first_attempt INTEGER NOT NULL,
      state TEXT NOT NULL,
      down_since INTEGER,
      down_reason TEXT
    )`);
    this.#get = db.prepare('SELECT first_attempt, state, down_since, down_reason FROM poll_state WHERE series = ?');
    this.#put = db.prepare('INSERT OR REPLACE INTO poll_state (series, first_attempt, state, down_since, down_reason) VALUES (?, ?, ?, ?, ?)');
  }

  /** The state kept for the series `seriesId` (./historyStore.ts `HistorySeries.id`), if any. */
  get(seriesId: number): PollState | undefined {
    const row = this.#get.get(seriesId) as { first_attempt: number; state: string; down_since: number | null; down_reason: string | null } | undefined;
    if (!row) return undefined;
    const state = row.state === 'up' || row.state === 'down' ? row.state : 'unknown';
    return {
      firstAttempt: row.first_attempt,
      state,
      ...(state === 'down' && row.down_since !== null && { downSince: row.down_since }),
      ...(state === 'down' && row.down_reason !== null && { downReason: row.down_reason }),
    };
  }

  /**
   * Keeps `state` for the series `seriesId`.
   * @throws Error from node:sqlite (`database is locked` after the busy timeout, disk full).
   */
  set(seriesId: number, state: PollState): void {
    this.#put.run(
      seriesId,
      Math.round(state.firstAttempt),
      state.state,
      state.state === 'down' && state.downSince !== undefined ? Math.round(state.downSince) : null,
      state.state === 'down' ? (state.downReason ?? null) : null,
    );
  }
}

/** Whether two states say the same (a write is skipped when they do). */
export function samePollState(a: PollState | undefined, b: PollState): boolean {
  return a !== undefined && a.firstAttempt === b.firstAttempt && a.state === b.state && a.downSince === b.downSince && a.downReason === b.downReason;
}
