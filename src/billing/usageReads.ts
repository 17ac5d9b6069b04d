/**
 * Reading usage through the budget: every usage read of keydeck goes through
 * {@link spendUsageRead}, which asks the one budget (./usageBudget.ts) first, sends the call once
 * (the client never retries it), keeps the answer with its time, honours a 429, and otherwise
 * gives the last kept answer with its age. Shared by the TUI, `monitor`, `keys usage` and
 * `key-info`; nothing here writes to a terminal.
 */
import { isAbortError, KeydeckApiError } from '../api/errors.js';
import type { KeydeckClient } from '../api/client.js';
import { KeyInfoSchema, USAGE_PERIODS, UsageListSchema, type KeyInfo, type KeyUsage, type PeriodUsage, type UsageReport } from '../api/usageSchemas.js';
import { declineReason, type BudgetState, type ReadMode, type UsageBudget } from './usageBudget.js';

/** What a usage read gave: figures (new or kept) with their time, and the budget after it. */
export interface UsageRead<T> {
  /** The freshest figures: read now, or the last kept (undefined when none exist). */
  readonly data?: T;
  /** When `data` was read (service clock, epoch ms). */
  readonly at?: number;
  /** True when `data` was read by this call. */
  readonly fresh: boolean;
  /** The budget after this call. */
  readonly budget: BudgetState;
  /** Why no read was made: the schedule's last read is recent, none is left, or a 429 asked to wait. */
  readonly declined?: 'recent' | 'exhausted' | 'blocked';
  /** The read was made and failed (`data` is then the kept answer, if any). */
  readonly error?: unknown;
}

/** How {@link spendUsageRead} reads one kind of usage. */
export interface UsageReadSpec<T> {
  /** The budget (shared record) and the credential's id in it (`credentialIdOf`). */
  readonly budget: UsageBudget;
  readonly credential: string;
  /** The service origin (its clock is kept per origin). */
  readonly origin: string;
  /** `list`, `key:<id>`, `self`: the answer kept. */
  readonly kind: string;
  /** `auto` (the schedule), `demand` (the user), or `kept` (never spend: the kept answer only). */
  readonly mode: ReadMode | 'kept';
  /** Sends the call (once); the client's service clock offset after it. */
  readonly call: (signal?: AbortSignal) => Promise<T>;
  readonly clockOffsetMs: () => number | undefined;
  /** What of an answer is kept on disk (default the answer). */
  readonly toKeep?: (data: T) => unknown;
  /** Reads a kept answer back (undefined when it cannot be read any more). */
  readonly fromKept: (body: unknown) => T | undefined;
  /** The figures the caller already has, read at `at`: a kept answer of that time is not read again. */
  readonly current?: { readonly at: number; readonly data: T } | undefined;
  readonly signal?: AbortSignal;
  /**
   * False for a read no page says is counted (`GET /v1/usage`): no local count, only the
   * service's own 429 and `Retry-After` are followed. Default true.
   */
  readonly metered?: boolean;
  /**
   * The service's `userId` of this credential's account (one `GET /api/billing/credits`), asked
   * only when needed: to link the credential to its account when some account's reads are known
   * to be counted together at this origin, and when a 429 answers a read this record allowed
   *. Undefined: the limit is never learnt shared for this credential.
   */
  readonly account?: () => Promise<string | null | undefined>;
}

/** Links `credential` to its account through `spec.account`; false when that cannot be known (no userId yet, an error). */
async function linkAccount(spec: Pick<UsageReadSpec<unknown>, 'budget' | 'credential' | 'origin' | 'account'>, now: number): Promise<boolean> {
  if (spec.budget.accountOf(spec.credential) !== undefined) return true;
  if (!spec.account) return false;
  let userId: string | null | undefined;
  try {
    userId = await spec.account();
  } catch {
    // account unknown for now: linked on a later read
    return false;
  }
  if (typeof userId !== 'string' || userId === '') return false;
  spec.budget.link(spec.credential, spec.origin, userId, now);
  return true;
}

