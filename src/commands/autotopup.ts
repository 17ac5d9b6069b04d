/**
 * `keydeck autotopup set | status | off | resume | run --once`: the auto top-up policy
 * of a profile (src/config/autoTopUp.ts, in the config file) and one run of it
 * (src/operations/autoTopUp.ts) for cron.
 *
 * `set` asks first (it authorises future charges to the card on file; `--yes` in scripts), refuses
 * a policy that cannot work before anything is stored, and says when the service's recent card
 * charges show another owner (another machine, or a person) than this machine's record. `set` and
 * `resume` start the policy's count of failures on the service's clock. `status` reads this
 * machine's top-up record and config only (no request). `run --once` exits 0 when nothing was
 * needed or a charge was credited, 1 when the charge failed (declined or refused) or was not sent,
 * 3 when the balance is below the threshold and nothing was charged (a top-up in flight or one
 * that appeared while it settled, a cap reached, paused, or a charge whose outcome is unknown), 2
 * without a policy.
 */
import { hostOf } from '../api/baseUrl.js';
import { policySentence } from '../billing/autoTopUp.js';
import { countFrom, listedInWords, recordReferences } from '../billing/autoTopUpCount.js';
import { inScope, sameService, TopUpJournal, type JournalEntry } from '../billing/journal.js';
import { listedTopUps } from '../billing/serviceTopUps.js';
import { cardMethodNames, DEFAULT_DAY_CAP_CHARGES, DEFAULT_MONTH_CAP_CHARGES, PAUSE_AFTER_FAILURES, resolveAutoTopUpPolicy, settleBounds, type AutoTopUpPolicy } from '../config/autoTopUp.js';
import { pauseAutoTopUpPolicy, readAutoTopUpPolicy, updateConfig } from '../config/config.js';
import { dataDir } from '../config/paths.js';
import { resolveProfile, type ResolvedProfile } from '../config/profile.js';
import { autoCharges, autoTopUpSentence, failpointsFrom, failureStreak, runAutoTopUp, summarize, type AutoTopUpOutcome } from '../operations/index.js';
import { printData } from './api-command.js';
import { operationFailure } from './keyDelivery.js';
import { confirmDestructive } from './confirm.js';
import { withMetricsTextfile, type TextfileRun } from './metricsTextfile.js';
import { ExitCode, exitCodeOf as errorExitCode, fail, openSession, printLine, printProblem, sentenceOf, type ExitCodeValue, type GlobalOptions } from './output.js';
import { ensureCanChange } from './changeGuard.js';
import { formatUsd } from '../api/money.js';
import { billingWords } from './wordingBilling.js';

/** Flags of `autotopup set` (commander's strings). */
export interface AutoTopUpSetFlags {
  readonly below: string;
  readonly amount?: string;
  readonly to?: string;
  readonly maxPerDay?: string;
  readonly maxPerMonth?: string;
  readonly method?: string;
  readonly yes?: boolean;
}

/** Dependencies a test may replace. */
export interface AutoTopUpDeps {
  readonly env?: NodeJS.ProcessEnv;
  readonly journal?: TopUpJournal;
  readonly now?: () => Date;
}

const USD = /^(\d{1,9})(\.\d{1,2})?$/;

/** Each cap, its flag and its default in words. */
const CAPS = [
  { name: 'the day cap', flag: '--max-per-day', words: `the largest charge ${DEFAULT_DAY_CAP_CHARGES} times a day` },
  { name: 'the month cap', flag: '--max-per-month', words: `the largest charge ${DEFAULT_MONTH_CAP_CHARGES} times a month` },
] as const;

/** A USD figure of a flag: a plain decimal with at most two decimals. Exit 2 otherwise. */
function usdFlag(flag: string, text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  if (!USD.test(text.trim())) fail(ExitCode.usage, billingWords.invalidRequestUsdAmountSuch, { flag, text });
  return Number(text.trim());
}

