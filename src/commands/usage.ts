/**
 * `keydeck keys usage [ID] [--period 24h|7d|30d|total] [--refresh | --cached] [--json]`:
 * who spends what. Without an id: every key's spend over the periods the service gives, its share
 * of the account's spend, deleted keys and refused figures said as such. With an id: that key's
 * figures, its burn rates and its spend read by read from the per-key history.
 *
 * Reads go through the one budget of 12 per 12 hours (src/billing/usageBudget.ts): by default a
 * read is spent only when the schedule would spend one (the kept answer is 72 minutes old) or
 * nothing is kept yet; `--refresh` spends one when any is left; `--cached` never does. The
 * figures' age, the reads left and when the next is allowed are always said. A failed read keeps
 * the last figures (a warning on stderr says why and how old they are).
 *
 * `--json` keeps the service's figures and keydeck's derived ones apart:
 * `{ "service": <the answer's data as sent, key values dropped>, "derived": { asOf, ageSeconds,
 * fresh, budget, sharePeriod, keys: [{ id, name, status, refused?, periods, share?, runaway? }] } }`
 * (with an id: `service` is that key's entry, `derived` its figures, `burnRates` and `samples`).
 *
 * Exit codes: 0 figures printed (perhaps old: said); 1 none kept and none can be read (the
 * sentence says when the next read is allowed), or the service refused; 2 bad usage; 4 network,
 * or `--refresh` could not read now (the kept figures are printed, with their age, and
 * a cron job still knows they are not fresh).
 */
import { KeydeckApiError } from '../api/errors.js';
import { USAGE_PERIODS, type UsagePeriod, type UsageReport } from '../api/usageSchemas.js';
import { BalanceHistoryStore, originOf } from '../billing/historyStore.js';
import { KeyHistory } from '../billing/keyHistory.js';
import { judgeKey, keyBurnRate, type KeyJudgement, type RunawaySettings } from '../billing/runaway.js';
import { sharePeriod, spendRows, topSpenders, type SpendRow } from '../billing/spend.js';
import { credentialIdOf, UsageBudget, type BudgetState } from '../billing/usageBudget.js';
import { keepsFigures, readUsageList, type UsageRead } from '../billing/usageReads.js';
import { ageWords, durationWords, keyAlertSentence, periodWords, rateWords, usageStatusLine } from '../billing/usageWords.js';
import { printData, type CommandDeps, type JsonFlag } from './api-command.js';
import { checkKeyRef, keyByRef } from './keyRef.js';
import { ExitCode, fail, openSession, printFormatted, printLine, warn, type ExitCodeValue, type GlobalOptions, type Session } from './output.js';
import { colorEnabled, formatTable, formatTimestamp, type Cell } from './table.js';
import { formatUsd } from '../api/money.js';
import { keyWords } from './wordingKeys.js';

/** Flags of `keys usage`. */
export interface UsageFlags extends JsonFlag {
  readonly period?: string;
  readonly refresh?: boolean;
  readonly cached?: boolean;
}

/** Dependencies: the session's (env, store) and the history database (default `BalanceHistoryStore.open`). */
export interface UsageDeps extends CommandDeps {
  readonly openHistory?: () => BalanceHistoryStore;
}

/** Parses `--period`: one of 24h, 7d, 30d, total (also `all`). @throws CommandFailure exit 2 */
export function parsePeriod(text: string | undefined): UsagePeriod | undefined {
  if (text === undefined) return undefined;
  const t = text.trim().toLowerCase();
  const period = t === 'all' ? 'total' : (USAGE_PERIODS as readonly string[]).includes(t) ? (t as UsagePeriod) : undefined;
  if (!period) fail(ExitCode.usage, keyWords.usagePeriodMustBe, { text });
  return period;
}

/** What a usage command works with: the budget and the per-key history of this profile and origin. */
export interface UsageRig {
  readonly store: BalanceHistoryStore;
  readonly budget: UsageBudget;
  readonly keyHistory: KeyHistory;
  readonly credential: string;
  readonly origin: string;
  /** The profile's runaway settings (`runawayFactor`, `runawayFloorUsdPerHour`). */
  readonly settings: RunawaySettings;
}

/**
 * Opens the shared record of usage reads and the per-key history for `session`.
 * @throws CommandFailure exit 1 when history.db cannot be used (no read is spent without the record)
 */