/**
 * Spends a usage read when the budget allows it for `mode` (see the module comment).
 * Never throws for the service's failures (they are in `error`); an abort rejects.
 * @throws Error from node:sqlite when the shared record cannot be written (no read is sent then)
 */
export async function spendUsageRead<T>(spec: UsageReadSpec<T>): Promise<UsageRead<T>> {
  const { budget, credential, origin, kind } = spec;
  const keptAnswer = () => {
    const current = spec.current;
    if (current !== undefined && budget.keptAt(credential, kind) === current.at) return { data: current.data, at: current.at };
    const kept = budget.kept(credential, kind);
    const data = kept === undefined ? undefined : spec.fromKept(kept.body);
    return data === undefined ? {} : { data, at: kept!.t };
  };
  const metered = spec.metered !== false;
  const now = budget.now(origin, spec.clockOffsetMs());
  // Some account's reads are known to be counted together here: this credential's are its
  // account's too, once it is known (one credits read, remembered).
  if (metered && spec.mode !== 'kept' && budget.accountOf(credential) === undefined && budget.sharedAt(origin)) await linkAccount(spec, now);
  if (spec.mode === 'kept') return { ...keptAnswer(), fresh: false, budget: budget.state(credential, now) };
  // Most scheduled checks find nothing due: decided without taking the write lock.
  const before = budget.state(credential, now);
  const early = metered ? declineReason(before, spec.mode) : before.blockedUntil !== undefined ? 'blocked' : undefined;
  if (early !== undefined) return { ...keptAnswer(), fresh: false, budget: before, declined: early };
  const claim = budget.claim(credential, spec.mode, kind, now, metered);
  if (!claim.granted) return { ...keptAnswer(), fresh: false, budget: claim.state, declined: claim.reason };
  try {
    const data = await spec.call(spec.signal);
    const at = budget.now(origin, spec.clockOffsetMs());
    budget.keep(credential, kind, at, spec.toKeep ? spec.toKeep(data) : data);
    return { data, at, fresh: true, budget: budget.state(credential, at) };
  } catch (error) {
    if (isAbortError(error)) throw error;
    const at = budget.now(origin, spec.clockOffsetMs());
    const limited = error instanceof KeydeckApiError && error.code === 'rate_limited';
    // A 429 to a read this record allowed: the service counts more reads than this credential's
    // own, so they are taken to be its account's.
    if (limited && metered && (await linkAccount(spec, at))) budget.learnShared(credential, origin, at);
    const state = limited ? budget.rateLimited(credential, origin, (error as KeydeckApiError).retryAfterMs, at, metered) : budget.state(credential, at);
    return { ...keptAnswer(), fresh: false, budget: state, error };
  }
}

/**
 * True when a failed read leaves the last figures worth showing (with their age): the service did
 * not answer, asked to wait, or sent a shape keydeck cannot read. False when it refused the
 * credential or the key (401, 403 deactivated, 404): old figures would hide that.
 */
export function keepsFigures(error: unknown): boolean {
  return !(error instanceof KeydeckApiError && ['unauthorized', 'forbidden', 'not_found', 'invalid_request'].includes(error.code));
}

/** The parts of a client a usage read needs (a KeydeckClient, or the TUI's AccountClient). */
export interface UsageClient {
  readonly usage: Pick<KeydeckClient['usage'], 'list' | 'get' | 'keyInfo'>;
  readonly serviceClockOffsetMs?: number | undefined;
  /** The balance record names the account (`userId`): with it, the read limit can be learnt to be the account's. */
  readonly billing?: { credits(options?: { signal?: AbortSignal }): Promise<{ userId: string | null }> };
}

/** `spec.account` for a client that can read the balance record. */
function accountOf(client: UsageClient): UsageReadSpec<unknown>['account'] {
  const billing = client.billing;
  return billing ? async () => (await billing.credits()).userId : undefined;
}

/** What the three readers below share. */
export interface UsageReadOptions {
  readonly budget: UsageBudget;
  readonly credential: string;
  readonly origin: string;
  readonly mode: ReadMode | 'kept';
  readonly signal?: AbortSignal;
}

