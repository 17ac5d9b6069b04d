/**
 * The balance history a running keydeck works with: the in-memory
 * {@link BalanceHistory} (what the trend, the rates and the chart read, synchronously) seeded
 * from the database at start, and every new reading written through to it. Shared by the TUI's
 * Billing pane, `keydeck monitor` and `keydeck billing watch`. Without a series (no database:
 * tests, or the file could not be opened) it works in memory only.
 *
 * A write that fails (the disk is full, another process held the lock past the busy timeout)
 * loses that reading on disk only; `onError` hears about the first failure of a kind, once.
 */
import { BalanceHistory, MEMORY_RETENTION_TIERS, type BalanceHistoryOptions, type BalanceSample } from './history.js';
import type { HistorySeries } from './historyStore.js';

/** How far back the in-memory history is seeded and kept, ms: the chart's longest window (30 d) and a day. */
export const MEMORY_SPAN_MS = 31 * 24 * 3_600_000;
/** How often the retention is applied while running, ms (10 minutes). */
export const COMPACT_EVERY_MS = 10 * 60_000;

/** Options of {@link HistoryRecorder}. */
export interface HistoryRecorderOptions {
  /** The database series of this profile and origin; absent: memory only. */
  readonly series?: HistorySeries | undefined;
  /** Epoch ms at start (seeding). Default Date.now(). */
  readonly now?: number;
  /** Hears one sentence per distinct failure of the database (never thrown). */
  readonly onError?: (sentence: string) => void;
  /** Load the last {@link MEMORY_SPAN_MS} from the series at start. Default true (false: a writer only). */
  readonly seed?: boolean;
  /** Options of the in-memory buffer (capacity, spacing; default history.ts's). */
  readonly history?: BalanceHistoryOptions;
}

/** See the module comment. */
export class HistoryRecorder {
  readonly history: BalanceHistory;
  readonly series: HistorySeries | undefined;
  readonly #onError: ((sentence: string) => void) | undefined;
  #lastCompact: number;
  #lastError: string | undefined;

  constructor(options: HistoryRecorderOptions = {}) {
    const now = options.now ?? Date.now();
    this.history = new BalanceHistory(options.history);
    this.series = options.series;
    this.#onError = options.onError;
    // The first reading applies the retention (not the start: the first frame waits for nothing but the read).
    this.#lastCompact = now - COMPACT_EVERY_MS;
    if (this.series) {
      try {
        if (options.seed !== false) this.history.load(this.series.load(now - MEMORY_SPAN_MS));
      } catch (error) {
        this.#report(`the balance history could not be read (${error instanceof Error ? error.message : String(error)})`);
      }
    }
  }

  /**
   * Records a reading (epoch ms `t`, USD) in memory and on disk; applies the retention every
   * {@link COMPACT_EVERY_MS} (in memory history.ts's `MEMORY_RETENTION_TIERS`: a minute's last
   * reading past 2 hours; on disk the database's). Returns false when memory ignored it (from the past, not finite).
   */
  record(t: number, remaining: number, totalTopUp?: number): boolean {
    const added = this.history.add(t, remaining, totalTopUp);
    if (!added) return false;
    if (this.series) {
      const sample: BalanceSample = totalTopUp === undefined ? { t, remaining } : { t, remaining, totalTopUp };
      try {
        this.series.append(sample);
        this.#lastError = undefined;
      } catch (error) {
        this.#report(`a balance reading could not be kept on disk (${error instanceof Error ? error.message : String(error)})`);
      }
    }
    if (t - this.#lastCompact >= COMPACT_EVERY_MS) {
      this.#lastCompact = t;
      this.history.compact(t, MEMORY_SPAN_MS, MEMORY_RETENTION_TIERS);
      try {
        this.series?.compact(t);
      } catch (error) {
        this.#report(`the balance history could not be thinned (${error instanceof Error ? error.message : String(error)})`);
      }
    }
    return true;
  }

  #report(sentence: string): void {
    if (sentence === this.#lastError) return;
    this.#lastError = sentence;
    this.#onError?.(sentence);
  }
}