export function openUsageRig(session: Session, deps: UsageDeps = {}): UsageRig {
  let store: BalanceHistoryStore;
  try {
    store = deps.openHistory ? deps.openHistory() : BalanceHistoryStore.open({ env: deps.session?.env ?? process.env });
  } catch (error) {
    fail(ExitCode.refused, keyWords.usageRecordUnavailable, { error });
  }
  const origin = originOf(session.profile.baseUrl);
  return {
    store,
    budget: new UsageBudget(store.database),
    keyHistory: new KeyHistory(store.database, store.series(session.profile.name, origin).id),
    credential: credentialIdOf(origin, session.credential.token),
    origin,
    settings: { factor: session.profile.runawayFactor, floorUsdPerHour: session.profile.runawayFloorUsdPerHour },
  };
}

/** `keydeck keys usage [ID|NAME] …`: see the module comment. */
export async function keysUsage(globals: GlobalOptions, id: string | undefined, flags: UsageFlags = {}, deps: UsageDeps = {}): Promise<ExitCodeValue> {
  const given = id === undefined ? undefined : checkKeyRef(id);
  const period = parsePeriod(flags.period);
  if (flags.refresh && flags.cached) fail(ExitCode.usage, keyWords.usageRefreshCachedCannot);
  const session = await openSession(globals, deps.session);
  const rig = openUsageRig(session, deps);
  try {
    const { client } = session;
    // The key list names the keys (and tells deleted ones apart), the balance bounds credit spend;
    // either answer also tells the client the service's clock. Neither spends a usage read.
    const [keys, credits] = await Promise.allSettled([client.keys.list(), client.billing.credits()]);
    // ID|NAME resolved among the listed keys before a read is spent (./keyRef.ts); a deleted key
    // is only in the usage answer, looked up there by id or name after the read.
    const listed = given !== undefined && keys.status === 'fulfilled' && keys.value.some((k) => k.id === given || k.name === given) ? keyByRef(keys.value, given) : undefined;
    const kept = rig.budget.kept(rig.credential, 'list');
    const mode = flags.cached ? 'kept' : flags.refresh || kept === undefined ? 'demand' : 'auto';
    const read = await readUsageList(client, { budget: rig.budget, credential: rig.credential, origin: rig.origin, mode });
    if (read.fresh && read.data) {
      try {
        rig.keyHistory.record(read.data, read.at!);
      } catch (error) {
        warn(`the per-key history could not be kept: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
    if (read.error !== undefined && !keepsFigures(read.error)) throw read.error;
    const report = read.data;
    if (!report || read.at === undefined) failWithout(read);
    if (read.error !== undefined) warn(`could not read new usage (${describe(read.error)}); these are the figures of ${ageWords(read.at, read.budget.now)}`);
    else if (flags.refresh && !read.fresh) warn(`--refresh could not read now (${declinedWords(read)}); these are the figures of ${ageWords(read.at, read.budget.now)}`);
    const rows = spendRows(report, keys.status === 'fulfilled' ? keys.value : undefined, credits.status === 'fulfilled' ? credits.value.totalTopUp : undefined);
    const keyId = given === undefined ? undefined : (listed?.id ?? keyByRef(rows, given).id);
    const code = keyId !== undefined ? oneKey(rig, read, report, rows, keyId, period, flags) : allKeys(rig, read, report, rows, period, flags);
    // A refresh that could not happen is not a success for a cron job: the old figures are printed (with their age), exit 4.
    return flags.refresh && !read.fresh && code === ExitCode.ok ? ExitCode.network : code;
  } finally {
    rig.store.close();
    session.client.close();
  }
}

/** Ends the command when no figures exist: the read's error, or why none could be spent. */
function failWithout(read: UsageRead<UsageReport>): never {
  if (read.error !== undefined) throw read.error;
  const s = read.budget;
  const when =
    s.blockedUntil !== undefined
      ? `the service asked to wait: the next read is allowed in ${durationWords(s.blockedUntil - s.now)}`
      : `the next read is allowed ${s.nextAt <= s.now ? 'now' : `in ${durationWords(s.nextAt - s.now)}`}`;
  fail(ExitCode.refused, keyWords.usageBudget, { used: s.used, when });
}

/** Why no read was spent, in words. */
function declinedWords(read: UsageRead<UsageReport>): string {
  const s = read.budget;
  if (read.declined === 'blocked' && s.blockedUntil !== undefined) return `the service asked to wait: the next read is allowed in ${durationWords(s.blockedUntil - s.now)}`;
  return `${s.used} of 12 reads spent in the last 12 hours: the next is allowed ${s.nextAt <= s.now ? 'now' : `in ${durationWords(s.nextAt - s.now)}`}`;
}

function describe(error: unknown): string {
  return error instanceof KeydeckApiError ? `${error.code}: ${error.message.replace(/[.]$/, '')}` : String(error);
}

/** The figures of a key as printed: `$1.20`, or `—` when not given. */
const usd = (n: number | undefined): string => (n === undefined ? '—' : formatUsd(n));

/** Each row's runaway judgement of its newest samples (none without history). */
function judgements(rig: UsageRig, at: number): Map<string, KeyJudgement> {
  const out = new Map<string, KeyJudgement>();
  try {
    for (const [id, samples] of rig.keyHistory.allSince(at - 8 * 86_400_000)) {
      const j = judgeKey(samples, rig.settings);
      if (j && samples[samples.length - 1]!.t === Math.floor(at / 1000) * 1000) out.set(id, j);
    }
  } catch {
    // No history: no judgement.
  }
  return out;
}

function budgetJson(s: BudgetState) {
  return {
    readsLeft: s.left,
    readsPerTwelveHours: 12,
    nextReadAt: new Date(s.nextAt).toISOString(),
    nextScheduledReadAt: new Date(s.nextAutoAt).toISOString(),
    ...(s.blockedUntil !== undefined && { waitUntil: new Date(s.blockedUntil).toISOString() }),
  };
}

function allKeys(rig: UsageRig, read: UsageRead<UsageReport>, report: UsageReport, rows: SpendRow[], period: UsagePeriod | undefined, flags: UsageFlags): ExitCodeValue {
  const at = read.at!;
  const share = period ?? sharePeriod(report.periods);
  const shares = new Map(share ? topSpenders(rows, share, rows.length).map((t) => [t.row.id, t.share]) : []);
  const caught = judgements(rig, at);
  if (flags.json) {
    printData({
      service: report.raw,
      derived: {
        asOf: new Date(at).toISOString(),
        ageSeconds: Math.max(0, Math.round((read.budget.now - at) / 1000)),
        fresh: read.fresh,
        budget: budgetJson(read.budget),
        ...(share && { sharePeriod: share }),
        keys: rows.map((r) => ({
          id: r.id,
          name: r.name,
          status: r.status,
          ...(r.refused !== undefined && { refused: r.refused }),
          periods: r.periods,
          ...(shares.has(r.id) && { share: Math.round(shares.get(r.id)! * 10_000) / 10_000 }),
          ...(caught.has(r.id) && { runaway: caught.get(r.id) }),
        })),
      },
    });
    return ExitCode.ok;
  }
  printLine(`${usageStatusLine(at, read.budget, read.fresh ? undefined : '--refresh reads now')} (as of ${formatTimestamp(new Date(at).toISOString())})`);
  const periods = period ? [period] : report.periods;
  if (rows.length === 0) {
    printLine('No keys in the usage answer.');
    return ExitCode.ok;
  }
  const order = share ? [...rows].sort((a, b) => (b.periods[share]?.spend ?? -1) - (a.periods[share]?.spend ?? -1)) : rows;
  const table: Cell[][] = order.map((r) => [
    r.id,
    r.status === 'deleted' ? `${r.name} (deleted)` : r.name,
    ...periods.map((p) => (r.refused !== undefined ? '—' : usd(r.periods[p]?.spend))),
    ...(share ? [shares.has(r.id) ? `${Math.round(shares.get(r.id)! * 100)}%` : r.refused !== undefined ? '—' : '0%'] : []),
    caught.has(r.id) ? { text: `⚠ ${caught.get(r.id)!.kind}`, style: 'red' } : '',
  ]);
  printFormatted(formatTable(['id', 'name', ...periods.map(periodWords), ...(share ? [`share ${periodWords(share)}`] : []), ''], table, { color: colorEnabled() }));
  for (const r of rows) if (r.refused !== undefined) warn(r.refused);
  for (const [id, j] of caught) warn(keyAlertSentence(rows.find((r) => r.id === id)?.name ?? id, j));
  return ExitCode.ok;
}

/** The key's entry in the service's answer as sent (an array of entries, or an object with a `keys` list). */
function rawEntry(raw: unknown, id: string): unknown {
  const list = Array.isArray(raw) ? raw : typeof raw === 'object' && raw !== null && Array.isArray((raw as { keys?: unknown }).keys) ? (raw as { keys: unknown[] }).keys : [];
  return list.find((e) => typeof e === 'object' && e !== null && ((e as { id?: unknown }).id === id || (e as { keyId?: unknown }).keyId === id)) ?? null;
}

const WINDOW_OF: Record<UsagePeriod, number> = { '24h': 86_400_000, '7d': 7 * 86_400_000, '30d': 30 * 86_400_000, total: Number.POSITIVE_INFINITY };

function oneKey(rig: UsageRig, read: UsageRead<UsageReport>, report: UsageReport, rows: SpendRow[], keyId: string, period: UsagePeriod | undefined, flags: UsageFlags): ExitCodeValue {
  const at = read.at!;
  const row = rows.find((r) => r.id === keyId);
  if (!row) fail(ExitCode.refused, keyWords.notFoundUsageAnswerHas, { at, now: read.budget.now, keyId });
  const window = WINDOW_OF[period ?? '7d'];
  const all = rig.keyHistory.samples(keyId);
  const samples = all.filter((s) => s.t >= at - window);
  const rates = { '24h': keyBurnRate(all, WINDOW_OF['24h']), '7d': keyBurnRate(all, WINDOW_OF['7d']) };
  const share = sharePeriod(report.periods);
  const shareOf = share ? topSpenders(rows, share, rows.length).find((t) => t.row.id === keyId)?.share : undefined;
  if (flags.json) {
    printData({
      service: rawEntry(report.raw, keyId),
      derived: {
        asOf: new Date(at).toISOString(),
        ageSeconds: Math.max(0, Math.round((read.budget.now - at) / 1000)),
        fresh: read.fresh,
        budget: budgetJson(read.budget),
        key: {
          id: row.id,
          name: row.name,
          status: row.status,
          ...(row.refused !== undefined && { refused: row.refused }),
          periods: row.periods,
          ...(shareOf !== undefined && share && { share: Math.round(shareOf * 10_000) / 10_000, sharePeriod: share }),
        },
        burnRatesUsdPerHour: { ...(rates['24h'] !== undefined && { '24h': rates['24h'] }), ...(rates['7d'] !== undefined && { '7d': rates['7d'] }) },
        samples: samples.map((s) => ({ at: new Date(s.t).toISOString(), cumulativeUsd: s.cum, ...(s.d1 !== undefined && { last24hUsd: s.d1 }) })),
      },
    });
    return ExitCode.ok;
  }
  printLine(`${row.status === 'deleted' ? `${row.name} (deleted)` : row.name} (id ${keyId}) · ${usageStatusLine(at, read.budget)}`);
  if (row.refused !== undefined) printLine(row.refused);
  else
    printLine(
      `spend: ${report.periods.map((p) => `${periodWords(p)} ${usd(row.periods[p]?.spend)}`).join(' · ')}${shareOf !== undefined && share ? ` · ${Math.round(shareOf * 100)}% of the account's ${periodWords(share)} spend` : ''}`,
    );
  printLine(
    `rate: ${rates['24h'] !== undefined ? `${rateWords(rates['24h'])} over 24 h` : 'not known over 24 h'} · ${rates['7d'] !== undefined ? `${rateWords(rates['7d'])} over 7 d` : 'not known over 7 d'} (from ${all.length} read${all.length === 1 ? '' : 's'} kept)`,
  );
  if (samples.length === 0) {
    printLine('No reads of this key are kept yet: its spend over time builds up from each usage read.');
    return ExitCode.ok;
  }
  const lines: Cell[][] = [];
  for (let i = samples.length - 1; i >= 0; i--) {
    const s = samples[i]!;
    const prev = i > 0 ? samples[i - 1] : undefined;
    const hours = prev ? (s.t - prev.t) / 3_600_000 : 0;
    const delta = prev ? Math.max(0, s.cum - prev.cum) : undefined;
    lines.push([formatTimestamp(new Date(s.t).toISOString()), usd(s.cum), delta === undefined ? '—' : `+${formatUsd(delta)}`, delta === undefined || hours <= 0 ? '—' : rateWords(delta / hours)]);
  }
  printFormatted(formatTable(['read at', 'cumulative', 'since previous', 'rate'], lines, { color: colorEnabled() }));
  return ExitCode.ok;
}
