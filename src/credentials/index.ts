/**
 * The credential store of keydeck: `KEYDECK_TOKEN` (never stored) → the OS keychain (keytar,
 * service `keydeck`, account `<profile>@<origin>`, see ./origin.ts) → the consented plaintext file
 * (`<configDir>/credentials.json`, mode 0600, only with `--insecure-storage`).
 *
 * ```ts
 * const store = createCredentialStore();
 * const credential = await store.get('default');      // { token, source: 'env'|'keychain'|'file', path? }
 * await store.set('default', 'mk_…', { insecureStorage: false });
 * ```
 *
 * What lives in src/credentials: where secrets live and nothing about HTTP (keytar in a child
 * process, the 0600 file, `KEYDECK_TOKEN`, a credential's origin). May import: src/api (types,
 * base URL rules), src/config. Imported by: src/commands, src/tui, src/exporter, src/billing.
 */
import { positiveMsFromEnv } from '../config/timeout.js';
import { failpoint } from '../failpoints/index.js';
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
  type OriginOptions,
  type SetCredentialOptions,
  type StoredCredential,
} from './store.js';
import { credentialAccount } from './origin.js';
import { checkCredentialToken } from './token.js';

export * from './store.js';
export { TOKEN_ENV_VAR, envCredential } from './env.js';
export { describeCredential, type CredentialOrigin, type CredentialWords } from './describe.js';
export { managementKeyName, type KeyNameParts } from './keyName.js';
export { CredentialFile } from './file.js';
export { credentialAccount, originOf, originTarget, type OriginTarget } from './origin.js';
export { DEFAULT_KEYCHAIN_TIMEOUT_MS, KEYCHAIN_SERVICE, Keychain, describeKeychainError, keychainBackendName, keychainPreflight, type KeytarLike } from './keychain.js';
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
 * Moves a key found under the bare profile name to its origin's account (write the new entry,
 * then drop the old one), so that it stays with its service when the profile's base URL changes
 * later. Best effort: a failure leaves the old entry, which is still found next time.
 */
async function migrate(write: () => Promise<unknown>, drop: () => Promise<unknown>): Promise<void> {
  try {
    await write();
    await drop();
  } catch {
    // Kept where it was.
  }
}

/** The accounts a key of `profile` may sit under: its origin's, then (legacy) the bare profile name. */
function accountsOf(profile: string, options: OriginOptions): string[] {
  if (options.origin === undefined) return [profile];
  const account = credentialAccount(profile, options.origin);
  return options.legacy ? [account, profile] : [account];
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
      const accounts = accountsOf(profile, getOptions);
      for (const account of accounts) {
        let fromKeychain: string | null;
        try {
          fromKeychain = await keychain.get(account);
        } catch (err) {
          if (!(err instanceof CredentialStoreError)) throw err;
          // Unavailable or hung: fall through to the file; keychainStatus() says why.
          break;
        }
        if (fromKeychain) {
          const token = checkCredentialToken(fromKeychain, `the key stored in the keychain for profile "${profile}"`);
          if (account !== accounts[0])
            await migrate(
              () => keychain.set(accounts[0]!, token),
              () => keychain.delete(account),
            );
          return { token, source: 'keychain' };
        }
      }
      for (const account of accounts) {
        const fromFile = await file.get(account);
        if (fromFile) {
          const token = checkCredentialToken(fromFile, `the key stored in ${file.path} for profile "${profile}"`);
          if (account !== accounts[0])
            await migrate(
              () => file.set(accounts[0]!, token),
              () => file.delete(account),
            );
          return { token, source: 'file', path: file.path };
        }
      }
      return undefined;
    },

    async set(profile: string, token: string, setOptions: SetCredentialOptions = {}) {
      const value = checkCredentialToken(token);
      const [account, ...older] = accountsOf(profile, setOptions);
      try {
        await keychain.set(account!, value, setOptions.timeoutMs);
      } catch (err) {
        if (!(err instanceof CredentialStoreError)) throw err;
        if (!setOptions.insecureStorage) {
          throw new CredentialStoreError(
            err.code,
            `cannot store the key: ${err.message}. To go on without a keychain, re-run with --insecure-storage ` +
              `(the key is then kept in plaintext in ${file.path}, mode 0600), or set KEYDECK_TOKEN for each run instead of storing it.`,
          );
        }
        await file.set(account!, value);
        failpoint('store.written', 'file');
        for (const old of older) await file.delete(old).catch(() => false); // a stale copy left is retried by the next store; the key is stored
        return { source: 'file' as const, path: file.path };
      }
      failpoint('store.written', 'keychain');
      // Stored in the keychain: no stale plaintext copy may remain in the fallback file, and a
      // key of the same service stored before keys were kept per origin is replaced by this one.
      for (const old of [account!, ...older]) {
        try {
          await file.delete(old);
        } catch {
          // A broken fallback file is reported where it is read; the keychain copy is what counts.
        }
      }
      for (const old of older) await keychain.delete(old).catch(() => false); // a stale copy left is retried by the next store; the key is stored
      return { source: 'keychain' as const };
    },

    async delete(profile: string, deleteOptions: OriginOptions = {}): Promise<DeleteCredentialResult> {
      const removedFrom = new Set<'keychain' | 'file'>();
      let keychainError: string | undefined;
      let keychainHung = false;
      for (const account of accountsOf(profile, deleteOptions)) {
        if (keychainError === undefined) {
          try {
            if (await keychain.delete(account)) removedFrom.add('keychain');
          } catch (err) {
            if (!(err instanceof CredentialStoreError)) throw err;
            keychainError = err.message;
            keychainHung = err.code === 'keychain_timeout';
          }
        }
        if (await file.delete(account)) removedFrom.add('file');
      }
      if (removedFrom.size > 0) failpoint('store.deleted');
      return { removedFrom: [...removedFrom], ...(keychainError !== undefined && { keychainError }), ...(keychainHung && { keychainHung }) };
    },

    resetKeychain(): void {
      keychain.reset();
    },

    keychainStatus(statusOptions?: KeychainStatusOptions): Promise<KeychainStatus> {
      return keychain.status(statusOptions);
    },
  };
}
