/**
 * Notifications that reach the operator: `notify(event)` for the low-balance
 * crossing, a top-up credited (`top_up_credited`: a rise of the account's `totalTopUp`, worded
 * as that rise, since it names no particular top-up), the key rejected, a
 * subscription within 3 days of its end, once per key, and a runaway key
 * (`key_runaway`) or the balance falling at N× its baseline (`account_burn`, the likely key named as such). Amounts are said to the cent, cut, never
 * rounded up. Each event goes to:
 * - the terminal: OSC 9, OSC 777 or OSC 99, whichever the terminal speaks, wrapped in the
 *   tmux/screen passthrough (./osc.ts); texts are sanitised there;
 * - the desktop, when asked (`--desktop-notifications`): `notify-send` on Linux, `osascript` on
 *   macOS, spawned without a shell, the texts as plain arguments; where neither exists, it says
 *   so once;
 * - for the low-balance crossing only, `--on-low CMD`: the user's own command line, run once
 *   per crossing by the user's shell (`$SHELL -c CMD`, `cmd /d /s /c` on Windows), with the
 *   figures in environment variables only (`KEYDECK_EVENT`, `KEYDECK_PROFILE`,
 *   `KEYDECK_ORIGIN`, `KEYDECK_REMAINING_USD`, `KEYDECK_THRESHOLD_USD`,
 *   `KEYDECK_TOTAL_TOP_UP_USD`): no service data is ever put into the command line. Its output
 *   is discarded (a full-screen app owns the terminal), it is killed after 30 s, and a failure is
 *   reported through `onProblem`; its environment never holds keydeck's credentials (./secretEnv.ts, the filter of the destination commands too);
 *   how such a command runs is ./userHook.ts;
 * - for a runaway key or the balance burning, `--on-anomaly CMD`: the same way, with its figures
 *   in the environment ({@link onAnomalyEnvironment});
 * - for each charge auto top-up makes (credited, failed, outcome unknown, not sent),
 *   `--on-auto-topup CMD`: the same way ({@link onAutoTopUpEnvironment});
 * - for what a guardrail says or does (`apply`, `exporter --enforce`), `--on-guardrail CMD`: the
 *   same way, awaited ({@link runUserHook}, {@link onGuardrailEnvironment}).
 * Never throws.
 */
import { spawn } from 'node:child_process';
import { centsText, formatUsd } from '../api/money.js';
import { notificationProtocolOf, notificationSequence } from './osc.js';
import { escapeMarkup, flatText, plainId, visible } from './sanitize.js';
import { runUserHook } from './userHook.js';

export { runUserHook } from './userHook.js';

/** What can be notified. Amounts USD. */
export type NotifyEvent =
  | { readonly kind: 'low_balance'; readonly remaining: number; readonly threshold: number; readonly totalTopUp?: number }
  | { readonly kind: 'top_up_credited'; readonly amount: number; readonly remaining: number; readonly totalTopUp: number }
  | { readonly kind: 'key_rejected'; readonly detail?: string }
  /**
   * A subscription key within 3 days of its end; `pool` for a key minted from a pool
   * pledge (its time is the pledge's, which renews unless cancelled).
   */
  | { readonly kind: 'subscription_expiring'; readonly keyName: string; readonly expiresAt: string; readonly daysLeft: number; readonly pool?: boolean }
  /**
   * A pool key's reserved block ends soon (`minutesLeft`); its requests get 429 until
   * `nextBlock` starts (absent: none known). Told once per key and block end.
   */
  | { readonly kind: 'block_ending'; readonly keyName: string; readonly block: string; readonly minutesLeft: number; readonly nextBlock?: string }
  /**
   * A key spending at N× its own baseline (`runaway`), or spending again after 7 days
   * without (`dormant`); USD/hour. Told once per key per episode.
   */
  | {
      readonly kind: 'key_runaway';
      readonly anomaly: 'runaway' | 'dormant';
      readonly keyId: string;
      readonly keyName: string;
      readonly usdPerHour: number;
      readonly baselineUsdPerHour?: number;
    }
  /**
   * Between usage reads: the balance falling at N× its own baseline (USD/hour); the key
   * that spent most at the last usage read is named as the likely cause, not as a fact.
   */
  | {
      readonly kind: 'account_burn';
      readonly usdPerHour: number;
      readonly baselineUsdPerHour: number;
      readonly likelyKeyId?: string;
      readonly likelyKeyName?: string;
    }
  /**
   * A charge auto top-up made to the card on file, by outcome (`unknown`: sent, its
   * answer lost or unclear; `not_sent`: it never reached the service); `paused` when this failure
   * paused the policy, or this charge found another machine's for the same fall (paused here).
   * `reason`: the refusal in words (failed, not sent).
   */
  | {
      readonly kind: 'auto_top_up';
      readonly outcome: 'credited' | 'failed' | 'unknown' | 'not_sent';
      readonly amount: number;
      readonly remaining?: number;
      readonly paused?: boolean;
      readonly reason?: string;
    };

