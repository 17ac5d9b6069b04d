/**
 * The Accounts view's rows (the TUI's pane `0` and `keydeck monitor --all-profiles`): what one
 * profile's account watcher (src/watcher/profileWatchers.ts) knows, made into the figures of a row
 * (balance in USD, burn rate, when it runs out, auto top-up, alerts, up or down and how fresh, the
 * read-only and protected marks), the order (what needs attention first) and the cells at a width.
 * Pure: every word that came from the service goes through the sanitiser (src/terminal/sanitize.ts).
 */
import { isBelowThreshold } from '../../billing/alert.js';
import { trendOf, type RunOutProjection } from '../../billing/history.js';
import { judgeAccount } from '../../billing/runaway.js';
import { budgetOf, budgetView } from '../../billing/guardrails.js';
import { visible } from '../../terminal/sanitize.js';
import type { ResolvedProfile } from '../../config/profile.js';
import type { AccountSnapshot } from '../../watcher/types.js';
import { connectionState } from '../components/Header.js';
import { hostLabel } from '../components/HeaderView.js';
import { displayWidth, truncateTo } from '../format.js';
import { formatUsd } from '../../api/money.js';
import { formatDuration } from '../panes/billing/billingFormat.js';

/** Where a row's account stands: `down` (its polls fail), `up`, `waiting` (no answer yet), `no_key` (no stored credential), `no_address` (no base URL). */
export type AccountState = 'up' | 'down' | 'waiting' | 'no_key' | 'no_address';

/** One profile as a row of the Accounts view. */
export interface AccountRow {
  readonly name: string;
  /** The service's host and port (`127.0.0.1:4010`), '' without a base URL. */
  readonly host: string;
  readonly state: AccountState;
  /** Why it is down or unusable, in one phrase (sanitised), when it is. */
  readonly reason?: string;
  /** Remaining balance, USD (the last good reading; kept while down). */
  readonly remaining?: number;
  /** Burn rate over the last hour, USD/hour, once the history has two readings in it. */
  readonly usdPerHour?: number;
  readonly runOut: RunOutProjection;
  /** When the last good reading arrived (epoch ms). */
  readonly updatedAt?: number;
  /** `on`, `paused` or `off` (the profile's policy; the row only reads it). */
  readonly autoTopUp: 'on' | 'paused' | 'off';
  /** The alerts, most urgent first: `empty`, `low`, `burn ×N`, `N runaway` (keys), `N at limit` / `N near limit` (guardrail budgets). */
  readonly alerts: readonly string[];
  readonly readOnly: boolean;
  readonly protected: boolean;
}

/** The row of `profile` from its watcher's `snapshot` at `now` (epoch ms). Pure. */
export function accountRow(profile: ResolvedProfile, snapshot: AccountSnapshot, now: number): AccountRow {
  const { poll, trend, usage, unavailable } = snapshot;
  const data = poll.data;
  const t = trendOf(trend.history, data?.remaining, now);
  const alerts: string[] = [];
  if (data && data.remaining <= 0) alerts.push('empty');
  else if (data && isBelowThreshold(data.remaining, profile.alertBelowUsd)) alerts.push('low');
  const burn = trend.history.size > 2 ? judgeAccount(trend.history.samples(), now, { factor: profile.runawayFactor, floorUsdPerHour: profile.runawayFloorUsdPerHour }) : undefined;
  if (burn) alerts.push(`burn ×${Math.round(burn.usdPerHour / Math.max(burn.baselineUsdPerHour, 0.01))}`);
  const runaways = usage.snapshot.episodes.size;
  if (runaways > 0) alerts.push(`${runaways} runaway`);
  const guardrail = guardrailAlert(profile, usage.snapshot, now);
  if (guardrail) alerts.push(guardrail);
  let state: AccountState;
  let reason: string | undefined;
  if (unavailable) {
    state = unavailable.unavailable === 'no_credential' ? 'no_key' : unavailable.unavailable === 'no_base_url' ? 'no_address' : 'down';
    // The watcher says what is missing; how to store a key is the command line's (the TUI has no key for another profile's).
    reason = visible(unavailable.unavailable === 'no_credential' ? `no stored credential (keydeck --profile ${profile.name} auth login)` : (unavailable.detail ?? unavailable.unavailable));
  } else if (poll.error !== undefined) {
    state = 'down';
    const transport = (poll.error as { transportCode?: unknown }).transportCode;
    const words = connectionState(poll, false, now).text.replace(/^\S+ /, '');
    reason = visible(typeof transport === 'string' && !words.includes(transport) ? `${words} (${transport})` : words);
  } else state = poll.updatedAt === undefined ? 'waiting' : 'up';
  const policy = profile.autoTopUp;
  return {
    name: profile.name,
    host: profile.baseUrl !== undefined ? hostLabel(profile.baseUrl) : '',
    state,
    ...(reason !== undefined && { reason }),
    ...(data && { remaining: data.remaining }),
    ...(t.long && { usdPerHour: t.long.usdPerHour }),
    runOut: t.runOut,
    ...(poll.updatedAt !== undefined && { updatedAt: poll.updatedAt }),
    autoTopUp: policy === undefined ? 'off' : policy.paused !== undefined ? 'paused' : 'on',
    alerts,
    readOnly: profile.readOnly !== undefined,
    protected: profile.protected,
  };
}

