/**
 * Spend per key over time: each usage answer becomes one sample per key in
 * `history.db` (./historyDb.ts `key_samples`), per profile and origin (the balance history's
 * series), so that a key's spend over days, its sparkline, its burn rates and its own baseline
 * (./runaway.ts) build up from the 12 reads a day the service allows. Runaway episodes are kept
 * beside them (`anomalies`), so one episode is told once, whichever process saw it first.
 *
 * A sample is the key's cumulative spend (µUSD: its all-time figure, else the longest period the
 * answer gives) and its last-24-hours spend when given, at the read's time (service clock,
 * stored in seconds). Keys are stored once by id (`usage_keys`) and samples refer to them by a
 * small integer, so 30 days of 12 reads a day for 1,000 keys stay near 10 MB
 * (bench/usage.mjs measures it).
 *
 * Retention: every sample for {@link FULL_RESOLUTION_MS} (30 days), then the last of each key's
 * day, nothing past {@link MAX_KEY_HISTORY_MS} (400 days).
 */
import type { DatabaseSync, StatementSync } from 'node:sqlite';
import { USAGE_PERIODS, type KeyUsage, type UsageReport } from '../api/usageSchemas.js';
import type { KeySample } from './runaway.js';

/** Every sample is kept this long, ms (30 days). */
export const FULL_RESOLUTION_MS = 30 * 86_400_000;
/** Nothing older is kept, ms (400 days). */
export const MAX_KEY_HISTORY_MS = 400 * 86_400_000;
/** How often the retention runs at most, ms. */
const COMPACT_EVERY_MS = 6 * 3_600_000;

/** The cumulative spend of a key's usage (µUSD): all time, else the longest period; undefined when none or refused. */
export function cumulativeMicros(key: KeyUsage): number | undefined {
  if (key.refused !== undefined) return undefined;
  for (const p of [...USAGE_PERIODS].reverse()) {
    const u = key.periods[p];
    if (u) return Math.round(u.spend * 1e6);
  }
  return undefined;
}

/** An open or ended runaway episode of one key (service clock, ms). */
export interface Episode {
  readonly keyId: string;
  readonly kind: 'runaway' | 'dormant';
  readonly startedAt: number;
  readonly lastAt: number;
  readonly endedAt?: number;
  readonly usdPerHour: number;
  readonly baselineUsdPerHour?: number;
}

/** The per-key usage history of one series (a profile at an origin). */
export class KeyHistory {
  readonly #db: DatabaseSync;
  readonly #series: number;
  readonly #keyId: StatementSync;
  readonly #addKey: StatementSync;
  readonly #insert: StatementSync;
  readonly #samples: StatementSync;
  readonly #all: StatementSync;
  readonly #names: StatementSync;
  readonly #open: StatementSync;
  readonly #startEpisode: StatementSync;
  readonly #touchEpisode: StatementSync;
  readonly #endEpisode: StatementSync;
  readonly #lastRead: StatementSync;
  #lastCompact = Number.NEGATIVE_INFINITY;