/** Options of {@link createNotifier}. */
export interface NotifierOptions {
  /** The face's words for the next steps a notification names; absent: none is named. */
  readonly steps?: NotifySteps;
  /** Writes to the terminal (the TUI's or the monitor's stdout); absent: no terminal notification. */
  readonly write?: (sequence: string) => void;
  /** Also a desktop notification (notify-send / osascript). Default false. */
  readonly desktop?: boolean;
  /** The user's command for the low-balance crossing. */
  readonly onLow?: string;
  /** The user's command for a runaway key or the balance burning at N× its baseline. */
  readonly onAnomaly?: string;
  /** The user's command for each charge auto top-up makes. */
  readonly onAutoTopUp?: string;
  /** Named in the texts and the command's environment. */
  readonly profile: string;
  readonly origin: string;
  /** Hears one sentence per problem (a desktop notifier missing, the command failing). */
  readonly onProblem?: (sentence: string) => void;
  /** Default process.env (terminal detection, the command's environment, SHELL). */
  readonly env?: NodeJS.ProcessEnv;
  /** Default process.platform. */
  readonly platform?: NodeJS.Platform;
  /** Default node:child_process spawn (tests). */
  readonly spawn?: typeof spawn;
}

/**
 * The next steps a notification names, in the words of the face that sends it (a command on the
 * command line, a key or a pane in the TUI): this module knows no face.
 */
export interface NotifySteps {
  /** Sign in again (a key was rejected): `keydeck auth login`. */
  readonly signIn: string;
  /** See auto top-up's state: `keydeck autotopup status`. */
  readonly autoTopUpStatus: string;
  /** Resume auto top-up after failures: `keydeck autotopup resume`. */
  readonly autoTopUpResume: string;
  /** See the billing status (a pledge's renewal): `keydeck billing status`. */
  readonly billingStatus: string;
}

/** Sends events; see the module comment. */
export interface Notifier {
  notify(event: NotifyEvent): void;
}

/** USD to the cent, cut (a balance is never said higher than it is). */
const usd = (n: number): string => formatUsd(n);