/** {@link readUsageList}'s options: also the report the caller has (not read again from disk when it is still the kept one). */
export interface UsageListReadOptions extends UsageReadOptions {
  readonly current?: { readonly at: number; readonly data: UsageReport } | undefined;
}

const parse =
  <T>(schema: { safeParse(v: unknown): { success: true; data: T } | { success: false } }) =>
  (body: unknown): T | undefined => {
    const r = schema.safeParse(body);
    return r.success ? r.data : undefined;
  };

/**
 * `GET /api/usage` through the budget: every key's spend. Kept: the answer's data (`raw`), which
 * every keydeck process reads, older ones too; and beside it the same figures as read
 * ({@link keptUsageList}).
 */
export async function readUsageList(client: UsageClient, options: UsageListReadOptions): Promise<UsageRead<UsageReport>> {
  const read = await spendUsageRead({
    ...options,
    kind: 'list',
    call: (signal) => client.usage.list(signal ? { signal } : undefined),
    clockOffsetMs: () => client.serviceClockOffsetMs,
    account: accountOf(client),
    toKeep: (report) => report.raw,
    fromKept: parse(UsageListSchema),
  });
  if (read.fresh && read.data && read.at !== undefined) {
    try {
      options.budget.keep(options.credential, LIST_AS_READ, read.at, asRead(read.data));
    } catch {
      // The figures as read are a copy for a quicker start: without it the answer is read back in full.
    }
  }
  return read;
}

/**
 * The kind under which the last usage answer is kept as read (beside `list`, the service's
 * answer): one array per field, a value per key, a third of the size, read back in under half
 * the time (docs/performance.md, "The spend columns"). Versioned by its name; keydeck processes
 * that do not know it never read it.
 */
export const LIST_AS_READ = 'list:read/1';

const KEY_FIELDS = ['name', 'keyType', 'keyPlan', 'isActive', 'maxBudget', 'refused'] as const;
const PERIOD_FIELDS = ['spend', 'requests', 'tokens'] as const;

/** `report`'s figures as kept under {@link LIST_AS_READ} (null where a key has no value). */
function asRead(report: UsageReport): unknown {
  const column = <T>(of: (key: KeyUsage) => T | undefined) => report.keys.map((k) => of(k) ?? null);
  return {
    id: column((k) => k.id),
    ...Object.fromEntries(KEY_FIELDS.map((f) => [f, column((k) => k[f])])),
    subscription: column((k) => k.subscription && [k.subscription.plan ?? null, k.subscription.status ?? null, k.subscription.expiresAt ?? null]),
    periods: Object.fromEntries(report.periods.map((p) => [p, Object.fromEntries(PERIOD_FIELDS.map((f) => [f, column((k) => k.periods[p]?.[f])]))])),
    ...(report.range && { range: report.range }),
  };
}

type Column = readonly unknown[];
const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isColumn = (v: unknown, length: number): v is Column => Array.isArray(v) && v.length === length;
const textOr = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

