/**
 * The credential store contract: where keydeck's token (a management key `mk_…`, or for one
 * call a session token) comes from and goes to. Implementations live beside this file
 * (keychain.ts through keytar, file.ts the consented fallback); `KEYDECK_TOKEN` in the
 * environment overrides both and is never stored.
 *
 * Nothing here knows HTTP. Nothing secret is written to disk unless the caller passes
 * `insecureStorage: true`.
 */
import { KeydeckError } from '../errors/index.js';

/** Where a credential came from: exactly these words in `keydeck auth status --json` (`store`). */
export type CredentialSource = 'env' | 'keychain' | 'file';

/** A credential found for a profile. `token` is secret: never log or print it. */
export interface StoredCredential {
  readonly token: string;
  readonly source: CredentialSource;
  /** For `file`: the path of the fallback file (shown with the insecure-storage warning). */
  readonly path?: string;
}

/**
 * The service a key belongs to (see ./origin.ts). Every caller that talks to a service passes
 * it; without `origin` the bare profile name is used (keys stored before keys were kept per origin).
 */
export interface OriginOptions {
  /** The service origin, `https://api.example.com` (./origin.ts `originOf`). */
  readonly origin?: string;
  /** A key stored under the bare profile name belongs to `origin` too (read, replaced, deleted with it). */
  readonly legacy?: boolean;
}

/** Options of {@link CredentialStore.get}. */
export interface GetCredentialOptions extends OriginOptions {
  /** Skip `KEYDECK_TOKEN`: only what is stored (keychain, then file). `auth logout --revoke` uses it. */
  readonly ignoreEnv?: boolean;
}

/** Options of {@link CredentialStore.set}. */
export interface SetCredentialOptions extends OriginOptions {
  /** The user consented to a plaintext file (mode 0600) when the keychain is unavailable. */
  readonly insecureStorage?: boolean;
  /**
   * Time limit of the keychain write in ms (default: the store's `keychainTimeoutMs`). An
   * interactive login passes a longer one, since the keyring may prompt to be unlocked.
   */
  readonly timeoutMs?: number;
}

/** What {@link CredentialStore.delete} removed. */
export interface DeleteCredentialResult {
  /** The places the profile's key was removed from (empty when none held it). */
  readonly removedFrom: ReadonlyArray<Exclude<CredentialSource, 'env'>>;
  /** When the keychain could not be asked: why (one sentence); a key may remain there. */
  readonly keychainError?: string;
  /** True when the keychain exists but did not answer in time (hung): a key stored there may well remain. */
  readonly keychainHung?: boolean;
}

/** Options of {@link CredentialStore.keychainStatus}. */
export interface KeychainStatusOptions {
  /**
   * Also write and delete a probe item (service `keydeck`, account `.keydeck-probe`, a
   * non-secret value): catches a locked keyring, which answers reads with "nothing stored".
   */
  readonly write?: boolean;
  /** Time limit of each probe call in ms (default the store's `keychainTimeoutMs`). */
  readonly timeoutMs?: number;
}

/** Whether the OS keychain answers, and if not why, in one sentence a user can act on. */
export interface KeychainStatus {
  readonly available: boolean;
  /** The backend: `Secret Service (libsecret)`, `macOS Keychain` or `Windows Credential Manager`. */
  readonly backend: string;
  /** e.g. "no D-Bus session (DBUS_SESSION_BUS_ADDRESS is not set), so no Secret Service can be reached: …". */
  readonly reason?: string;
  /** How long the probe took, in ms (0 when it was decided without asking, e.g. no D-Bus). */
  readonly probeMs: number;
  /** When unavailable: `keychain_timeout` (it exists but did not answer: hung) or `keychain_unavailable`. */
  readonly code?: 'keychain_unavailable' | 'keychain_timeout';
}

/** Stable codes of {@link CredentialStoreError}. */
export type CredentialStoreErrorCode =
  | 'keychain_unavailable'
  | 'keychain_timeout'
  | 'file_error'
  /** The plaintext key file is not a regular file of this user, or others may read it (src/config/trust.ts). */
  | 'file_untrusted'
  | 'env_is_read_only'
  /** A consumption key (`sk_…`) was offered as keydeck's credential. */
  | 'consumption_key'
  /** An empty token, or one with spaces or line breaks in it. */
  | 'invalid_token';

/**
 * A failure of the store. `message` is one sentence a user can act on; when storing failed
 * for lack of a keychain it names the two ways on: `--insecure-storage` or `KEYDECK_TOKEN`.
 */
export class CredentialStoreError extends KeydeckError {
  override readonly name = 'CredentialStoreError';
  override readonly code: CredentialStoreErrorCode;
  constructor(code: CredentialStoreErrorCode, message: string) {
    super(code, message, { exitClass: code === 'consumption_key' || code === 'invalid_token' ? 'usage' : 'refused' });
    this.code = code;
  }
}

/** The store of one machine: get, set, delete and describe where, per profile name. */
export interface CredentialStore {
  /**
   * The credential for `profile` at `options.origin`, by precedence env → keychain → file;
   * undefined when none (an unavailable keychain counts as none: {@link keychainStatus} then
   * says why, and whether it hung). A key stored for another origin is never returned.
   * @throws CredentialStoreError `consumption_key` / `invalid_token` (a bad `KEYDECK_TOKEN`),
   *   `file_error` (the fallback file is unreadable or broken).
   */
  get(profile: string, options?: GetCredentialOptions): Promise<StoredCredential | undefined>;
  /**
   * Stores `token` for `profile` at `options.origin` in the keychain, or in the fallback file when the keychain is
   * unavailable and `insecureStorage` is set. Returns where it went.
   * A key stored in the keychain is removed from the fallback file (no stale plaintext copy).
   * @throws CredentialStoreError `keychain_unavailable` / `keychain_timeout` (naming
   *   `--insecure-storage` and `KEYDECK_TOKEN`), `file_error`, `consumption_key`, `invalid_token`.
   */
  set(profile: string, token: string, options?: SetCredentialOptions): Promise<{ source: Exclude<CredentialSource, 'env'>; path?: string }>;
  /**
   * Removes the stored credential of `profile` at `options.origin` from the keychain and the
   * file (env is untouched).
   * @throws CredentialStoreError `file_error`.
   */
  delete(profile: string, options?: OriginOptions): Promise<DeleteCredentialResult>;
  /** Whether the OS keychain answers, and if not exactly why. Never throws; never takes longer than the timeout. */
  keychainStatus(options?: KeychainStatusOptions): Promise<KeychainStatus>;
  /** Forgets that the keychain did not answer (after a hang), so the next call asks it again. */
  resetKeychain?(): void;
}