/** Title and body of an event, in words; `steps` names the next steps in the face's words (absent: none named). */
export function notificationText(event: NotifyEvent, profile: string, steps?: NotifySteps): { title: string; body: string } {
  const step = (words: string | undefined, around: (w: string) => string) => (words === undefined ? '' : around(words));
  switch (event.kind) {
    case 'low_balance':
      return { title: `keydeck: balance low (${profile})`, body: `${usd(event.remaining)} left, below ${usd(event.threshold)}` };
    case 'top_up_credited':
      // A rise of totalTopUp names no top-up: it is said as what it is, never as a
      // particular top-up of keydeck's credited.
      return { title: `keydeck: the total of top-ups rose (${profile})`, body: `+${usd(event.amount)}; ${usd(event.remaining)} left` };
    case 'key_rejected':
      return { title: `keydeck: key rejected (${profile})`, body: event.detail ?? `the service refused keydeck’s key: sign in again${step(steps?.signIn, (w) => ` (${w})`)}` };
    case 'key_runaway': {
      const x =
        event.baselineUsdPerHour !== undefined && event.baselineUsdPerHour > 0
          ? `, ${Math.round((event.usdPerHour / event.baselineUsdPerHour) * 10) / 10}× its usual ${usd(event.baselineUsdPerHour)}/h`
          : '';
      return event.anomaly === 'dormant'
        ? { title: `keydeck: a dormant key is spending (${profile})`, body: `"${event.keyName}" spends ${usd(event.usdPerHour)}/h after 7 days without` }
        : { title: `keydeck: runaway key (${profile})`, body: `"${event.keyName}" spends ${usd(event.usdPerHour)}/h${x}` };
    }
    case 'account_burn':
      return {
        title: `keydeck: the balance is falling fast (${profile})`,
        body: `${usd(event.usdPerHour)}/h, ${Math.round((event.usdPerHour / Math.max(event.baselineUsdPerHour, 1e-9)) * 10) / 10}× its usual ${usd(event.baselineUsdPerHour)}/h${event.likelyKeyName !== undefined ? `; likely "${event.likelyKeyName}" (the top spender at the last usage read)` : ''}`,
      };
    case 'block_ending':
      return {
        title: `keydeck: reserved hours ending (${profile})`,
        body: `"${event.keyName}": block ${event.block} ends in ${Math.max(1, Math.round(event.minutesLeft))} min; its requests get 429 until ${event.nextBlock !== undefined ? `${event.nextBlock} starts` : 'its next block'}`,
      };
    case 'auto_top_up': {
      const title =
        event.outcome === 'credited'
          ? `keydeck: auto top-up charged ${usd(event.amount)} (${profile})`
          : event.outcome === 'failed'
            ? `keydeck: auto top-up failed (${profile})`
            : `keydeck: auto top-up not confirmed (${profile})`;
      const body =
        event.outcome === 'credited'
          ? `credited${event.remaining !== undefined ? `; ${usd(event.remaining)} left` : ''}${event.paused ? `; another machine charged for the same fall first: paused here${step(steps?.autoTopUpStatus, (w) => ` (${w})`)}` : ''}`
          : event.outcome === 'failed'
            ? `${usd(event.amount)} not charged${event.reason ? `: ${event.reason}` : ''}${event.paused ? `; paused after 3 failures${step(steps?.autoTopUpResume, (w) => `: ${w}`)}` : ''}`
            : event.outcome === 'not_sent'
              ? `${usd(event.amount)} not sent${event.reason ? `: ${event.reason}` : ''}`
              : `the charge of ${usd(event.amount)} was sent, its outcome is unknown: check the card statement${step(steps?.autoTopUpStatus, (w) => ` (${w})`)}`;
      return { title, body };
    }
    case 'subscription_expiring': {
      const left = event.daysLeft >= 1 ? `${Math.floor(event.daysLeft)} d` : `${Math.max(1, Math.floor(event.daysLeft * 24))} h`;
      return event.pool
        ? {
            title: `keydeck: pledge period ending (${profile})`,
            body: `"${event.keyName}": its pledge's period ends in ${left} (${event.expiresAt}); it renews unless cancelled${step(steps?.billingStatus, (w) => ` (${w})`)}`,
          }
        : { title: `keydeck: subscription expiring (${profile})`, body: `"${event.keyName}" expires in ${left} (${event.expiresAt}): a new payment creates a new key` };
    }
  }
}