/**
 * The guardrails' alert of an account (the budget rules `keydeck apply` stored, src/billing/guardrails.ts),
 * judged on the last usage read alone: `N at limit`, else `N near limit` (a threshold crossed); none
 * without rules or a usage read. The guardrails act elsewhere (`apply --once`, `exporter --enforce`).
 */
function guardrailAlert(profile: ResolvedProfile, usage: AccountSnapshot['usage']['snapshot'], now: number): string | undefined {
  const rules = profile.guardrails?.rules;
  if (!rules || rules.length === 0 || !usage.report) return undefined;
  let atLimit = 0;
  let near = 0;
  for (const key of usage.report.keys) {
    const rule = key.name !== undefined && key.isActive !== false ? budgetOf(rules, key.name) : undefined;
    if (!rule) continue;
    const view = budgetView(rule, { usage: key, samples: [], at: usage.at, now });
    if (view.atLimit) atLimit++;
    else if (view.crossed.length > 0) near++;
  }
  return atLimit > 0 ? `${atLimit} at limit` : near > 0 ? `${near} near limit` : undefined;
}

/** How soon a row runs out, ms (0: empty; Infinity: never or unknown). */
function runOutMs(row: AccountRow): number {
  if (row.runOut.kind === 'empty') return 0;
  if (row.runOut.kind === 'at') return row.runOut.inMs;
  return Number.POSITIVE_INFINITY;
}

/** The rank of a state: down first, then the accounts with figures, the unusable ones last. */
function stateRank(state: AccountState): number {
  return state === 'down' ? 0 : state === 'up' || state === 'waiting' ? 1 : 2;
}

/** What needs attention first: down, runs out soonest, has alerts, then by name. Returns a new array. */
export function byAttention(rows: readonly AccountRow[]): AccountRow[] {
  return [...rows].sort((a, b) => stateRank(a.state) - stateRank(b.state) || runOutMs(a) - runOutMs(b) || Number(b.alerts.length > 0) - Number(a.alerts.length > 0) || a.name.localeCompare(b.name));
}

/** "12 s", "4 min", "2 h": the age of a reading, short. */
function age(updatedAt: number | undefined, now: number): string {
  if (updatedAt === undefined) return '';
  const s = Math.max(0, Math.floor((now - updatedAt) / 1000));
  return s < 60 ? `${s}s` : s < 3600 ? `${Math.floor(s / 60)}m` : `${Math.floor(s / 3600)}h`;
}

/** The state cell: `up 12s`, `down 3m` (the age of the last good reading), `waiting`, `no key`, `no address`. */
export function stateText(row: AccountRow, now: number): string {
  switch (row.state) {
    case 'up':
      return `up ${age(row.updatedAt, now)}`;
    case 'down':
      return row.updatedAt !== undefined ? `down ${age(row.updatedAt, now)}` : 'down';
    case 'waiting':
      return 'waiting';
    case 'no_key':
      return 'no key';
    case 'no_address':
      return 'no address';
  }
}

