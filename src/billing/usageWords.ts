/**
 * How keydeck says what it knows about usage, the same on every screen and in every
 * command: how old the figures are, how many reads of the service's 12 per 12 hours are left and
 * when the next is allowed, why a refresh did not read, and the runaway alerts. Pure; amounts cut
 * to the cent (src/api/money.ts), never rounded up.
 */
import { formatUsd } from '../api/money.js';
import type { UsagePeriod } from '../api/usageSchemas.js';
import type { KeyJudgement, AccountJudgement } from './runaway.js';
import { READS_PER_WINDOW, type BudgetState } from './usageBudget.js';

const MIN = 60_000;

/** A duration for people: `40 s`, `12 min`, `1 h 12 min`, `3 d 4 h`. */
export function durationWords(ms: number): string {
  const m = Math.max(0, Math.round(ms / MIN));
  if (ms < MIN) return `${Math.max(0, Math.round(ms / 1000))} s`;
  if (m < 60) return `${m} min`;
  const h = Math.floor(m / 60);
  if (h < 48) return m % 60 === 0 ? `${h} h` : `${h} h ${m % 60} min`;
  const d = Math.floor(h / 24);
  return h % 24 === 0 ? `${d} d` : `${d} d ${h % 24} h`;
}

/** How old figures read at `at` are at `now` (service ms): `just now`, `12 min ago`. */
export function ageWords(at: number, now: number): string {
  const age = now - at;
  return age < MIN ? 'just now' : `${durationWords(age)} ago`;
}

/**
 * When {@link ageWords}`(at, t)` next says something else, for a `t` after `now` (service ms): at
 * an age of 60 s ("1 min ago"), then half-way through each minute (it rounds to the nearest:
 * "2 min ago" from 90 s), from 48 h on at each whole hour it rounds to ("2 d 1 h ago").
 */
export function ageChangeAt(at: number, now: number): number {
  const age = now - at;
  if (age < MIN) return at + MIN;
  const m = Math.round(age / MIN);
  return at + (m < 48 * 60 ? m + 0.5 : 60 * (Math.floor(m / 60) + 1) - 0.5) * MIN;
}

/**
 * When {@link durationWords}`(target - t)` next says something else, for a `t` after `now` (a wait
 * counted down): each second under a minute, each minute from there (at its half, as it rounds);
 * undefined once the wait is over.
 */
function waitChangeAt(target: number, now: number): number | undefined {
  const left = target - now;
  if (left <= 0) return undefined;
  if (left < MIN) {
    const s = Math.round(left / 1000);
    return s === 0 ? target : target - (s - 0.5) * 1000 + 1;
  }
  const m = Math.round(left / MIN);
  return target - (m <= 1 ? MIN : (m - 0.5) * MIN) + 1;
}

/**
 * When {@link usageStatusLine}`(at, { ...state, now: t })` may next say something else, for a `t`
 * after `state.now` (service ms): the figures' age ({@link ageWords}) and, while no read is left
 * or the service asked to wait, the wait; undefined when nothing in the line moves with the clock.
 * A time it gives may leave the words as they were (from 48 h on, the age changes with the hour).
 */
export function usageLineChangeAt(at: number | undefined, state: BudgetState): number | undefined {
  const wait = state.blockedUntil ?? (state.left === 0 ? state.nextAt : undefined);
  const times = [at === undefined ? undefined : ageChangeAt(at, state.now), wait === undefined ? undefined : waitChangeAt(wait, state.now)].filter((t) => t !== undefined);
  return times.length === 0 ? undefined : Math.min(...times);
}

/** When the next read is allowed: `now`, `in 1 h 12 min`. */
export function nextReadWords(state: BudgetState): string {
  return state.nextAt <= state.now ? 'now' : `in ${durationWords(state.nextAt - state.now)}`;
}

/**
 * `9 of 12 reads left` (the service allows 12 usage reads per 12 hours); `9 of the account's 12
 * reads left` once the service showed that it counts the account's credentials together.
 */
export function readsLeftWords(state: BudgetState): string {
  return state.shared ? `${state.left} of the account's ${READS_PER_WINDOW} reads left` : `${state.left} of ${READS_PER_WINDOW} reads left`;
}