/** The environment of the `--on-low` command: the caller's, plus the figures. */
export function onLowEnvironment(event: Extract<NotifyEvent, { kind: 'low_balance' }>, profile: string, origin: string, env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return {
    ...env,
    KEYDECK_EVENT: 'low_balance',
    KEYDECK_PROFILE: profile,
    KEYDECK_ORIGIN: origin,
    KEYDECK_REMAINING_USD: centsText(event.remaining),
    KEYDECK_THRESHOLD_USD: centsText(event.threshold),
    ...(event.totalTopUp !== undefined && { KEYDECK_TOTAL_TOP_UP_USD: centsText(event.totalTopUp) }),
  };
}

/**
 * The environment of the `--on-anomaly` command: the caller's, plus the figures (never in the
 * command line): `KEYDECK_EVENT` (`key_runaway` or `account_burn`), `KEYDECK_ANOMALY` (`runaway`,
 * `dormant`, `account`), `KEYDECK_PROFILE`, `KEYDECK_ORIGIN`, `KEYDECK_KEY_ID`, `KEYDECK_KEY_NAME`
 * (the likely key's, for `account_burn`), `KEYDECK_RATE_USD_PER_HOUR`, `KEYDECK_BASELINE_USD_PER_HOUR`.
 * The service's id is set only when it is plain (`[A-Za-z0-9_-]`, not starting with `-`: safe as
 * `keydeck keys disable "$KEYDECK_KEY_ID"`); any other is left unset and given for logs only as
 * `KEYDECK_KEY_ID_VISIBLE` (the sanitiser's visible form). The name is the visible form, cut.
 */
export function onAnomalyEnvironment(event: Extract<NotifyEvent, { kind: 'key_runaway' | 'account_burn' }>, profile: string, origin: string, env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const keyId = event.kind === 'key_runaway' ? event.keyId : event.likelyKeyId;
  const keyName = event.kind === 'key_runaway' ? event.keyName : event.likelyKeyName;
  return {
    ...env,
    KEYDECK_EVENT: event.kind,
    KEYDECK_ANOMALY: event.kind === 'key_runaway' ? event.anomaly : 'account',
    KEYDECK_PROFILE: profile,
    KEYDECK_ORIGIN: origin,
    ...(keyId !== undefined && plainId(keyId) !== undefined && { KEYDECK_KEY_ID: keyId }),
    ...(keyId !== undefined && plainId(keyId) === undefined && { KEYDECK_KEY_ID_VISIBLE: visible(keyId, { maxLength: 200 }) }),
    // Service text, made visible (no control character reaches the command's environment).
    ...(keyName !== undefined && { KEYDECK_KEY_NAME: visible(keyName, { maxLength: 256 }) }),
    KEYDECK_RATE_USD_PER_HOUR: centsText(event.usdPerHour),
    ...(event.baselineUsdPerHour !== undefined && { KEYDECK_BASELINE_USD_PER_HOUR: centsText(event.baselineUsdPerHour) }),
  };
}

/**
 * The environment of the `--on-auto-topup` command: the caller's, plus `KEYDECK_EVENT`
 * (`auto_top_up`), `KEYDECK_PROFILE`, `KEYDECK_ORIGIN`, `KEYDECK_AUTOTOPUP_OUTCOME` (`credited`,
 * `failed`, `unknown`, `not_sent`), `KEYDECK_AUTOTOPUP_AMOUNT_USD`, `KEYDECK_AUTOTOPUP_PAUSED`
 * (`1` when this failure paused the policy, or this charge found another machine's for the same
 * fall and paused it here, else `0`) and, when known, `KEYDECK_REMAINING_USD`.
 * The refusal's words are never put there (they are the service's text).
 */