/** The run-out cell: `in 3 h`, `empty`, `never`, `…`. */
export function runOutText(runOut: RunOutProjection): string {
  switch (runOut.kind) {
    case 'at':
      return `in ${formatDuration(runOut.inMs).replace(/ \d+ (min|h)$/, '')}`;
    case 'empty':
      return 'empty';
    case 'never':
      return 'never';
    case 'unknown':
      return '…';
  }
}

/** One column of the table: its title, its width (cells) and its text of a row. */
interface Column {
  readonly title: string;
  readonly width: number;
  readonly right?: boolean;
  readonly text: (row: AccountRow, now: number) => string;
}

/** The marks after a name: ` RO`, ` P`. */
function marks(row: AccountRow): string {
  return `${row.readOnly ? ' RO' : ''}${row.protected ? ' P' : ''}`;
}

/** The columns at `width` cells (the host takes what the others leave). */
function columnsAt(width: number): Column[] {
  const wide = width >= 100;
  const fixed: Column[] = [
    { title: 'PROFILE', width: wide ? 16 : 13, text: (r) => r.name },
    { title: 'HOST', width: 0, text: (r) => r.host },
    { title: 'BALANCE', width: 10, right: true, text: (r) => (r.remaining !== undefined ? formatUsd(r.remaining) : '—') },
    { title: 'BURN', width: wide ? 10 : 8, right: true, text: (r) => (r.usdPerHour !== undefined ? `${formatUsd(r.usdPerHour)}/h` : '…') },
    { title: 'RUNS OUT', width: wide ? 10 : 9, text: (r) => runOutText(r.runOut) },
    { title: 'AUTO', width: 6, text: (r) => r.autoTopUp },
    { title: 'ALERTS', width: wide ? 14 : 9, text: (r) => r.alerts.join(' ') || '—' },
    { title: 'STATE', width: wide ? 10 : 8, text: stateText },
  ];
  const used = fixed.reduce((sum, c) => sum + c.width + 1, 0);
  return fixed.map((c) => (c.title === 'HOST' ? { ...c, width: Math.max(4, width - used) } : c));
}

/** `text` made exactly `width` cells: cut with "…" when longer, padded (left or right) when shorter. */
function cell(text: string, width: number, right = false): string {
  const cut = truncateTo(text, width);
  const pad = ' '.repeat(Math.max(0, width - displayWidth(cut)));
  return right ? pad + cut : cut + pad;
}

/** The header line of the table at `width` (two cells of the cursor column first). */
export function headerLine(width: number): string {
  const columns = columnsAt(width - 2);
  return truncateTo(`  ${columns.map((c) => cell(c.title, c.width, c.right)).join(' ')}`, width);
}

/** The line of `row` at `width`, cells only (the cursor column is the caller's). The name keeps its marks whole. */
export function rowLine(row: AccountRow, width: number, now: number): string {
  const columns = columnsAt(width - 2);
  return columns
    .map((c) => {
      if (c.title !== 'PROFILE') return cell(c.text(row, now), c.width, c.right);
      const tail = marks(row);
      return cell(truncateTo(row.name, c.width - displayWidth(tail)) + tail, c.width);
    })
    .join(' ');
}

/** The detail line of the selected row: the full host, why it is down, the alerts and auto top-up in words. */
export function detailLine(row: AccountRow, now: number): string {
  const parts = [`${row.name}${row.host ? ` @ ${row.host}` : ''}`];
  if (row.reason !== undefined) parts.push(row.state === 'no_key' || row.state === 'no_address' ? row.reason : `down: ${row.reason}`);
  if (row.updatedAt !== undefined) parts.push(`last reading ${age(row.updatedAt, now)} ago`);
  if (row.alerts.length > 0) parts.push(`alerts: ${row.alerts.join(', ')}`);
  parts.push(`auto top-up ${row.autoTopUp}`);
  if (row.readOnly) parts.push('read-only');
  if (row.protected) parts.push('protected');
  return parts.join(' · ');
}
