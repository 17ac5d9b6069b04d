/**
 * `keydeck keys show ID|NAME [--json]`: one consumption key as the Keys pane's
 * details panel shows it, for scripts and people without the full-screen app: its status, expiry
 * and paid time, plan, how its time goes on, a pool key's pledge and reserved blocks (where it
 * stands in them now), its published limits with where each figure comes from
 * (src/billing/keyLimits.ts), and its spend from the last usage answer kept (never a usage read
 * spent: `keydeck keys usage` reads).
 *
 * The key is named by its id, or by its name when exactly one key has it. Reads: the key list,
 * `GET /api/plans` only for a legacy plan's key, the billing status only for a key that names a
 * pledge; a plans or status answer that fails leaves its part out, never the command.
 *
 * `--json`: the key as `keys list --json` gives it (the service's entry, plus `limits`), with
 * `details`: `{ status, expiresAt, paidTimeLeftSeconds, renewal, pledge, blocks, reservedHours,
 * spend }` (each present when known).
 *
 * Exit codes: 0 shown; 1 no key has that id or name, or several have that name (their ids are
 * named); 2 bad usage; 4 network.
 */
import { isPoolKey, keyStatus, paidTimeLeftMs, renewalWords, timeLeftWords } from '../api/keyStatus.js';
import { formatUsd } from '../api/money.js';
import { reservedHoursAt, reservedHoursText, type ReservedHours } from '../api/poolBlocks.js';
import { summarizeBillingStatus } from '../api/reader.js';
import type { ConsumptionKey } from '../api/schemas.js';
import { UsageListSchema, USAGE_PERIODS } from '../api/usageSchemas.js';
import { BalanceHistoryStore, originOf } from '../billing/historyStore.js';
import { describeLimits, planOf, plansFor, withLimits } from '../billing/keyLimits.js';
import { blocksOfKey, subscriptionIdOf } from '../billing/pledges.js';
import { spendRows, type SpendRow } from '../billing/spend.js';
import { credentialIdOf, UsageBudget } from '../billing/usageBudget.js';
import { budgetOf, budgetView, deadlines, namedRule } from '../billing/guardrails.js';
import { budgetWords, deadlineWords } from '../billing/guardrailWords.js';
import { KeyHistory } from '../billing/keyHistory.js';
import type { KeySample } from '../billing/runaway.js';
import { dataDir } from '../config/paths.js';
import { guardrailEntries, guardrailMark, type GuardrailMark } from '../operations/queries.js';
import { ageWords, periodWords } from '../billing/usageWords.js';
import { visible } from '../terminal/sanitize.js';
import { printData, type JsonFlag } from './api-command.js';
import { checkKeyRef, keyByRef } from './keyRef.js';
import { ExitCode, openSession, printFormatted, type ExitCodeValue, type GlobalOptions, type Session } from './output.js';
import { colorEnabled, formatKeyValues, formatTimestamp, type Cell } from './table.js';
import type { UsageDeps } from './usage.js';

const STATUS_STYLE = { active: 'green', inactive: 'yellow', expired: 'red' } as const;

/**
}

/** The key's spend in the last usage answer kept for this credential (never a read spent), with its age. */
interface KeptSpend {
  readonly row?: SpendRow;
  /** When the answer was read (service clock, ms) and now on that clock. */
  readonly at: number;
  readonly now: number;
  /** The key's earlier reads (its period's start, its rate) and when the schedule reads next. */
  readonly samples: readonly KeySample[];
  readonly nextReadAt?: number;
}

function keptSpend(session: Session, keys: readonly ConsumptionKey[], keyId: string, deps: UsageDeps): KeptSpend | undefined {
  let store: BalanceHistoryStore;
  try {
    store = deps.openHistory ? deps.openHistory() : BalanceHistoryStore.open({ env: deps.session?.env ?? process.env });
  } catch {
    // no balance history here: the key is shown without its spend
    return undefined;
  }
  try {
    const origin = originOf(session.profile.baseUrl);
    const budget = new UsageBudget(store.database);
    const kept = budget.kept(credentialIdOf(origin, session.credential.token), 'list');
    const report = kept === undefined ? undefined : UsageListSchema.safeParse(kept.body);
    if (!kept || !report?.success) return undefined;
    const row = spendRows(report.data, keys).find((r) => r.id === keyId);
    const now = budget.now(origin, session.client.serviceClockOffsetMs);
    const samples = new KeyHistory(store.database, store.series(session.profile.name, origin).id).samples(keyId, now - 32 * 86_400_000);
    return { ...(row && { row }), at: kept.t, now, samples, nextReadAt: budget.state(credentialIdOf(origin, session.credential.token), now).nextAutoAt };
  } finally {
    store.close();
  }
}

