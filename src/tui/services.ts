/**
 * What the TUI needs from the outside world, injected as one object (`<App services>`): the
 * profile, the credential store, a client factory, the clipboard, and the app's exit site.
 * run.tsx builds the real one; tests build one around an in-process sandbox.
 */
import type { Failpoints } from '../operations/index.js';
import type { ChainSettings } from '../billing/chainSettings.js';
import type { BillingResource, CredentialDescription, KeysResource, ManagementKeysResource, PlansResource, PoolsResource, UsageResource } from '../api/client.js';
import type { CredentialStore } from '../credentials/store.js';
import type { HistorySeries } from '../billing/historyStore.js';
import type { KeyHistory } from '../billing/keyHistory.js';
import type { UsageBudget } from '../billing/usageBudget.js';
import type { NotifyEvent } from '../terminal/notify.js';
import type { AutoTopUpPolicy, SettleBounds } from '../config/autoTopUp.js';

/**
 * The part of `KeydeckClient` (src/api/client.ts) the TUI uses: its resources `keys` (the service's endpoints
 * consumption keys), `managementKeys` and `billing` (credits, status, top-up, verify). Every
 * method rejects with a KeydeckApiError (`code`, `status`, `retryAfterMs`, `outcomeUnknown`). A
 * type only: no run-time import of the client.
 */
export interface AccountClient {
  readonly keys: Surface<KeysResource>;
  readonly managementKeys: Surface<ManagementKeysResource>;
  readonly billing: Surface<BillingResource>;
  /** Usage: `list`, `get`, `keyInfo`; absent in fakes that do not read usage. */
  readonly usage?: Surface<UsageResource>;
  /** Plans: `list` (public); absent in fakes. */
  readonly plans?: Surface<PlansResource>;
  /** Pools: `list`, `get`; absent in fakes. */
  readonly pools?: Surface<PoolsResource>;
  /** The service's clock minus this machine's, ms (from the HTTP Date header; undefined before an answer or in fakes). */
  readonly serviceClockOffsetMs?: number | undefined;
}

import type { KeyRule } from '../config/guardrailRules.js';

/** The public members of a class as a structural type, so a stand-in needs none of its private fields. */
type Surface<T> = Pick<T, keyof T>;

/** The profile the TUI runs with (from src/config, with command-line overrides applied). */
export interface TuiProfile {
  readonly name: string;
  /** The service's base URL; undefined sends setup to its "where is the service" step. */
  readonly baseUrl?: string;
  /**
   * The profile's own saved base URL (without the --base-url override): a key stored before keys
   * were kept per service origin belongs to it (src/credentials/origin.ts).
   */
  readonly savedBaseUrl?: string;
  /** Balance polling interval, seconds (default 15). */
  readonly pollIntervalSeconds: number;
  /** Low-balance threshold, USD (used by the Billing pane). */
  readonly alertBelowUsd?: number;
  /** Top-up ceiling, USD: a larger amount must be typed again to confirm (default 500, config.ts). */
  readonly confirmAboveUsd?: number;
  /** A key at this many times its own 7-day median is a runaway (default 5). */
  readonly runawayFactor?: number;
  /** The least rate that can be a runaway, USD/hour (default 1). */
  readonly runawayFloorUsdPerHour?: number;
  /**
   * Set when the profile is read-only (its `readOnly`, or `--read-only`; src/config/profileMarks.ts):
   * why, as a clause (`the profile "prod" is read-only (readOnly in …)`). Every change is then
   * refused with a status line before any dialog, and the clients refuse every change before sending.
   */
  readonly readOnly?: string;
  /** True when deleting or deactivating a key asks for its name to be typed (the profile's `protected`). */
  readonly protected?: boolean;
  /** The per-key guardrails `keydeck apply` stored (src/config/guardrailRules.ts): shown on the Keys pane. */
  readonly guardrails?: readonly KeyRule[];
}

/** What the usage views need on disk: the shared read budget and this profile's per-key history. */
export interface UsageRig {
  readonly budget: UsageBudget;
  readonly keyHistory: KeyHistory;
}

/** Result of a copy: `clipboard` (system clipboard took it), `osc52` (sent to the terminal only; may or may not have worked). */
export type CopyOutcome = 'clipboard' | 'osc52' | 'failed';

/**
 * Result of clearing a copied key once it is acknowledged (src/tui/clipboard.ts `clearCopied`):
 * `cleared`, `changed` (the clipboard holds something else now: left alone), `osc52` (the
 * terminal was asked to clear: not confirmable), `unknown`.
 */
export type ClearOutcome = 'cleared' | 'changed' | 'osc52' | 'unknown';

