/**
 * `keydeck exporter --enforce` (docs/guardrails.md): after each usage read of a watched profile
 * (and each poll, for what time alone decides: a period that ended, a deadline that passed), one
 * pass of the profile's guardrails (src/operations/guardrailPass.ts): the rules `keydeck apply`
 * stored in the config file, read afresh each time (an `apply` in another shell takes effect at
 * the next poll), on the keys and the usage figures the watcher has. Each notice is a log line
 * (`event=guardrail`), runs `--on-guardrail CMD` and counts in `keydeck_key_guardrail_action_total`;
 * each governed key's budget is a gauge (src/metrics/guardrails.ts). A rotation's successor goes
 * where keydeck delivered the old key (its delivery record), else the key is disabled instead.
 */
import type { KeydeckClient } from '../api/client.js';
import type { ConsumptionKey } from '../api/schemas.js';
import type { BalanceHistoryStore, HistorySeries } from '../billing/historyStore.js';
import { KeyHistory } from '../billing/keyHistory.js';
import type { UsageTracker } from '../billing/usageTracker.js';
import { readConfig } from '../config/config.js';
import { readOnlyReason, readOnlyRefusal } from '../config/profileMarks.js';
import { DeliveryRecord } from '../delivery/deliveryRecord.js';
import { GuardrailMetrics } from '../metrics/guardrails.js';
import type { AccountMetrics } from '../metrics/account.js';
import { guardrailContext, guardrailEntries, guardrailMark, guardrailViews, guardrailWords, OperationDrivers, rotationContext, runGuardrailPass, type GuardrailNotice } from '../operations/index.js';
import { onGuardrailEnvironment, runUserHook } from '../terminal/notify.js';
import type { Logger } from './log.js';

/** How far back a key's reads are read (a month and a day), ms. */
const SAMPLES_MS = 32 * 86_400_000;

/** What every profile's guardrails share. */
export interface GuardrailsContext {
  readonly dataDir: string;
  /** The config file the rules are read from. */
  readonly configPath: string;
  readonly history: BalanceHistoryStore;
  readonly env: NodeJS.ProcessEnv;
  /** `--on-guardrail CMD`. */
  readonly onGuardrail?: string | undefined;
}

/** What the watchers are given with `--enforce`: a driver per profile. */
export interface GuardrailFaces {
  driver(account: AccountMetrics, series: HistorySeries | undefined): GuardrailDriver;
}

/** The {@link GuardrailFaces} of one exporter. */
export function guardrailFaces(ctx: GuardrailsContext, log: Logger): GuardrailFaces {
  return { driver: (account, series) => new GuardrailDriver(account, series, ctx, log) };
}

/** One watched profile's guardrails. */
export class GuardrailDriver {
  readonly #ctx: GuardrailsContext;
  readonly #log: Logger;
  readonly #metrics: GuardrailMetrics;
  readonly #history: KeyHistory | undefined;
  #lastProblem: string | undefined;

  constructor(account: AccountMetrics, series: HistorySeries | undefined, ctx: GuardrailsContext, log: Logger) {
    this.#ctx = ctx;
    this.#log = log;
    this.#metrics = new GuardrailMetrics(account);
    this.#history = series ? new KeyHistory(ctx.history.database, series.id) : undefined;
  }

  /**
   * One pass after a poll of `profile` with `client` (see the module comment); `usage` is the
   * watcher's tracker (its last figures), `keys` its last key list. Never throws: a problem is
   * one log line, said again only when it changes.
   */
  async afterUsage(
    profile: { readonly name: string; readonly baseUrl?: string | undefined; readonly readOnly?: boolean | undefined },
    client: KeydeckClient,
    usage: Pick<UsageTracker, 'snapshot' | 'clockOffsetMs'> | undefined,
    keys: readonly ConsumptionKey[] | undefined,
  ): Promise<void> {
    const origin = profile.baseUrl === undefined ? '' : new URL(profile.baseUrl).origin;
    const fields = { profile: profile.name, origin };
    const drivers = new OperationDrivers(this.#ctx.dataDir);
    try {
      const rules = (await readConfig(this.#ctx.configPath)).config.profiles[profile.name]?.guardrails?.rules ?? [];
      // A read-only profile changes nothing, guardrails included (src/config/profileMarks.ts).
      if (profile.readOnly === true) throw new Error(readOnlyRefusal(readOnlyReason({ name: profile.name, readOnly: { by: 'profile' }, configPath: this.#ctx.configPath })!, 'act on guardrails'));
      const now = Date.now() + (usage?.clockOffsetMs ?? 0);
      const samples = this.#history?.allSince(now - SAMPLES_MS) ?? new Map();
      const snapshot = usage?.snapshot;
      const figures = {
        rules,
        keys: keys ?? (await client.keys.list()),
        report: snapshot?.report,
        at: snapshot?.at,
        samplesOf: (id: string) => samples.get(id) ?? [],
        now,
        nextReadAt: snapshot?.budget?.nextAutoAt,
      };
      const env = this.#ctx.env;
      const dataDir = this.#ctx.dataDir;
      const deliveries = new DeliveryRecord(dataDir);
      const scope = { profile: profile.name, origin };
      const emit = () => undefined;
      const hook = this.#ctx.onGuardrail;
      const ctx = guardrailContext({
        dataDir,
        client,
        ...scope,
        drivers,
        rotation: rotationContext({ dataDir, client, delivery: { lockDir: dataDir, env }, deliveries, drivers, ...scope, emit }),
        tell: async (notice: GuardrailNotice) => {
          this.#metrics.acted(notice.what);
          this.#log.info('guardrail', { ...fields, action: notice.what, rule: notice.rule, key_id: notice.key.id, key_name: notice.key.name, msg: guardrailWords(notice, 'cli') });
          if (hook === undefined) return;
          const problem = await runUserHook('--on-guardrail', hook, onGuardrailEnvironment(notice, profile.name, origin, env), { env });
          if (problem !== undefined) this.#log.warn('guardrail_hook_failed', { ...fields, msg: problem });
        },
      });
      const pass = await runGuardrailPass(ctx, figures, async (key) => (await deliveries.recall({ ...scope, keyId: key.id })) ?? []);
      for (const f of pass.failed) this.#log.warn('guardrail_failed', { ...fields, key_name: f.name, msg: f.error instanceof Error ? f.error.message : String(f.error) });
      // The record says which keys a guardrail has off (the watcher's key list is a minute old at most).
      const entries = await guardrailEntries(dataDir, scope);
      const disabled = [...new Map(entries.filter((e) => guardrailMark(entries, e.keyId) !== undefined).map((e) => [e.keyId, { id: e.keyId, name: e.keyName }])).values()];
      this.#metrics.budgets(
        guardrailViews(figures).flatMap((v) => (v.budget ? [{ id: v.key.id, name: v.key.name, budget: v.budget }] : [])),
        disabled,
      );
      this.#lastProblem = undefined;
    } catch (error) {
      const msg = `the guardrails could not run: ${error instanceof Error ? error.message : String(error)}`;
      if (msg !== this.#lastProblem) this.#log.warn('guardrail_error', { ...fields, msg });
      this.#lastProblem = msg;
    } finally {
      drivers.releaseAll();
    }
  }
}
