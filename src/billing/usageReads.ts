/**
 * Reading usage through the budget: every usage read of keydeck goes through
 * {@link spendUsageRead}, which asks the one budget (./usageBudget.ts) first, sends the call once
 * (the client never retries it), keeps the answer with its time, honours a 429, and otherwise
 * gives the last kept answer with its age. Shared by the TUI, `monitor`, `keys usage` and
 * `key-info`; nothing here writes to a terminal.
 */
import { isAbortError, KeydeckApiError } from '../api/errors.js';
import type { KeydeckClient } from '../api/client.js';
import { KeyInfoSchema, UsageListSchema, type KeyInfo, type UsageReport } from '../api/usageSchemas.js';
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

/** `GET /api/usage` through the budget: every key's spend. Kept: the answer's data (`raw`). */
export function readUsageList(client: UsageClient, options: UsageListReadOptions): Promise<UsageRead<UsageReport>> {
  return spendUsageRead({
    ...options,
    kind: 'list',
    call: (signal) => client.usage.list(signal ? { signal } : undefined),
    clockOffsetMs: () => client.serviceClockOffsetMs,
    account: accountOf(client),
    toKeep: (report) => report.raw,
    fromKept: parse(UsageListSchema),
  });
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
