/**
 * `keydeck exporter --auto-topup`: after each balance read of a watched profile with a
 * policy, the profile's account watcher runs auto top-up's runner (src/operations/autoTopUp.ts: it
 * reads everything again under the account's lock and charges at most once); here, the policy's
 * state as metrics (src/metrics/autoTopUp.ts), and a log line for every charge and every failure;
 * a run that charges nothing for the same reason as the last one is logged once.
 *
 * The policy is the profile's in the config file as of the last load (start or SIGHUP); the run
 * itself reads the file again, so `keydeck autotopup off` stops it at once.
 */
import { hostOf } from '../api/baseUrl.js';
import type { CreditBalance } from '../api/schemas.js';
import type { TopUpJournal } from '../billing/journal.js';
import { pauseAutoTopUpPolicy, readAutoTopUpPolicy } from '../config/config.js';
import { readOnlyReason, readOnlyRefusal } from '../config/profileMarks.js';
import type { AccountMetrics } from '../metrics/account.js';
import { AutoTopUpMetrics } from '../metrics/autoTopUp.js';
import { AutoTopUpRunner, autoTopUpSentence, type AutoTopUpOutcome, type AutoTopUpStep } from '../operations/index.js';
import type { Logger } from './log.js';
import { cardMethodNames, settleBounds, type AutoTopUpPolicy } from '../config/autoTopUp.js';
import { belowSentence } from '../words/index.js';

/** What auto top-up reads of a watched profile (./profile.ts WatchedProfile). */
export interface AutoTopUpProfile {
  readonly name: string;
  readonly baseUrl?: string | undefined;
  readonly topUpMethods?: Readonly<Partial<Record<'card_checkout' | 'card_direct' | 'usdc', string>>> | undefined;
  readonly autoTopUp?: AutoTopUpPolicy | undefined;
  /** Marked `readOnly` (src/config/profileMarks.ts): never charged; said once in the log. */
  readonly readOnly?: boolean | undefined;
}

/** What every profile's auto top-up shares (absent without `--auto-topup`). */
export interface AutoTopUpContext {
  readonly journal: TopUpJournal;
  readonly dataDir: string;
  /** The config file the policies are read from. */
  readonly configPath: string;
  /** The exporter's environment (`KEYDECK_AUTOTOPUP_SETTLE_SECONDS`). */
  readonly env?: NodeJS.ProcessEnv;
}

/** What the watchers are given with `--auto-topup`: a driver per profile. */
export interface AutoTopUpFaces {
  driver(account: AccountMetrics): AutoTopUpDriver;
}

/** The {@link AutoTopUpFaces} of one exporter: its top-up record, data dir and config file. */
export function autoTopUpFaces(ctx: AutoTopUpContext, log: Logger): AutoTopUpFaces {
  return { driver: (account) => new AutoTopUpDriver(account, ctx, log) };
}

/** One watched profile's auto top-up. */
export class AutoTopUpDriver {
  readonly #ctx: AutoTopUpContext;
  readonly #log: Logger;
  readonly #metrics: AutoTopUpMetrics;
  #runner: { runner: AutoTopUpRunner; key: string } | undefined;
  #lastSaid: string | undefined;

  constructor(account: AccountMetrics, ctx: AutoTopUpContext, log: Logger) {
    this.#ctx = ctx;
    this.#log = log;
    this.#metrics = new AutoTopUpMetrics(account);
  }

