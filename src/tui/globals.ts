/**
 * The global options the TUI reads, shared by its start path (./run.tsx) and the app's services
 * (./session.tsx) without either importing the other.
 */
import type { Dialect } from '../sandbox/dialect.js';

/** The global options the TUI reads (commander's `program.opts()`). */
export interface TuiGlobals {
  /** --sandbox: start the embedded sandbox and use it. */
  readonly sandbox?: boolean;
  /** --base-url / KEYDECK_BASE_URL. */
  readonly baseUrl?: string;
  /** --profile / KEYDECK_PROFILE. */
  readonly profile?: string;
  /** `env` when commander took `profile` from KEYDECK_PROFILE (auth status and the header say which rule chose it). */
  readonly profileSource?: 'env';
  /** --read-only: change nothing on the account in this run (src/config/profileMarks.ts). */
  readonly readOnly?: boolean;
  /** --insecure-storage: setup pre-selects the plaintext file when the keychain is unavailable. */
  readonly insecureStorage?: boolean;
  /** --allow-insecure-http (or KEYDECK_ALLOW_INSECURE_HTTP=1): a key may go over plain http off loopback. */
  readonly allowInsecureHttp?: boolean;
  /** --interval: seconds between balance reads (≥ 2, already validated); overrides the profile's. */
  readonly intervalSeconds?: number;
  /** --alert-below: the low-balance threshold in USD (already validated); overrides the profile's. */
  readonly alertBelowUsd?: number;
  /** --dialect with --sandbox: the shape of the embedded sandbox's answers (default `seed`). */
  readonly sandboxDialect?: Dialect;
  /** --chain anvil with --sandbox: its USDC transfers run on a real local chain (`rpcUrl`: --chain-rpc, another node). */
  readonly sandboxChain?: { readonly rpcUrl?: string };
  /** --on-low CMD: run once per crossing below the threshold, figures in the environment (src/terminal/notify.ts). */
  readonly onLow?: string;
  /** --desktop-notifications: also notify on the desktop (notify-send, osascript). */
  readonly desktopNotifications?: boolean;
  /** --on-anomaly CMD: run once per runaway key or fast-falling balance, figures in the environment. */
  readonly onAnomaly?: string;
  /** --auto-topup: act on the profile's auto top-up policy after each balance read. */
  readonly autoTopup?: boolean;
  /** --on-auto-topup CMD: run after each charge auto top-up makes, figures in the environment. */
  readonly onAutoTopup?: string;
  /** --no-chain: never read the chain. */
  readonly noChain?: boolean;
  /** --chain-rpc URL: the chain's JSON-RPC endpoint (checked when the USDC step first reads it). */
  readonly chainRpc?: string;
}