  /** `db`: the open history database; `seriesId`: `HistorySeries.id` of the profile and origin. */
  constructor(db: DatabaseSync, seriesId: number) {
    this.#db = db;
    this.#series = seriesId;
    this.#keyId = db.prepare('SELECT id FROM usage_keys WHERE series = ? AND key_id = ?');
    this.#addKey = db.prepare('INSERT INTO usage_keys (series, key_id, name) VALUES (?, ?, ?) ON CONFLICT (series, key_id) DO UPDATE SET name = COALESCE(excluded.name, usage_keys.name) RETURNING id');
    this.#insert = db.prepare('INSERT OR REPLACE INTO key_samples (key, t, cum, d1) VALUES (?, ?, ?, ?)');
    this.#samples = db.prepare('SELECT s.t, s.cum, s.d1 FROM key_samples s JOIN usage_keys k ON k.id = s.key WHERE k.series = ? AND k.key_id = ? AND s.t >= ? ORDER BY s.t');
    this.#all = db.prepare('SELECT k.key_id, s.t, s.cum, s.d1 FROM key_samples s JOIN usage_keys k ON k.id = s.key WHERE k.series = ? AND s.t >= ? ORDER BY k.id, s.t');
    this.#names = db.prepare('SELECT key_id, name FROM usage_keys WHERE series = ?');
    this.#open = db.prepare(
      'SELECT k.key_id, a.kind, a.started_at, a.last_at, a.ended_at, a.usd_per_hour, a.baseline_usd_per_hour FROM anomalies a JOIN usage_keys k ON k.id = a.key WHERE k.series = ? AND a.ended_at IS NULL',
    );
    this.#startEpisode = db.prepare('INSERT INTO anomalies (key, started_at, last_at, kind, usd_per_hour, baseline_usd_per_hour) VALUES (?, ?, ?, ?, ?, ?)');
    this.#touchEpisode = db.prepare('UPDATE anomalies SET last_at = ?, usd_per_hour = ? WHERE key = ? AND ended_at IS NULL');
    this.#endEpisode = db.prepare('UPDATE anomalies SET ended_at = ? WHERE key = ? AND ended_at IS NULL');
    this.#lastRead = db.prepare('SELECT MAX(s.t) AS t FROM key_samples s JOIN usage_keys k ON k.id = s.key WHERE k.series = ?');
  }

  #key(keyId: string, name?: string): number {
    return (this.#addKey.get(this.#series, keyId, name ?? null) as { id: number }).id;
  }

  /**
   * Keeps one sample per key of `report` read at `t` (service clock, ms); a refused key, or one
   * without figures, gets none. Applies the retention now and then. One transaction.
   * @throws Error from node:sqlite; nothing is kept then
   */
  record(report: UsageReport, t: number): void {
    const sec = Math.floor(t / 1000);
    this.#transaction(() => {
      for (const key of report.keys) {
        const cum = cumulativeMicros(key);
        if (cum === undefined) continue;
        const d1 = key.periods['24h'];
        this.#insert.run(this.#key(key.id, key.name), sec, cum, d1 ? Math.round(d1.spend * 1e6) : null);
      }
    });
    if (t - this.#lastCompact >= COMPACT_EVERY_MS) {
      this.#lastCompact = t;
      this.compact(t);
    }
  }

  /** When the newest sample of this series was read (service ms), or undefined. */
  lastReadAt(): number | undefined {
    const t = (this.#lastRead.get(this.#series) as { t: number | null }).t;
    return t === null ? undefined : t * 1000;
  }

  /** The samples of `keyId` since `since` (service ms), oldest first; USD. */
  samples(keyId: string, since = 0): KeySample[] {
    const rows = this.#samples.all(this.#series, keyId, Math.floor(since / 1000)) as Array<{ t: number; cum: number; d1: number | null }>;
    return rows.map(toSample);
  }

  /** Every key's samples since `since` (service ms), oldest first. */
  allSince(since: number): Map<string, KeySample[]> {
    const out = new Map<string, KeySample[]>();
    for (const r of this.#all.all(this.#series, Math.floor(since / 1000)) as Array<{ key_id: string; t: number; cum: number; d1: number | null }>) {
      let list = out.get(r.key_id);
      if (!list) out.set(r.key_id, (list = []));
      list.push(toSample(r));
    }
    return out;
  }

  /** The last name seen of each key id (keys deleted since keep theirs). */
  names(): Map<string, string> {
    const rows = this.#names.all(this.#series) as Array<{ key_id: string; name: string | null }>;
    return new Map(rows.filter((r) => r.name !== null).map((r) => [r.key_id, r.name!]));
  }

  /** The episodes not yet ended, by key id. */
  openEpisodes(): Map<string, Episode> {
    const rows = this.#open.all(this.#series) as Array<{
      key_id: string;
      kind: 'runaway' | 'dormant';
      started_at: number;
      last_at: number;
      usd_per_hour: number;
      baseline_usd_per_hour: number | null;
    }>;
    return new Map(
      rows.map((r) => [
        r.key_id,
        {
          keyId: r.key_id,
          kind: r.kind,
          startedAt: r.started_at,
          lastAt: r.last_at,
          usdPerHour: r.usd_per_hour,
          ...(r.baseline_usd_per_hour !== null && { baselineUsdPerHour: r.baseline_usd_per_hour }),
        },
      ]),
    );
  }

  /**
   * Starts an episode of `keyId` unless one is open (checked and written in one transaction, so
   * two processes seeing the same read start it once). Returns true when this call started it.
   */
  startEpisode(episode: Omit<Episode, 'lastAt' | 'endedAt'>): boolean {
    return this.#transaction(() => {
      if (this.openEpisodes().has(episode.keyId)) {
        this.#touchEpisode.run(episode.startedAt, episode.usdPerHour, this.#key(episode.keyId));
        return false;
      }
      this.#startEpisode.run(this.#key(episode.keyId), episode.startedAt, episode.startedAt, episode.kind, episode.usdPerHour, episode.baselineUsdPerHour ?? null);
      return true;
    });
  }

  /** Ends the open episode of `keyId` at `t` (service ms), if any. */
  endEpisode(keyId: string, t: number): void {
    const row = this.#keyId.get(this.#series, keyId) as { id: number } | undefined;
    if (row) this.#endEpisode.run(t, row.id);
  }

  /**
   * Applies the retention as of `now` (service ms): past {@link FULL_RESOLUTION_MS} only the last
   * sample of each key's day, nothing past {@link MAX_KEY_HISTORY_MS}. Returns samples deleted.
   */
  compact(now: number): number {
    const full = Math.floor((now - FULL_RESOLUTION_MS) / 1000);
    const oldest = Math.floor((now - MAX_KEY_HISTORY_MS) / 1000);
    const deleted = this.#transaction(() => {
      const keys = 'SELECT id FROM usage_keys WHERE series = ?1';
      let n = Number(this.#db.prepare(`DELETE FROM key_samples WHERE key IN (${keys}) AND t < ?2`).run(this.#series, oldest).changes);
      n += Number(
        this.#db
          .prepare(`DELETE FROM key_samples WHERE key IN (${keys}) AND t < ?2 AND (key, t) NOT IN (SELECT key, MAX(t) FROM key_samples WHERE key IN (${keys}) AND t < ?2 GROUP BY key, t / 86400)`)
          .run(this.#series, full).changes,
      );
      return n;
    });
    if (deleted > 0) this.#db.exec('PRAGMA incremental_vacuum');
    return deleted;
  }

  #transaction<T>(body: () => T): T {
    this.#db.exec('BEGIN IMMEDIATE');
    try {
      const result = body();
      this.#db.exec('COMMIT');
      return result;
    } catch (error) {
      this.#db.exec('ROLLBACK');
      throw error;
    }
  }
}

function toSample(r: { t: number; cum: number; d1: number | null }): KeySample {
  return r.d1 === null ? { t: r.t * 1000, cum: r.cum / 1e6 } : { t: r.t * 1000, cum: r.cum / 1e6, d1: r.d1 / 1e6 };
}