  /**
   * The runner of `profile` (a new one when its service or card method names change): the
   * account watcher runs it after each balance read (src/watcher/accountWatcher.ts), and hands
   * what it did to {@link report} or {@link failed}. A profile without a service runs nothing.
   */
  runnerOf(profile: AutoTopUpProfile): Pick<AutoTopUpRunner, 'afterReading'> {
    const baseUrl = profile.baseUrl;
    // No service, or a read-only profile (never charged: {@link report} says why): nothing runs.
    if (baseUrl === undefined || profile.readOnly === true) return { afterReading: async () => ({}) };
    const names = cardMethodNames(profile.topUpMethods);
    const key = `${baseUrl}\n${names.join(',')}`;
    if (this.#runner?.key !== key) {
      this.#runner = {
        key,
        runner: new AutoTopUpRunner({
          journal: this.#ctx.journal,
          scope: { host: hostOf(baseUrl), profile: profile.name },
          dataDir: this.#ctx.dataDir,
          readPolicy: () => readAutoTopUpPolicy(this.#ctx.configPath, profile.name),
          pausePolicy: (pause) => pauseAutoTopUpPolicy(this.#ctx.configPath, profile.name, pause),
          cardMethodNames: names,
          settle: settleBounds(this.#ctx.env ?? process.env),
        }),
      };
    }
    return this.#runner.runner;
  }

  /** What a run after a balance read of `profile` (`credits`) did: the metrics, and a log line for each charge and failure. */
  report(profile: AutoTopUpProfile, step: AutoTopUpStep, credits: CreditBalance): void {
    // A read-only profile is never charged (the one check of src/config/profileMarks.ts); said once.
    if (profile.readOnly === true) {
      this.#metrics.state(undefined);
      const msg = readOnlyRefusal(readOnlyReason({ name: profile.name, readOnly: { by: 'profile' }, configPath: this.#ctx.configPath })!, 'act on auto top-up');
      if (msg !== this.#lastSaid) this.#log.info('autotopup_skipped', { profile: profile.name, origin: profile.baseUrl, reason: 'read_only', msg });
      this.#lastSaid = msg;
      return;
    }
    const outcome = step.outcome;
    if (outcome === undefined) {
      if (step.policy === undefined || credits.remaining >= step.policy.belowUsd) {
        this.#lastSaid = undefined;
        this.#metrics.capped(undefined);
      }
    } else {
      this.#metrics.capped(outcome.kind === 'skipped' && outcome.decision.kind === 'capped' ? outcome.decision.cap : undefined);
      this.#report(outcome, { profile: profile.name, origin: profile.baseUrl });
    }
    this.#metrics.state(step.summary);
  }

  /** A run that could not be made (the balance or status unreadable, the record unwritable, the lock held): said once while it lasts. */
  failed(profile: AutoTopUpProfile, error: unknown): void {
    const msg = `auto top-up could not run: ${belowSentence(error) ?? (error as Error).message}`;
    if (msg !== this.#lastSaid) this.#log.warn('autotopup_error', { profile: profile.name, origin: profile.baseUrl, msg });
    this.#lastSaid = msg;
  }

  /** A log line for each charge and failure; a skip said once for as long as its reason stays. */
  #report(outcome: AutoTopUpOutcome, fields: { profile: string; origin: string | undefined }): void {
    switch (outcome.kind) {
      case 'credited':
        this.#metrics.charged('credited');
        this.#log.info('autotopup_charged', { ...fields, amount_usd: outcome.entry.credited ?? outcome.entry.amount, msg: autoTopUpSentence(outcome) });
        this.#lastSaid = undefined;
        break;
      case 'failed':
      case 'unknown':
      case 'not_sent':
        this.#metrics.charged(outcome.kind);
        this.#log.warn(`autotopup_${outcome.kind}`, { ...fields, amount_usd: outcome.entry.amount, ...(outcome.kind === 'failed' && { paused: outcome.paused }), msg: autoTopUpSentence(outcome) });
        this.#lastSaid = undefined;
        break;
      case 'skipped':
      case 'no_policy':
        if (autoTopUpSentence(outcome) !== this.#lastSaid) {
          const level = outcome.kind === 'skipped' && outcome.decision.kind === 'not_needed' ? 'info' : 'warn';
          this.#log[level]('autotopup_skipped', { ...fields, reason: outcome.kind === 'skipped' ? outcome.decision.kind : 'no_policy', msg: autoTopUpSentence(outcome) });
          this.#lastSaid = autoTopUpSentence(outcome);
        }
        break;
    }
    // Another machine charged for the same fall first: this one paused itself (keydeck_autotopup_two_machines).
    if ((outcome.kind === 'credited' || outcome.kind === 'unknown') && outcome.secondCharge !== undefined) {
      this.#log.warn('autotopup_two_machines', { ...fields, ...(outcome.secondCharge.reference !== undefined && { other_charge: outcome.secondCharge.reference }), msg: autoTopUpSentence(outcome) });
    }
  }
}