/** Everything the app receives from run.tsx (or a test). */
export interface AppServices {
  readonly profile: TuiProfile;
  /** `sandbox` with --sandbox (header says SANDBOX), else `live`. */
  readonly target: 'sandbox' | 'live';
  readonly store: CredentialStore;
  /**
   * Builds a client for `baseUrl` with `token` (a session token or an mk_ key); `credential`
   * names it in the client's 401/403 sentences.
   */
  readonly createClient: (baseUrl: string, token: string, credential?: CredentialDescription) => AccountClient;
  /** Saves the base URL typed in setup to the profile (absent with --sandbox: never saved). */
  readonly saveBaseUrl?: (baseUrl: string) => Promise<void>;
  /** With --sandbox: the demo user's session token, offered in setup with one keystroke. */
  readonly demoToken?: string;
  /** --insecure-storage was given: setup pre-selects the plaintext file when the keychain is unavailable. */
  readonly insecureStorage: boolean;
  /** --allow-insecure-http / KEYDECK_ALLOW_INSECURE_HTTP=1: setup accepts a plain http:// address off loopback. */
  readonly allowInsecureHttp?: boolean;
  /** This machine's name, for the default management key name `keydeck@<hostname>`. */
  readonly hostname: string;
  /** Copies `text` (OSC 52, then the system clipboard). Never throws. */
  readonly copy: (text: string) => Promise<CopyOutcome>;
  /**
   * Clears a copied key from where `copy` put it (`via`), once it is acknowledged.
   * Never throws. Absent: nothing is cleared, and the reveal says the key stays in the clipboard.
   */
  readonly clearCopied?: (secret: string, via: 'clipboard' | 'osc52') => Promise<ClearOutcome>;
  /** Erases the terminal region and redraws the frame (after a one-time reveal). */
  readonly redraw: () => void;
  /**
   * The app's one exit site: unmounts, restores the terminal, closes the sandbox, sets the
   * exit code; `message` is printed after the screen is restored.
   */
  readonly exit: (code: number, message?: string) => void;
  /**
   * Hands over work that must finish even when the app ends first (src/tui/lifecycle.ts
   * `waitUntil`): an action under way, an operation's record written after its dialog closed, the
   * account watcher's stop (its poll abandoned, a run of auto top-up finished). The app's end
   * waits for it to settle before the sandbox, the clients and the history database close.
   * Returns `work` itself.
   */
  readonly waitUntil: <T>(work: Promise<T>) => Promise<T>;
  /** Adds a secret (a pasted session token) to the values redacted from anything printed at exit. */
  readonly registerSecret?: (value: string) => void;
  /**
   * Subscribes to the clients' notices (src/api/client.ts `onNotice`: key values the service
   * sent in a list, hidden); the shell shows each once on the status line. Returns the unsubscribe.
   */
  readonly onClientNotice?: (listener: (message: string) => void) => () => void;
  /**
   * The balance history of this profile at `baseUrl`'s origin in the history database
   * (src/billing/historyStore.ts); absent: the history is kept in memory only.
   * @throws HistoryStoreError when the database cannot be used (the pane says so, once).
   */
  readonly openHistory?: (baseUrl: string) => HistorySeries;
  /**
   * The usage read budget and the per-key history of this profile at `baseUrl`'s origin, in the
   * history database; absent: no usage is read (tests without a database).
   * @throws HistoryStoreError when the database cannot be used (usage is then not read: the
   *   budget of 12 reads per 12 hours could not be kept across processes)
   */
  readonly openUsage?: (baseUrl: string) => UsageRig;
  /**
   * Sends a notification (src/terminal/notify.ts: terminal OSC, opt-in desktop, `--on-low`):
   * the low-balance crossing, a top-up credited, the key rejected, a subscription expiring.
   * Absent: none (tests).
   */
  readonly notify?: (event: NotifyEvent) => void;
  /**
   * keydeck's data dir (src/config/paths.ts: there is always one): the records of unfinished key
   * creations and rotations, the delivery record, and the lock of the dotenv files a new key is
   * written into (src/operations/, src/delivery/).
   */
  readonly dataDir: string;
  /** The failpoints of the operations' steps (src/failpoints `failpointsFrom`): keydeck's own crash walks only; absent in every real session. */
  readonly failpoints?: Failpoints;
  /**
   * Where the chain is read for the service at `baseUrl` (src/billing/chainSettings.ts):
   * the USDC step's checks before verify and its watch of the deposit address. Absent: the chain
   * is never read (tests without one).
   */
  readonly chainSettings?: (baseUrl: string) => Promise<ChainSettings>;
  /** Clock (epoch ms); tests may pin it. Default Date.now. */
  readonly now?: () => number;
  /**
   * `--auto-topup`: the profile's auto top-up policy, read afresh from the config file,
   * and the card-on-file method names at its service. Absent: the TUI never charges by itself.
   */
  readonly autoTopUp?: {
    readonly readPolicy: () => Promise<AutoTopUpPolicy | undefined>;
    /** Pauses the policy on this machine (another machine charged for the same fall first). */
    readonly pausePolicy: (pause: NonNullable<AutoTopUpPolicy['paused']>) => Promise<void>;
    readonly cardMethodNames: readonly string[];
    /** The settle wait's bounds (`KEYDECK_AUTOTOPUP_SETTLE_SECONDS`; a refused value fails each run). */
    readonly settle: SettleBounds | { readonly problem: string };
  };
}