/** `keydeck autotopup set …`: checks, asks, stores the policy. Exit 0; 2 for a policy that cannot work. */
export async function autoTopUpSet(globals: GlobalOptions, flags: AutoTopUpSetFlags, deps: AutoTopUpDeps = {}): Promise<ExitCodeValue> {
  const env = deps.env ?? process.env;
  // A policy authorises charges: refused on a read-only profile before anything is asked.
  const profile = await ensureCanChange(globals, 'set an auto top-up policy', env);
  const names = cardMethodNames(profile.topUpMethods);
  if (flags.method !== undefined && !names.includes(flags.method)) {
    fail(ExitCode.usage, billingWords.invalidRequestMethodNotCard, { method: flags.method, names });
  }
  const resolved = resolveAutoTopUpPolicy(
    {
      belowUsd: usdFlag('--below', flags.below) ?? 0,
      amountUsd: usdFlag('--amount', flags.amount),
      toUsd: usdFlag('--to', flags.to),
      maxPerDayUsd: usdFlag('--max-per-day', flags.maxPerDay),
      maxPerMonthUsd: usdFlag('--max-per-month', flags.maxPerMonth),
      method: flags.method,
    },
    (deps.now ?? (() => new Date()))(),
  );
  if ('problem' in resolved) fail(ExitCode.usage, billingWords.invalidPolicyNothingStored, { problem: resolved.problem });
  const service = await otherOwners(globals, env, profile, names, deps.journal ?? new TopUpJournal({ env }));
  for (const line of service.lines) printLine(line);
  // The count of failures starts on the service's clock (docs/topups.md "Auto top-up").
  const policy = service.since !== undefined ? { ...resolved.policy, since: service.since } : resolved.policy;
  const command = `keydeck autotopup set ${commandFlags(flags)}`;
  // Only the caps not given are said to be defaults.
  const defaults = CAPS.filter((c) => (c.flag === '--max-per-day' ? flags.maxPerDay : flags.maxPerMonth) === undefined);
  const both = defaults.length > 1;
  await confirmDestructive({
    yes: flags.yes,
    command,
    question:
      `Allow keydeck to charge the card on file for profile "${profile.name}" (${profile.baseUrl ?? 'no base URL yet'}) without asking: ${policySentence(policy)}?` +
      (defaults.length > 0 ? ` (${defaults.map((c) => `${c.name} by default: ${c.words}`).join('; ')})` : ''),
  });
  await updateConfig(profile.configPath, (config) => {
    config.profiles[profile.name] = { ...(config.profiles[profile.name] ?? {}), autoTopUp: policy };
  });
  printLine(`Auto top-up is set for profile "${profile.name}": ${policySentence(policy)}.`);
  if (defaults.length > 0) {
    const names = defaults.map((c) => c.name).join(' and ');
    printLine(
      `${names[0]!.toUpperCase()}${names.slice(1)}, not given, ${both ? 'are the defaults' : 'is the default'} (${defaults.map((c) => c.words).join(' and ')}); ${defaults.map((c) => c.flag).join(' and ')} ${both ? 'change them' : 'changes it'}.`,
    );
  }
  printLine('It acts only where you run it: keydeck autotopup run --once (cron), keydeck exporter --auto-topup, keydeck monitor --auto-topup, or keydeck --auto-topup.');
  return ExitCode.ok;
}

/**
 * What `set` reads of the service: its clock, and the card-on-file charges its billing status
 * lists that no record of this machine names (another machine's or a person's), in a sentence.
 * A service that cannot be read is said, and the policy starts on this machine's clock.
 */
async function otherOwners(globals: GlobalOptions, env: NodeJS.ProcessEnv, profile: ResolvedProfile, names: readonly string[], journal: TopUpJournal): Promise<{ since?: string; lines: string[] }> {
  let status: unknown;
  let serviceNow: number;
  let host: string;
  try {
    const { client, profile: session } = await openSession(globals, { env, pendingRotations: false, pendingCreations: false });
    status = await client.billing.status();
    serviceNow = client.serviceNow();
    host = hostOf(session.baseUrl);
  } catch (error) {
    return {
      lines: [
        `keydeck could not read the service's recent card charges (${sentenceOf(error).replace(/\.$/, '')}): it cannot say whether another machine charges this account's card, and the policy's count of failures starts on this machine's clock.`,
      ],
    };
  }
  const listed = listedTopUps(status);
  const records = (await journal.list()).filter((e) => sameService(e.host, host));
  const own = recordReferences(records);
  const since = countFrom(
    serviceNow,
    listed,
    records.filter((e) => e.profile === profile.name),
  );
  const cardNames = new Set(names);
  const others = [...listed.finished, ...listed.pending, ...listed.failed]
    .filter((t) => cardNames.has(t.method) && t.reference !== undefined && !own.has(t.reference.toLowerCase()))
    .sort((a, b) => b.askedAt - a.askedAt);
  if (others.length === 0) return { since, lines: [] };
  const latest = others[0]!;
  return {
    since,
    lines: [
      `The service lists ${others.length === 1 ? 'a card-on-file charge' : `${others.length} card-on-file charges`} that no record of this machine names (the latest: ${listedInWords(latest)}): another owner charges this account's card, another machine or a person. ` +
        'If another machine runs auto top-up for this account, keep one: two at once may charge one fall of the balance twice (keydeck help topups, "Auto top-up").',
    ],
  };
}