/**
 * The one line about the figures and the budget: `usage 12 min ago · 9 of 12 reads left · next
 * read now` (or `… · no read left · next in 1 h 12 min`; `waiting 55 min (the service said 429)`);
 * `demand` replaces "next read now" while a read is left (`u reads now`, `--refresh reads now`).
 */
export function usageStatusLine(at: number | undefined, state: BudgetState | undefined, demand?: string): string {
  const parts = [at === undefined || state === undefined ? 'usage not read yet' : `usage ${ageWords(at, state.now)}`];
  if (state) {
    if (state.blockedUntil !== undefined) parts.push(`the service asked to wait: next read in ${durationWords(state.blockedUntil - state.now)}`);
    else if (state.left === 0) parts.push(`no read left of ${READS_PER_WINDOW} per 12 h`, `next ${nextReadWords(state)}`);
    else parts.push(readsLeftWords(state), demand ?? `next read ${nextReadWords(state)}`);
  }
  return parts.join(' · ');
}

/**
 * Why `r` did not read usage, or what `u` can do: one sentence for the status line. `r` reloads
 * the balance and the lists but never spends a usage read.
 */
export function refreshWaitSentence(at: number | undefined, state: BudgetState): string {
  const age = at === undefined ? 'no usage figures yet' : `the usage figures are from ${ageWords(at, state.now)}`;
  if (state.blockedUntil !== undefined) return `${age}; the service asked keydeck to wait: the next usage read is allowed in ${durationWords(state.blockedUntil - state.now)}`;
  if (state.left === 0) return `${age}; the service allows ${READS_PER_WINDOW} usage reads per 12 hours and all are spent: the next is allowed ${nextReadWords(state)}`;
  return `${age}; r does not spend one of the ${READS_PER_WINDOW} usage reads the service allows per 12 hours (${state.left} left): press u to read now`;
}

/** A rate: `$5.00/h` (cut to the cent; below a cent `<$0.01/h`). */
export function rateWords(usdPerHour: number): string {
  return usdPerHour > 0 && usdPerHour < 0.01 ? '<$0.01/h' : `${formatUsd(usdPerHour)}/h`;
}

/** A period's name for people: `24 h`, `7 d`, `30 d`, `all time`. */
export function periodWords(period: UsagePeriod): string {
  return period === 'total' ? 'all time' : period.replace(/(\d+)([hd])/, '$1 $2');
}

/** A multiple of a baseline: `10×`, `4.5×`. */
function times(rate: number, baseline: number | undefined): string | undefined {
  if (baseline === undefined || !(baseline > 0)) return undefined;
  const x = rate / baseline;
  return `${x >= 10 ? Math.round(x) : Math.round(x * 10) / 10}×`;
}

/** The alert of a key: `"batch" is spending $5.00/h, 10× its usual $0.50/h` or the dormant wording. */
export function keyAlertSentence(name: string, judgement: KeyJudgement): string {
  if (judgement.kind === 'dormant') return `"${name}" started spending (${rateWords(judgement.usdPerHour)}) after 7 days without any spend`;
  const x = times(judgement.usdPerHour, judgement.baselineUsdPerHour);
  return `"${name}" is spending ${rateWords(judgement.usdPerHour)}${x ? `, ${x} its usual ${rateWords(judgement.baselineUsdPerHour!)}` : ''}`;
}

/**
 * The account-level alert between usage reads, worded as a likely cause, not a fact: the balance
 * burns at N× its own baseline; `likely` names the key that spent most at the last usage read and
 * that read's age ({@link ageWords}: `3 min ago`).
 */
export function accountAlertSentence(judgement: AccountJudgement, likely?: { name: string; age: string }): string {
  const x = times(judgement.usdPerHour, judgement.baselineUsdPerHour);
  const head = `the balance is falling ${rateWords(judgement.usdPerHour)}${x ? `, ${x} its usual ${rateWords(judgement.baselineUsdPerHour)}` : ''}`;
  return likely ? `${head}; likely cause: "${likely.name}", the top spender at the last usage read (${likely.age})` : head;
}