/**
 * The key's guardrails (docs/guardrails.md): the mark of a guardrail that disabled it (the record),
 * its budget and deadlines under the profile's rules, as lines and as `--json`'s `details.guardrail`.
 */
async function guardrailOf(session: Session, key: ConsumptionKey, spend: KeptSpend | undefined, now: number): Promise<{ lines: string[]; mark?: GuardrailMark; json?: Record<string, unknown> }> {
  let mark: GuardrailMark | undefined;
  try {
    mark = key.isActive ? undefined : guardrailMark(await guardrailEntries(dataDir(), { profile: session.profile.name, origin: originOf(session.profile.baseUrl) }), key.id);
  } catch {
    // An unreadable record marks nothing here (`keys list` says the same).
  }
  const rules = session.profile.guardrails?.rules ?? [];
  const rule = budgetOf(rules, key.name);
  const view = rule && budgetView(rule, { usage: spend?.row?.usage, samples: spend?.samples ?? [], at: spend?.at, now, nextReadAt: spend?.nextReadAt });
  const due = deadlines(namedRule(rules, key.name), key, now);
  const lines = [
    ...(mark
      ? [
          `disabled by its ${mark.reason === 'budget' ? 'budget' : mark.reason === 'expiry' ? 'expiresIn' : 'maxAge'}${mark.until !== null ? ` until ${formatTimestamp(mark.until)} (keydeck keys enable ${visible(key.id)} brings it back now)` : ''}`,
        ]
      : []),
    ...(view ? [`budget: ${budgetWords(view, now)}`] : []),
    ...due.map((d) => deadlineWords(d, now)),
  ];
  const json =
    view || due.length > 0
      ? {
          ...(view && {
            budget: {
              limitUsd: view.rule.limitUsd,
              period: view.rule.period,
              action: view.rule.action,
              spentUsd: view.spentUsd ?? null,
              ratio: view.ratio ?? null,
              resetsAt: new Date(view.end).toISOString(),
              overshootUsd: view.overshootUsd ?? null,
            },
          }),
          deadlines: due.map((d) => ({ kind: d.kind, dueAt: new Date(d.dueAt).toISOString(), state: d.state, action: d.action })),
        }
      : undefined;
  return { lines, ...(mark && { mark }), ...(json && { json }) };
}

/** The spend line: each period's figure, and the answer's age; or why there is none. */
function spendWords(spend: KeptSpend | undefined): string {
  if (!spend) return 'no usage answer kept yet: keydeck keys usage reads one (12 reads per 12 hours)';
  const row = spend.row;
  const age = `as of ${ageWords(spend.at, spend.now)}`;
  if (!row) return `not in the last usage answer (${age})`;
  if (row.refused !== undefined) return row.refused;
  const figures = USAGE_PERIODS.filter((p) => row.periods[p] !== undefined).map((p) => `${periodWords(p)} ${formatUsd(row.periods[p]!.spend)}`);
  return figures.length === 0 ? `no figures in the last usage answer (${age})` : `${figures.join(' · ')} (${age})`;
}

/** Where a pool key stands in its blocks, for `--json`: inside (until when) or outside (the next block and its start). */
function reservedHoursJson(at: ReservedHours): Record<string, unknown> {
  if (at.inside) return { inside: true, block: at.block, ...(Number.isFinite(at.endsAt) && { endsAt: new Date(at.endsAt).toISOString() }) };
  return { inside: false, nextBlock: at.block, startsAt: new Date(at.startsAt).toISOString() };
}