export function onAutoTopUpEnvironment(event: Extract<NotifyEvent, { kind: 'auto_top_up' }>, profile: string, origin: string, env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return {
    ...env,
    KEYDECK_EVENT: 'auto_top_up',
    KEYDECK_PROFILE: profile,
    KEYDECK_ORIGIN: origin,
    KEYDECK_AUTOTOPUP_OUTCOME: event.outcome,
    KEYDECK_AUTOTOPUP_AMOUNT_USD: centsText(event.amount),
    KEYDECK_AUTOTOPUP_PAUSED: event.paused ? '1' : '0',
    ...(event.remaining !== undefined && { KEYDECK_REMAINING_USD: centsText(event.remaining) }),
  };
}

/**
 * A guardrail's notice as the `--on-guardrail` command hears it (src/operations/events.ts
 * GuardrailNotice has these fields). Figures USD, times ISO 8601.
 */
export interface GuardrailHookNotice {
  readonly what: string;
  readonly rule: string;
  readonly action: string;
  readonly key: { readonly id: string; readonly name: string };
  readonly threshold?: number | undefined;
  readonly period?: string | undefined;
  readonly limitUsd?: number | undefined;
  readonly spentUsd?: number | undefined;
  readonly overshootUsd?: number | undefined;
  readonly until?: string | undefined;
  readonly successor?: string | undefined;
}

/**
 * The environment of the `--on-guardrail` command (docs/guardrails.md): the caller's, plus
 * `KEYDECK_EVENT` (`guardrail`), `KEYDECK_GUARDRAIL` (what happened: `threshold`, `limit`,
 * `disabled`, `enabled`, `overridden`, `rotated`, `rotate_failed`, `no_destination`, `warning`,
 * `flagged`), `KEYDECK_GUARDRAIL_RULE` (`budget`, `expiry`, `age`), `KEYDECK_GUARDRAIL_ACTION`
 * (`warn`, `disable`, `rotate`, `flag`), `KEYDECK_PROFILE`, `KEYDECK_ORIGIN`, `KEYDECK_KEY_ID` (a
 * plain id only, else `KEYDECK_KEY_ID_VISIBLE`), `KEYDECK_KEY_NAME`, and when known
 * `KEYDECK_THRESHOLD` (a fraction: `0.8`), `KEYDECK_PERIOD`, `KEYDECK_LIMIT_USD`,
 * `KEYDECK_SPENT_USD`, `KEYDECK_OVERSHOOT_USD`, `KEYDECK_UNTIL`, `KEYDECK_SUCCESSOR_NAME`.
 * Never a key value.
 */
export function onGuardrailEnvironment(notice: GuardrailHookNotice, profile: string, origin: string, env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const id = notice.key.id;
  return {
    ...env,
    KEYDECK_EVENT: 'guardrail',
    KEYDECK_GUARDRAIL: notice.what,
    KEYDECK_GUARDRAIL_RULE: notice.rule,
    KEYDECK_GUARDRAIL_ACTION: notice.action,
    KEYDECK_PROFILE: profile,
    KEYDECK_ORIGIN: origin,
    ...(plainId(id) !== undefined ? { KEYDECK_KEY_ID: id } : { KEYDECK_KEY_ID_VISIBLE: visible(id, { maxLength: 200 }) }),
    KEYDECK_KEY_NAME: visible(notice.key.name, { maxLength: 256 }),
    ...(notice.threshold !== undefined && { KEYDECK_THRESHOLD: String(notice.threshold) }),
    ...(notice.period !== undefined && { KEYDECK_PERIOD: notice.period }),
    ...(notice.limitUsd !== undefined && { KEYDECK_LIMIT_USD: centsText(notice.limitUsd) }),
    ...(notice.spentUsd !== undefined && { KEYDECK_SPENT_USD: centsText(notice.spentUsd) }),
    ...(notice.overshootUsd !== undefined && { KEYDECK_OVERSHOOT_USD: centsText(notice.overshootUsd) }),
    ...(notice.until !== undefined && { KEYDECK_UNTIL: notice.until }),
    ...(notice.successor !== undefined && { KEYDECK_SUCCESSOR_NAME: visible(notice.successor, { maxLength: 256 }) }),
  };
}