function commandFlags(flags: AutoTopUpSetFlags): string {
  const parts: string[] = [`--below ${flags.below}`];
  if (flags.amount !== undefined) parts.push(`--amount ${flags.amount}`);
  if (flags.to !== undefined) parts.push(`--to ${flags.to}`);
  if (flags.maxPerDay !== undefined) parts.push(`--max-per-day ${flags.maxPerDay}`);
  if (flags.maxPerMonth !== undefined) parts.push(`--max-per-month ${flags.maxPerMonth}`);
  if (flags.method !== undefined) parts.push(`--method ${flags.method}`);
  return parts.join(' ');
}

/** The policy of the profile, or exit 2 naming `autotopup set`. */
async function policyOf(globals: GlobalOptions, env: NodeJS.ProcessEnv): Promise<{ profile: ResolvedProfile; policy: AutoTopUpPolicy }> {
  const profile = await resolveProfile(globals, env);
  if (profile.autoTopUp === undefined) fail(ExitCode.usage, billingWords.noPolicy, { name: profile.name });
  return { profile, policy: profile.autoTopUp };
}

/** `keydeck autotopup off`: removes the policy (no charge is made after this, anywhere on this machine). */
export async function autoTopUpOff(globals: GlobalOptions, deps: AutoTopUpDeps = {}): Promise<ExitCodeValue> {
  const profile = await resolveProfile(globals, deps.env ?? process.env);
  let had = false;
  await updateConfig(profile.configPath, (config) => {
    const entry = config.profiles[profile.name];
    if (entry?.autoTopUp === undefined) return;
    had = true;
    delete entry.autoTopUp;
  });
  printLine(had ? `Auto top-up is off for profile "${profile.name}": keydeck charges nothing by itself from now on.` : `Auto top-up was not set for profile "${profile.name}": nothing changed.`);
  return ExitCode.ok;
}

/**
 * `keydeck autotopup resume`: failures before now (the service's clock) no longer count, a pause for
 * two machines is lifted (a paused policy charges again), and auto charges still verifying (their
 * outcome unknown) are closed on the user's word — the billing status naming one later still
 * marks it credited (evidence beats the user's word). The service's clock is read first: a
 * service that cannot be read changes nothing.
 */
export async function autoTopUpResume(globals: GlobalOptions, deps: AutoTopUpDeps = {}): Promise<ExitCodeValue> {
  const env = deps.env ?? process.env;
  const { profile } = await policyOf(globals, env);
  const journal = deps.journal ?? new TopUpJournal({ env });
  let since: string;
  try {
    const { client, profile: session } = await openSession(globals, { env, pendingRotations: false, pendingCreations: false });
    const listed = listedTopUps(await client.billing.status());
    since = countFrom(
      client.serviceNow(),
      listed,
      (await journal.list()).filter((e) => inScope(e, { host: hostOf(session.baseUrl), profile: session.name })),
    );
  } catch (error) {
    fail(errorExitCode(error), `keydeck autotopup resume counts failures from now on the service's clock, which it could not read: ${sentenceOf(error).replace(/\.$/, '')}; nothing changed`);
  }
  let lifted: AutoTopUpPolicy['paused'];
  await updateConfig(profile.configPath, (config) => {
    const entry = config.profiles[profile.name];
    if (!entry?.autoTopUp) return;
    lifted = entry.autoTopUp.paused;
    const { paused: _paused, ...rest } = entry.autoTopUp;
    entry.autoTopUp = { ...rest, since };
  });
  const closed: JournalEntry[] = [];
  if (profile.baseUrl !== undefined) {
    const scope = { host: hostOf(profile.baseUrl), profile: profile.name };
    for (const e of autoCharges((await journal.list()).filter((r) => inScope(r, scope) && r.state === 'verifying'))) {
      const next = await journal.update(e.id, (current) =>
        current.state === 'verifying' ? { state: 'closed', reason: 'closed by keydeck autotopup resume: its outcome was unknown', reasonCode: 'closed' } : undefined,
      );
      if (next) closed.push(next);
    }
  }
  printLine(`Auto top-up resumed for profile "${profile.name}": earlier failures no longer count; the next run charges when the balance is below the threshold.`);
  if (lifted) printLine(`The pause for two machines is lifted: keep auto top-up on this machine only. It said: ${lifted.reason}`);
  for (const e of closed)
    printLine(
      `Closed on your word: the charge of ${formatUsd(e.amount)} recorded ${e.createdAt.slice(0, 16).replace('T', ' ')} UTC, whose outcome was unknown (if the service names it later, it is marked credited).`,
    );
  return ExitCode.ok;
}

