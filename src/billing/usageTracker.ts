/**
 * The usage a running keydeck works with: the last usage answer (read through the
 * one budget, ./usageReads.ts, or kept by another process), its per-key history
 * (./keyHistory.ts), and the runaway judgements of each new answer (./runaway.ts), episodes
 * started once across processes. Shared by the TUI and `monitor`; `keys usage` uses its pieces.
 *
 * {@link UsageTracker.refresh} is cheap to call often (every balance poll): a read is only spent
 * when the schedule (or the user, `demand`) may, and a newer answer kept by another process is
 * taken up and judged without spending one.
 */
import type { UsageReport } from '../api/usageSchemas.js';
import type { KeyHistory, Episode } from './keyHistory.js';
import { DEFAULT_RUNAWAY, judgeKey, type KeyJudgement, type RunawaySettings } from './runaway.js';
import type { BudgetState, ReadMode, UsageBudget } from './usageBudget.js';
import { keptUsageList, readUsageList, type UsageClient, type UsageRead } from './usageReads.js';

/** How far back the judgements read a key's samples, ms (the baseline's 7 days and a day). */
const JUDGE_SPAN_MS = 8 * 86_400_000;

/** A key caught by a judgement whose episode this tracker started (tell it once). */
export interface KeyAlert {
  readonly keyId: string;
  /** The key's name in the answer, when it has one. */
  readonly name?: string;
  readonly judgement: KeyJudgement;
}

/** What the tracker knows now. */
export interface UsageSnapshot {
  /** The freshest answer (read by this process or kept by another), undefined before any. */
  readonly report?: UsageReport;
  /** When it was read (service clock, ms). */
  readonly at?: number;
  /** The budget as last seen. */
  readonly budget?: BudgetState;
  /** The last read this process tried failed: the error (the figures are the kept ones). */
  readonly error?: unknown;
  /** Why the last asked-for read was not made. */
  readonly declined?: UsageRead<unknown>['declined'];
  /** Runaway episodes not yet ended, by key id. */
  readonly episodes: ReadonlyMap<string, Episode>;
}

/** Options of {@link UsageTracker}. */
export interface UsageTrackerOptions {
  readonly client: UsageClient;
  readonly budget: UsageBudget;
  /** `credentialIdOf(origin, token)`. */
  readonly credential: string;
  readonly origin: string;
  /** The profile's series' per-key history (absent: nothing is kept or judged). */
  readonly keyHistory?: KeyHistory;
  readonly settings?: RunawaySettings;
}

/** See the module comment. */
export class UsageTracker {
  readonly #o: UsageTrackerOptions;
  #snapshot: UsageSnapshot = { episodes: new Map() };
  /** The time of the last answer judged (service ms). */
  #judged: number | undefined;

  constructor(options: UsageTrackerOptions) {
    this.#o = options;
  }

  /** What is known now (no I/O). */
  get snapshot(): UsageSnapshot {
    return this.#snapshot;
  }

  /** The service's clock minus this machine's, ms (the client's, from the `Date` header; 0 before any answer). */
  get clockOffsetMs(): number {
    return this.#o.client.serviceClockOffsetMs ?? 0;
  }

  /**
   * Takes up the kept answer and the open episodes without spending a read (the first frame).
   * The kept answer is not judged: it was judged when it was read.
   */
  load(): UsageSnapshot {
    const o = this.#o;
    const now = o.budget.now(o.origin, o.client.serviceClockOffsetMs);
    const kept = keptUsageList(o.budget, o.credential);
    this.#judged = kept?.at;
    this.#snapshot = {
      ...(kept && { report: kept.data, at: kept.at }),
      budget: o.budget.state(o.credential, now),
      episodes: o.keyHistory?.openEpisodes() ?? new Map(),
    };
    return this.#snapshot;
  }

  /**
   * Spends a read when `mode` may (`auto`: the schedule; `demand`: the user), else takes up the
   * freshest kept answer; records and judges an answer newer than the last judged one.
   * @returns the snapshot and the keys whose runaway episode this call started
   * @throws Error from node:sqlite when the shared record cannot be written; an abort
   */
  async refresh(mode: ReadMode, signal?: AbortSignal): Promise<{ snapshot: UsageSnapshot; alerts: KeyAlert[] }> {
    const o = this.#o;
    const have = this.#snapshot.report && this.#snapshot.at !== undefined ? { at: this.#snapshot.at, data: this.#snapshot.report } : undefined;
    const read = await readUsageList(o.client, { budget: o.budget, credential: o.credential, origin: o.origin, mode, current: have, ...(signal && { signal }) });
    let alerts: KeyAlert[] = [];
    if (read.data && read.at !== undefined && (this.#judged === undefined || read.at > this.#judged)) {
      if (read.fresh) {
        try {
          o.keyHistory?.record(read.data, read.at);
        } catch {
          // The history is best effort: the figures are shown all the same.
        }
      }
      alerts = this.#judge(read.data, read.at);
      this.#judged = read.at;
    }
    this.#snapshot = {
      ...(read.data && { report: read.data }),
      ...(read.at !== undefined && { at: read.at }),
      budget: read.budget,
      ...(read.error !== undefined && { error: read.error }),
      ...(read.declined !== undefined && { declined: read.declined }),
      episodes: o.keyHistory?.openEpisodes() ?? this.#snapshot.episodes,
    };
    return { snapshot: this.#snapshot, alerts };
  }

  /** Judges every key of `report` read at `at`; starts (once) and ends episodes. */
  #judge(report: UsageReport, at: number): KeyAlert[] {
    const history = this.#o.keyHistory;
    if (!history) return [];
    const alerts: KeyAlert[] = [];
    try {
      const samples = history.allSince(at - JUDGE_SPAN_MS);
      const open = history.openEpisodes();
      for (const key of report.keys) {
        const own = samples.get(key.id);
        if (!own || own[own.length - 1]!.t !== Math.floor(at / 1000) * 1000) continue;
        const judgement = judgeKey(own, this.#o.settings ?? DEFAULT_RUNAWAY);
        if (judgement) {
          const started = history.startEpisode({
            keyId: key.id,
            kind: judgement.kind,
            startedAt: at,
            usdPerHour: judgement.usdPerHour,
            ...(judgement.baselineUsdPerHour !== undefined && { baselineUsdPerHour: judgement.baselineUsdPerHour }),
          });
          if (started) alerts.push({ keyId: key.id, ...(key.name !== undefined && { name: key.name }), judgement });
        } else if (open.has(key.id)) {
          history.endEpisode(key.id, at);
        }
      }
    } catch {
      // A history that cannot be read judges nothing this time.
    }
    return alerts;
  }
}
