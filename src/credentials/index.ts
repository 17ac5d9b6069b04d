/**
 * The credential store of keydeck: `KEYDECK_TOKEN` (never stored) → the OS keychain (keytar,
 * service `keydeck`, account = profile) → the consented plaintext file
 * (`<configDir>/credentials.json`, mode 0600, only with `--insecure-storage`).
 *
 * ```ts
 * const store = createCredentialStore();
 * const credential = await store.get('default');      // { token, source: 'env'|'keychain'|'file', path? }
 * await store.set('default', 'mk_…', { insecureStorage: false });
 * ```
 */
import { positiveMsFromEnv } from '../config/timeout.js';
import { credentialsFilePath } from '../config/paths.js';
import { envCredential } from './env.js';
import { CredentialFile } from './file.js';
import { DEFAULT_KEYCHAIN_TIMEOUT_MS, Keychain, type KeytarLike } from './keychain.js';
import {
  CredentialStoreError,
  type CredentialStore,
  type DeleteCredentialResult,
  type GetCredentialOptions,
  type KeychainStatus,
  type KeychainStatusOptions,
  type SetCredentialOptions,
  type StoredCredential,
} from './store.js';
import { checkCredentialToken } from './token.js';

export * from './store.js';
export { TOKEN_ENV_VAR, envCredential } from './env.js';
export { describeCredential, type CredentialOrigin, type CredentialWords } from './describe.js';
export { CredentialFile } from './file.js';
export {
  DEFAULT_KEYCHAIN_TIMEOUT_MS,
  KEYCHAIN_SERVICE,
  Keychain,
  describeKeychainError,
  keychainBackendName,
  keychainPreflight,
  type KeytarLike,
} from './keychain.js';
export { checkCredentialToken, consumptionKeyRefusal, tokenKind, type TokenKind } from './token.js';

/** Options of {@link createCredentialStore}. */
export interface CredentialStoreOptions {
  /** Environment (`KEYDECK_TOKEN`, `KEYDECK_CONFIG_DIR`, D-Bus variables); default `process.env`. */
  readonly env?: NodeJS.ProcessEnv;
  /** Default `process.platform`. */
  readonly platform?: NodeJS.Platform;
  /** The fallback file; default `<configDir>/credentials.json`. */
  readonly filePath?: string;
  /**
   * Time limit of each keychain call in ms; default `KEYDECK_KEYCHAIN_TIMEOUT_MS` from `env`,
   * else 3000.
   */
  readonly keychainTimeoutMs?: number;
  /** Loads keytar (default: the installed keytar in a child process); tests pass a loader that fails. */
  readonly loadKeytar?: () => Promise<KeytarLike>;
}

/**
 * Creates the store for this process. Nothing is loaded or probed until first use.
 * See {@link CredentialStore} for the methods and their errors.
 */
export function createCredentialStore(options: CredentialStoreOptions = {}): CredentialStore {
  const env = options.env ?? process.env;
  const file = new CredentialFile(options.filePath ?? credentialsFilePath(env));
  const keychain = new Keychain({
    env,
    platform: options.platform ?? process.platform,
    timeoutMs: options.keychainTimeoutMs ?? positiveMsFromEnv(env, 'KEYDECK_KEYCHAIN_TIMEOUT_MS') ?? DEFAULT_KEYCHAIN_TIMEOUT_MS,
    ...(options.loadKeytar && { load: options.loadKeytar }),
  });

  return {
    async get(profile: string, getOptions: GetCredentialOptions = {}): Promise<StoredCredential | undefined> {
      if (!getOptions.ignoreEnv) {
        const fromEnv = envCredential(env);
        if (fromEnv) return fromEnv;
      }
      let fromKeychain: string | null = null;
      try {
        fromKeychain = await keychain.get(profile);
      } catch (err) {
        if (!(err instanceof CredentialStoreError)) throw err;
        // Unavailable: fall through to the file; keychainStatus() says why.
      }
      if (fromKeychain) return { token: checkCredentialToken(fromKeychain, `the key stored in the keychain for profile "${profile}"`), source: 'keychain' };
      const fromFile = await file.get(profile);
      if (fromFile) {
        return { token: checkCredentialToken(fromFile, `the key stored in ${file.path} for profile "${profile}"`), source: 'file', path: file.path };
      }
      return undefined;
    },

    async set(profile: string, token: string, setOptions: SetCredentialOptions = {}) {
      const value = checkCredentialToken(token);
      try {
        await keychain.set(profile, value, setOptions.timeoutMs);
      } catch (err) {
        if (!(err instanceof CredentialStoreError)) throw err;
        if (!setOptions.insecureStorage) {
          throw new CredentialStoreError(
            err.code,
            `cannot store the key: ${err.message}. To go on without a keychain, re-run with --insecure-storage ` +
              `(the key is then kept in plaintext in ${file.path}, mode 0600), or set KEYDECK_TOKEN for each run instead of storing it.`,
          );
        }
        await file.set(profile, value);
        return { source: 'file' as const, path: file.path };
      }
      // Stored in the keychain: no stale plaintext copy may remain in the fallback file.
      try {
        await file.delete(profile);
      } catch {
        // A broken fallback file is reported where it is read; the keychain copy is what counts.
      }
      return { source: 'keychain' as const };
    },

    async delete(profile: string): Promise<DeleteCredentialResult> {
      const removedFrom: Array<'keychain' | 'file'> = [];
      let keychainError: string | undefined;
      try {
        if (await keychain.delete(profile)) removedFrom.push('keychain');
      } catch (err) {
        if (!(err instanceof CredentialStoreError)) throw err;
        keychainError = err.message;
      }
      if (await file.delete(profile)) removedFrom.push('file');
      return { removedFrom, ...(keychainError !== undefined && { keychainError }) };
    },

    keychainStatus(statusOptions?: KeychainStatusOptions): Promise<KeychainStatus> {
      return keychain.status(statusOptions);
    },
  };
}