/** The notification flags as both faces take them: `--desktop-notifications`, `--on-low CMD`, `--on-anomaly CMD`, `--on-auto-topup CMD`. */
export interface NotifyFlags {
  readonly desktopNotifications?: boolean;
  readonly onLow?: string;
  readonly onAnomaly?: string;
  readonly onAutoTopup?: string;
}

/**
 * The notifier of a face that draws on this process's stdout (the TUI, `keydeck monitor`): its
 * terminal notifications go to `process.stdout` itself, and `flags` are the command line's.
 */
export function createTerminalNotifier(flags: NotifyFlags, options: Pick<NotifierOptions, 'profile' | 'origin' | 'onProblem' | 'steps'>): Notifier {
  return createNotifier({
    ...options,
    write: (sequence) => process.stdout.write(sequence),
    desktop: flags.desktopNotifications === true,
    ...(flags.onLow !== undefined && { onLow: flags.onLow }),
    ...(flags.onAnomaly !== undefined && { onAnomaly: flags.onAnomaly }),
    ...(flags.onAutoTopup !== undefined && { onAutoTopUp: flags.onAutoTopup }),
  });
}

/** See the module comment. */
export function createNotifier(options: NotifierOptions): Notifier {
  const env = options.env ?? process.env;
  const platform = options.platform ?? process.platform;
  const run = options.spawn ?? spawn;
  const problems = new Set<string>();
  const problem = (sentence: string) => {
    if (problems.has(sentence)) return;
    problems.add(sentence);
    options.onProblem?.(sentence);
  };
  const protocol = notificationProtocolOf(env);

  const desktop = (rawTitle: string, rawBody: string) => {
    // Service text (a key's name) through the one sanitiser: flat, no bidi or zero-width
    // character, cut; notify-send's body is markup, so its markup characters become entities.
    const title = flatText(rawTitle, 80);
    const body = flatText(rawBody, 240);
    const [cmd, args] =
      platform === 'darwin'
        ? ['osascript', ['-e', 'on run argv', '-e', 'display notification (item 2 of argv) with title (item 1 of argv)', '-e', 'end run', title, body]]
        : ['notify-send', ['--app-name=keydeck', '--', title, escapeMarkup(body)]];
    try {
      const child = run(cmd, args as string[], { stdio: 'ignore', shell: false });
      child.on('error', () => problem(`no desktop notification: ${cmd} is not available`));
      child.unref();
    } catch {
      // said by problem(): no notifier on this machine
      problem(`no desktop notification: ${cmd} is not available`);
    }
  };

  /** Runs the user's command line `line` (flag `flag`) through their shell, the figures in `childEnv` (without keydeck's secrets). */
  const runUserCommand = (flag: string, line: string, figures: NodeJS.ProcessEnv) => {
    void runUserHook(flag, line, figures, { env, platform, spawn: run }).then((sentence) => {
      if (sentence !== undefined) problem(sentence);
    });
  };

  return {
    notify(event) {
      const { title, body } = notificationText(event, options.profile, options.steps);
      try {
        options.write?.(notificationSequence(title, body, protocol, env));
      } catch {
        // The terminal went away.
      }
      if (options.desktop) desktop(title, body);
      if (event.kind === 'low_balance' && options.onLow) runUserCommand('--on-low', options.onLow, onLowEnvironment(event, options.profile, options.origin, env));
      if ((event.kind === 'key_runaway' || event.kind === 'account_burn') && options.onAnomaly) {
        runUserCommand('--on-anomaly', options.onAnomaly, onAnomalyEnvironment(event, options.profile, options.origin, env));
      }
      if (event.kind === 'auto_top_up' && options.onAutoTopUp) runUserCommand('--on-auto-topup', options.onAutoTopUp, onAutoTopUpEnvironment(event, options.profile, options.origin, env));
    },
  };
}