/** What `autotopup status --json` prints. */
export interface AutoTopUpStatusJson {
  readonly profile: string;
  readonly policy: AutoTopUpPolicy | null;
  readonly paused: boolean;
  /** Why it is paused: after failed charges, or on this machine because two machines charged for one fall. */
  readonly pausedBy: 'failures' | 'two_machines' | null;
  /** The pause for two machines (the sentence naming the other charge), when it is set. */
  readonly twoMachines: AutoTopUpPolicy['paused'] | null;
  readonly failuresInARow: number;
  readonly lastCharge: JournalEntry | null;
  readonly lastFailure: JournalEntry | null;
}

/** `keydeck autotopup status [--json]`: the policy, paused or not, the last charge and failure (this machine's record; no request). */
export async function autoTopUpStatus(globals: GlobalOptions, flags: { json?: boolean } = {}, deps: AutoTopUpDeps = {}): Promise<ExitCodeValue> {
  const env = deps.env ?? process.env;
  const profile = await resolveProfile(globals, env);
  const policy = profile.autoTopUp;
  const journal = deps.journal ?? new TopUpJournal({ env });
  const records = profile.baseUrl === undefined ? [] : (await journal.list()).filter((e) => inScope(e, { host: hostOf(profile.baseUrl!), profile: profile.name }));
  const charges = autoCharges(records);
  const streak = policy ? failureStreak(records, policy.since) : 0;
  const lastCharge = charges.find((e) => e.state === 'credited' || e.state === 'verifying') ?? null;
  const lastFailure = charges.find((e) => e.state === 'refused') ?? null;
  const twoMachines = policy?.paused ?? null;
  const paused = streak >= PAUSE_AFTER_FAILURES || twoMachines !== null;
  if (flags.json) {
    const pausedBy = twoMachines !== null ? 'two_machines' : paused ? 'failures' : null;
    printData({ profile: profile.name, policy: policy ?? null, paused, pausedBy, twoMachines, failuresInARow: streak, lastCharge, lastFailure } satisfies AutoTopUpStatusJson);
    return ExitCode.ok;
  }
  if (!policy) {
    printLine(`Auto top-up: off for profile "${profile.name}" (keydeck autotopup set --below USD --amount USD).`);
    return ExitCode.ok;
  }
  printLine(`Auto top-up for profile "${profile.name}": ${policySentence(policy)}.`);
  if (twoMachines !== null)
    printLine(`PAUSED on this machine since ${twoMachines.at.slice(0, 16).replace('T', ' ')} UTC: ${twoMachines.reason} Nothing is charged here until keydeck autotopup resume.`);
  else
    printLine(
      streak >= PAUSE_AFTER_FAILURES
        ? `PAUSED: the last ${streak} charges failed; nothing is charged until keydeck autotopup resume.`
        : `Active${streak > 0 ? ` (${streak} failed charge${streak === 1 ? '' : 's'} in a row; it pauses at ${PAUSE_AFTER_FAILURES})` : ''}.`,
    );
  printLine(
    lastCharge
      ? `Last charge: ${formatUsd(lastCharge.credited ?? lastCharge.amount)} at ${lastCharge.createdAt.slice(0, 16).replace('T', ' ')} UTC, ${lastCharge.state === 'credited' ? 'credited' : 'outcome unknown (counts as in flight)'}.`
      : 'No charge made on this machine yet.',
  );
  if (lastFailure) printLine(`Last failure: ${formatUsd(lastFailure.amount)} at ${lastFailure.createdAt.slice(0, 16).replace('T', ' ')} UTC: ${lastFailure.reason ?? 'refused'}.`);
  return ExitCode.ok;
}