/** `keydeck keys show ID|NAME [--json]`: see the module comment. */
export async function keysShow(globals: GlobalOptions, idOrName: string, flags: JsonFlag = {}, deps: UsageDeps = {}): Promise<ExitCodeValue> {
  const given = checkKeyRef(idOrName);
  const session = await openSession(globals, { ...deps.session, pendingRotations: true, pendingCreations: true });
  const { client } = session;
  try {
    const keys = await client.keys.list();
    const key = keyByRef(keys, given);
    // A pool key names its pledge; a key of the spec's model may name its own id as its subscription (nothing to add).
    const named = key.keyType === 'subscription' ? subscriptionIdOf(key) : undefined;
    const pledge = named !== undefined && named !== key.id ? named : undefined;
    const [plans, status] = await Promise.all([plansFor(client, [key]), pledge !== undefined || isPoolKey(key) ? client.billing.status().catch(() => undefined) : undefined]); // status unreadable: the key is shown without its pledge
    const now = client.serviceNow();
    const summary = summarizeBillingStatus(status);
    const blocks = key.keyType === 'subscription' ? blocksOfKey(key, summary) : undefined;
    // The older page lists a pledge among its subscriptions.
    const cancelled = pledge !== undefined ? (summary?.poolPledges.find((p) => p.id === pledge) ?? summary?.subscriptions.find((s) => s.id === pledge))?.cancelAtPeriodEnd : undefined;
    const spend = keptSpend(session, keys, key.id, deps);
    const state = keyStatus(key, now);
    const left = paidTimeLeftMs(key, now);
    const plan = planOf(key, plans);
    const renewal =
      key.keyType === 'subscription'
        ? `${renewalWords(key, plan?.priceUsd !== undefined ? formatUsd(plan.priceUsd) : undefined, cancelled)}${isPoolKey(key) && cancelled === false ? ' (keydeck billing cancel stops it)' : ''}`
        : undefined;
    const hours = blocks ? reservedHoursText(blocks, now) : undefined;
    const guard = await guardrailOf(session, key, spend, now);
    if (flags.json) {
      const at = blocks ? reservedHoursAt(blocks, now) : undefined;
      printData({
        ...withLimits([key], plans)[0],
        details: {
          status: state,
          ...(key.subscriptionExpiresAt !== undefined && { expiresAt: key.subscriptionExpiresAt }),
          ...(left !== undefined && { paidTimeLeftSeconds: Math.floor(left / 1000) }),
          ...(renewal !== undefined && { renewal }),
          ...(pledge !== undefined && { pledge }),
          ...(blocks !== undefined && { blocks }),
          ...(at !== undefined && { reservedHours: reservedHoursJson(at) }),
          ...(spend?.row && spend.row.refused === undefined && { spend: { asOf: new Date(spend.at).toISOString(), periods: spend.row.periods } }),
          ...(guard.json && { guardrail: guard.json }),
        },
        ...(guard.mark && { guardrail: guard.mark }),
      });
      return ExitCode.ok;
    }
    const pairs: Array<[string, Cell]> = [
      ['name', key.name],
      ['id', key.id],
      ['type', `${key.keyType} key · plan ${key.keyPlan}`],
      [
        'status',
        {
          text: `${state}${hours !== undefined && state === 'active' ? ` · ${hours}` : ''}${key.subscriptionStatus !== undefined && key.subscriptionStatus !== state ? ` (subscription: ${key.subscriptionStatus})` : ''}`,
          style: STATUS_STYLE[state],
        },
      ],
      ['created', `${formatTimestamp(key.createdAt)}${key.lastUsedAt === undefined ? '' : ` · last used ${formatTimestamp(key.lastUsedAt, 'never')}`}`],
      [
        'expires',
        key.keyType === 'credit'
          ? 'never (credit keys never expire while a balance remains)'
          : `${formatTimestamp(key.subscriptionExpiresAt)}${state === 'expired' ? ' (ended)' : left !== undefined ? ` · ${timeLeftWords(left)} of paid time left` : ''}`,
      ],
      ...(renewal !== undefined ? [['renewal', renewal] as [string, Cell]] : []),
      ...(pledge !== undefined
        ? [[isPoolKey(key) ? 'pledge' : 'subscription', `${pledge}${blocks ? ` · blocks ${blocks.join(', ')} (UTC: asia 00–08, europe 08–16, americas 16–24)` : ''}`] as [string, Cell]]
        : []),
      ['limits', describeLimits(key, plans)],
      ['spend', key.keyType === 'credit' ? `${spendWords(spend)}; draws on the shared credit balance` : spendWords(spend)],
      ...guard.lines.map((line): [string, Cell] => ['guardrail', line]),
    ];
    printFormatted(formatKeyValues(pairs, { color: colorEnabled() }));
    return ExitCode.ok;
  } finally {
    client.close();
  }
}
