/**
 * The credential store contract: where keydeck's token (a management key `mk_…`, or for one
 * call a session token) comes from and goes to. Implementations live beside this file
 * (keychain.ts through keytar, file.ts the consented fallback); `KEYDECK_TOKEN` in the
 * environment overrides both and is never stored.
 *
 * Nothing here knows HTTP. Nothing secret is written to disk unless the caller passes
 * `insecureStorage: true`.
 */

/** Where a credential came from: exactly these words in `keydeck auth status --json` (`store`). */
export type CredentialSource = 'env' | 'keychain' | 'file';

/** A credential found for a profile. `token` is secret: never log or print it. */
export interface StoredCredential {
  readonly token: string;
  readonly source: CredentialSource;
  /** For `file`: the path of the fallback file (shown with the insecure-storage warning). */
  readonly path?: string;
}

/** Options of {@link CredentialStore.set}. */
export interface SetCredentialOptions {
  /** The user consented to a plaintext file (mode 0600) when the keychain is unavailable. */
  readonly insecureStorage?: boolean;
}

/** Why the OS keychain cannot be used, in one sentence a user can act on. */
export interface KeychainStatus {
  readonly available: boolean;
  /** e.g. "no D-Bus session (DBUS_SESSION_BUS_ADDRESS is not set), so no Secret Service can be reached". */
  readonly reason?: string;
}

/** Stable codes of {@link CredentialStoreError}. */
export type CredentialStoreErrorCode = 'keychain_unavailable' | 'keychain_timeout' | 'file_error' | 'env_is_read_only';

/**
 * A failure of the store. `message` is one sentence a user can act on; when storing failed
 * for lack of a keychain it names the two ways on: `--insecure-storage` or `KEYDECK_TOKEN`.
 */
export class CredentialStoreError extends Error {
  override readonly name = 'CredentialStoreError';
  constructor(
    readonly code: CredentialStoreErrorCode,
    message: string,
  ) {
    super(message);
  }
}

/** The store of one machine: get, set, delete and describe where, per profile name. */
export interface CredentialStore {
  /** The credential for `profile`, by precedence env → keychain → file; undefined when none. */
  get(profile: string): Promise<StoredCredential | undefined>;
  /**
   * Stores `token` for `profile` in the keychain, or in the fallback file when the keychain is
   * unavailable and `insecureStorage` is set. Returns where it went.
   * @throws CredentialStoreError `keychain_unavailable` (naming `--insecure-storage` and
   *   `KEYDECK_TOKEN`), `keychain_timeout`, `file_error`.
   */
  set(profile: string, token: string, options?: SetCredentialOptions): Promise<{ source: Exclude<CredentialSource, 'env'>; path?: string }>;
  /** Removes the stored credential of `profile` from the keychain and the file (env is untouched). */
  delete(profile: string): Promise<void>;
  /** Whether the OS keychain answers, and if not exactly why. */
  keychainStatus(): Promise<KeychainStatus>;
}