/** The exit code of a run's outcome (the module comment). */
export function exitCodeOf(outcome: AutoTopUpOutcome): ExitCodeValue {
  switch (outcome.kind) {
    case 'no_policy':
      return ExitCode.usage;
    case 'credited':
      return ExitCode.ok;
    case 'skipped':
      return outcome.decision.kind === 'not_needed' ? ExitCode.ok : ExitCode.belowThreshold;
    case 'unknown':
      return ExitCode.belowThreshold;
    case 'failed':
    case 'not_sent':
      return ExitCode.refused;
  }
}

/**
 * `keydeck autotopup run --once [--json] [--metrics-textfile PATH]`: one decision and at most one
 * charge (for cron). Quiet as cron wants it: nothing on stdout when nothing was needed, one line when
 * a charge was credited, one line on stderr otherwise (the balance stays below its threshold, or the
 * charge failed); `--json` prints the outcome whatever it is. `--metrics-textfile` writes the run for
 * node_exporter's textfile collector (./metricsTextfile.ts).
 */
export async function autoTopUpRun(globals: GlobalOptions, flags: { json?: boolean; metricsTextfile?: string } = {}, deps: AutoTopUpDeps = {}): Promise<ExitCodeValue> {
  const env = deps.env ?? process.env;
  return withMetricsTextfile(flags.metricsTextfile, 'autotopup run', globals, env, (run) => runOnce(globals, flags, env, deps, run));
}

async function runOnce(globals: GlobalOptions, flags: { json?: boolean }, env: NodeJS.ProcessEnv, deps: AutoTopUpDeps, run: TextfileRun | undefined): Promise<ExitCodeValue> {
  await ensureCanChange(globals, 'run auto top-up', env);
  const { profile } = await policyOf(globals, env);
  const settle = settleBounds(env);
  if ('problem' in settle) fail(ExitCode.usage, billingWords.invalidPolicyNothingCharged, { problem: settle.problem });
  const { client, profile: session } = await openSession(globals, { env });
  const journal = deps.journal ?? new TopUpJournal({ env });
  const scope = { host: hostOf(session.baseUrl), profile: session.name };
  const outcome = await runAutoTopUp({
    client,
    journal,
    scope,
    dataDir: dataDir(env),
    readPolicy: () => readAutoTopUpPolicy(profile.configPath, profile.name),
    pausePolicy: (pause) => pauseAutoTopUpPolicy(profile.configPath, profile.name, pause),
    cardMethodNames: cardMethodNames(profile.topUpMethods),
    settle,
    failpoints: failpointsFrom(env),
  }).catch(operationFailure);
  const said = autoTopUpSentence(outcome);
  if (flags.json) {
    const second = outcome.kind === 'credited' || outcome.kind === 'unknown' ? outcome.secondCharge : undefined;
    printData({
      outcome: outcome.kind,
      ...('decision' in outcome && { decision: outcome.decision.kind }),
      sentence: said,
      ...('entry' in outcome && { topUp: outcome.entry }),
      ...(second && { secondCharge: second }),
    });
  } else if (outcome.kind === 'credited') printLine(said);
  else if (!(outcome.kind === 'skipped' && outcome.decision.kind === 'not_needed')) printProblem(said);
  if (run) {
    const policy = (await readAutoTopUpPolicy(profile.configPath, profile.name)) ?? profile.autoTopUp;
    const records = (await journal.list()).filter((e) => inScope(e, scope));
    const summary = policy ? summarize(records, policy, client.serviceNow()) : undefined;
    const charges = { credited: 0, failed: 0, unknown: 0, not_sent: 0 };
    for (const e of autoCharges(records)) charges[e.state === 'credited' ? 'credited' : e.state === 'refused' ? 'failed' : e.state === 'verifying' ? 'unknown' : 'not_sent']++;
    run.textfile.autoTopUp({
      outcome: outcome.kind,
      decision: 'decision' in outcome ? outcome.decision.kind : undefined,
      paused: summary?.paused ?? false,
      capped: outcome.kind === 'skipped' && outcome.decision.kind === 'capped' ? outcome.decision.cap : undefined,
      dayCapRemaining: summary?.dayCapRemaining ?? 0,
      monthCapRemaining: summary?.monthCapRemaining ?? 0,
      charges,
    });
  }
  return exitCodeOf(outcome);
}