/** A report from figures kept under {@link LIST_AS_READ}, or undefined when they are not in that form. `raw` is not kept there. */
function fromRead(body: unknown): UsageReport | undefined {
  if (!isRecord(body) || !Array.isArray(body.id) || !isRecord(body.periods)) return undefined;
  const ids = body.id;
  const n = ids.length;
  const fields = KEY_FIELDS.map((f) => body[f]);
  const subscriptions = body.subscription;
  if (!fields.every((c) => isColumn(c, n)) || !isColumn(subscriptions, n)) return undefined;
  const [names, types, plans, active, budgets, refused] = fields as Column[];
  const periods = USAGE_PERIODS.filter((p) => body.periods && (body.periods as Record<string, unknown>)[p] !== undefined);
  const columns = periods.map((p) => {
    const c = (body.periods as Record<string, unknown>)[p];
    return isRecord(c) ? PERIOD_FIELDS.map((f) => c[f]) : [];
  });
  if (!columns.every((c) => c.length === PERIOD_FIELDS.length && c.every((x) => isColumn(x, n)))) return undefined;
  const keys: KeyUsage[] = [];
  for (let i = 0; i < n; i++) {
    const id = ids[i];
    if (typeof id !== 'string' || id === '') return undefined;
    const figures: Partial<Record<(typeof USAGE_PERIODS)[number], PeriodUsage>> = {};
    for (let j = 0; j < periods.length; j++) {
      const [spend, requests, tokens] = columns[j] as Column[];
      const usd = spend![i];
      if (usd === null) continue;
      if (typeof usd !== 'number' || !(usd >= 0)) return undefined;
      const figure: { -readonly [K in keyof PeriodUsage]: PeriodUsage[K] } = { spend: usd };
      if (typeof requests![i] === 'number') figure.requests = requests![i] as number;
      if (typeof tokens![i] === 'number') figure.tokens = tokens![i] as number;
      figures[periods[j]!] = figure;
    }
    const key: { -readonly [K in keyof KeyUsage]: KeyUsage[K] } = { id, periods: figures };
    const name = textOr(names![i]);
    if (name !== undefined) key.name = name;
    const keyType = textOr(types![i]);
    if (keyType !== undefined) key.keyType = keyType;
    const keyPlan = textOr(plans![i]);
    if (keyPlan !== undefined) key.keyPlan = keyPlan;
    if (typeof active![i] === 'boolean') key.isActive = active![i] as boolean;
    const budget = budgets![i];
    if (budget === null || typeof budget === 'number') key.maxBudget = budget;
    const sub = subscriptions[i];
    if (Array.isArray(sub)) {
      const [plan, status, expiresAt] = sub.map(textOr);
      key.subscription = { ...(plan !== undefined && { plan }), ...(status !== undefined && { status }), ...(expiresAt !== undefined && { expiresAt }) };
    }
    const why = textOr(refused![i]);
    if (why !== undefined) key.refused = why;
    keys.push(key);
  }
  const range = isRecord(body.range)
    ? { ...(textOr(body.range.startDate) && { startDate: textOr(body.range.startDate) }), ...(textOr(body.range.endDate) && { endDate: textOr(body.range.endDate) }) }
    : undefined;
  return { keys, periods: USAGE_PERIODS.filter((p) => keys.some((k) => k.periods[p] !== undefined)), ...(range && { range }), raw: undefined };
}

/**
 * The last usage answer kept for `credential` (no read spent), with its time (service ms), or
 * undefined when none can be read. Taken from the figures as read ({@link LIST_AS_READ}) when they
 * are of the same read as the service's answer kept under `list`, else (kept by a keydeck that
 * does not write them, or unreadable) from that answer, read again in full. From the figures as
 * read, `raw` is undefined: a caller that prints the service's answer reads it through
 * {@link readUsageList}.
 * @throws Error from node:sqlite when the shared record cannot be read
 */
export function keptUsageList(budget: UsageBudget, credential: string): { readonly data: UsageReport; readonly at: number } | undefined {
  const at = budget.keptAt(credential, 'list');
  if (at === undefined) return undefined;
  const asRead = budget.kept(credential, LIST_AS_READ);
  const quick = asRead?.t === at ? fromRead(asRead.body) : undefined;
  if (quick) return { data: quick, at };
  const kept = budget.kept(credential, 'list');
  const data = kept === undefined ? undefined : parse(UsageListSchema)(kept.body);
  return data === undefined ? undefined : { data, at: kept!.t };
}

/**
 * `GET /v1/usage` (a client whose token is an `sk_`): no page says it counts against the 12 reads
 * per 12 hours, so no local budget is spent; the service's own 429 and `Retry-After` are
 * followed, and the last answer is kept.
 */
export function readKeyInfo(client: UsageClient, options: UsageReadOptions): Promise<UsageRead<KeyInfo>> {
  return spendUsageRead({
    ...options,
    metered: false,
    kind: 'self',
    call: (signal) => client.usage.keyInfo(signal ? { signal } : undefined),
    clockOffsetMs: () => client.serviceClockOffsetMs,
    fromKept: parse(KeyInfoSchema),
  });
}
