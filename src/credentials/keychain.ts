/**
 * The OS keychain through keytar (GitHub's maintained fork, an optional dependency): the macOS
 * Keychain, the Windows Credential Manager, or the Secret Service over D-Bus (libsecret) on Linux.
 * Service `keydeck`, account = the profile name.
 *
 * keytar is loaded lazily the first time it is needed, so startup never pays for it and a
 * missing module is a reason, not a crash. On Linux with no D-Bus session (no
 * `DBUS_SESSION_BUS_ADDRESS`, no `$XDG_RUNTIME_DIR/bus`) it is unavailable at once, without
 * starting anything or waiting for D-Bus's autolaunch error. keytar runs in a small child process
 * (./keytar-child.ts) so that a call hung in the Secret Service can be killed: every call has a
 * time limit, after which the child is killed and the keychain counts as unavailable for the rest
 * of the process.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { redactSecrets } from '../api/errors.js';
import { resolveKeytar, startChildKeytar, type KeytarLike } from './keytar-child.js';

export type { KeytarLike } from './keytar-child.js';
import { CredentialStoreError, type KeychainStatus } from './store.js';

/** The keychain service name of every keydeck entry. */
export const KEYCHAIN_SERVICE = 'keydeck';
/** The account of the write probe of `keychainStatus({ write: true })` (no profile name starts with `.`). */
export const PROBE_ACCOUNT = '.keydeck-probe';
/** Default time limit of one keychain call, in ms. */
export const DEFAULT_KEYCHAIN_TIMEOUT_MS = 3000;

/** Options of {@link Keychain}. */
export interface KeychainOptions {
  /** Environment to read `DBUS_SESSION_BUS_ADDRESS` / `XDG_RUNTIME_DIR` from (default `process.env`). */
  readonly env?: NodeJS.ProcessEnv;
  /** Default `process.platform`. */
  readonly platform?: NodeJS.Platform;
  /** Time limit of each call in ms (default 3000). */
  readonly timeoutMs?: number;
  /**
   * Loads keytar (default: resolve the installed `keytar` and start it in a child process);
   * tests pass a failing loader. A returned object's `kill()`, if any, is called after a timeout.
   */
  readonly load?: () => Promise<KeytarLike>;
}

/** The human name of the keychain backend of `platform`. */
export function keychainBackendName(platform: NodeJS.Platform): string {
  if (platform === 'darwin') return 'macOS Keychain';
  if (platform === 'win32') return 'Windows Credential Manager';
  return 'Secret Service (libsecret)';
}

/**
 * Why the keychain cannot be reached without asking it, or undefined when it may be asked:
 * on Linux and other D-Bus platforms, no session bus address and no `$XDG_RUNTIME_DIR/bus`.
 */
export function keychainPreflight(env: NodeJS.ProcessEnv, platform: NodeJS.Platform): string | undefined {
  if (platform === 'darwin' || platform === 'win32') return undefined;
  if (env.DBUS_SESSION_BUS_ADDRESS) return undefined;
  if (env.XDG_RUNTIME_DIR && existsSync(path.join(env.XDG_RUNTIME_DIR, 'bus'))) return undefined;
  return (
    'no D-Bus session (DBUS_SESSION_BUS_ADDRESS is not set), so no Secret Service keychain can be reached: ' +
    'run keydeck inside a desktop session, or start one with `dbus-run-session` and a keyring such as gnome-keyring'
  );
}

/**
 * Turns an error of keytar (or of loading it) into one sentence a user can act on: keytar not
 * installed/built, libsecret missing, no D-Bus session, no Secret Service, keyring locked, no
 * default keyring, prompt dismissed, or (otherwise) the backend's own words, redacted.
 */
export function describeKeychainError(message: string, platform: NodeJS.Platform = process.platform): string {
  const m = message;
  if (/libsecret-1\.so/i.test(m)) {
    return 'keytar cannot load libsecret (libsecret-1.so.0 is missing): install it (apt install libsecret-1-0, or dnf install libsecret)';
  }
  if (/Cannot find (module|package)|ERR_MODULE_NOT_FOUND|MODULE_NOT_FOUND|ERR_DLOPEN_FAILED|\.node\b|was compiled against|invalid ELF|NODE_MODULE_VERSION/i.test(m)) {
    return 'keytar (the optional keychain module) is not installed or its native part did not build for this system: reinstall keydeck with optional dependencies (npm install --include=optional)';
  }
  if (/Cannot autolaunch D-Bus|DBUS_SESSION_BUS_ADDRESS|Could not connect|Failed to connect to socket|Connection refused|No such file or directory/i.test(m)) {
    return 'the D-Bus session does not answer (DBUS_SESSION_BUS_ADDRESS points nowhere), so no Secret Service keychain can be reached: run keydeck inside a desktop session, or start one with `dbus-run-session`';
  }
  if (/org\.freedesktop\.secrets|ServiceUnknown|not provided by any \.service files/i.test(m)) {
    return 'no Secret Service runs on the D-Bus session (org.freedesktop.secrets is not provided): install and start a keyring such as gnome-keyring (or KeePassXC with its Secret Service enabled)';
  }
  if (/locked/i.test(m)) {
    return 'the keyring is locked: unlock it (log in to the desktop session, or run `gnome-keyring-daemon --unlock`) and try again';
  }
  if (/Object does not exist at path|No such secret collection|collection\/login/i.test(m)) {
    return 'the Secret Service has no default keyring and could not prompt to create one: create and unlock a "login" keyring (e.g. with Seahorse) and try again';
  }
  if (/dismiss|cancel/i.test(m)) return 'the keyring prompt was dismissed: run the command again and unlock the keyring when asked';
  if (platform === 'darwin' && /User interaction is not allowed|passphrase|authoriz/i.test(m)) {
    return 'the macOS keychain is locked and cannot ask for its password here (an SSH session?): run `security unlock-keychain` and try again';
  }
  return `the ${keychainBackendName(platform)} refused: ${redactSecrets(m).replace(/[.\s]+$/, '')}`;
}

/** One process's view of the OS keychain. All methods throw only {@link CredentialStoreError}. */
export class Keychain {
  readonly backend: string;
  readonly timeoutMs: number;
  private readonly env: NodeJS.ProcessEnv;
  private readonly platform: NodeJS.Platform;
  private readonly load: () => Promise<KeytarLike>;
  private keytar: Promise<KeytarLike> | undefined;
  /** Set once the keychain is known not to answer (preflight, load failure, timeout). */
  private dead: CredentialStoreError | undefined;
  private lastStatus: KeychainStatus | undefined;
  private lastWriteProbe = false;

  constructor(options: KeychainOptions = {}) {
    this.env = options.env ?? process.env;
    this.platform = options.platform ?? process.platform;
    this.timeoutMs = options.timeoutMs ?? DEFAULT_KEYCHAIN_TIMEOUT_MS;
    this.load = options.load ?? (async () => startChildKeytar(resolveKeytar(), this.env));
    this.backend = keychainBackendName(this.platform);
  }

  /**
   * The stored password of `account`, or null. `timeoutMs` as for {@link set}.
   * @throws CredentialStoreError `keychain_unavailable` or `keychain_timeout`.
   */
  async get(account: string, timeoutMs?: number): Promise<string | null> {
    const keytar = await this.module();
    return this.call((k) => k.getPassword(KEYCHAIN_SERVICE, account), keytar, timeoutMs);
  }

  /**
   * Stores `password` for `account`.
   * @param timeoutMs this call's time limit (default the keychain's).
   * @throws CredentialStoreError `keychain_unavailable` or `keychain_timeout`.
   */
  async set(account: string, password: string, timeoutMs?: number): Promise<void> {
    const keytar = await this.module();
    await this.call((k) => k.setPassword(KEYCHAIN_SERVICE, account, password), keytar, timeoutMs);
  }

  /**
   * Deletes `account`'s entry; true when there was one. `timeoutMs` as for {@link set}.
   * @throws CredentialStoreError `keychain_unavailable` or `keychain_timeout`.
   */
  async delete(account: string, timeoutMs?: number): Promise<boolean> {
    const keytar = await this.module();
    return this.call((k) => k.deletePassword(KEYCHAIN_SERVICE, account), keytar, timeoutMs);
  }

  /**
   * Probes the keychain: a read of the probe account, and with `write` a write and delete of it
   * (a locked keyring answers reads with "nothing"). Never throws. `probeMs` is the time taken.
   */
  async status(options: { write?: boolean; timeoutMs?: number } = {}): Promise<KeychainStatus> {
    if (this.lastStatus && (!options.write || !this.lastStatus.available || this.lastWriteProbe)) return this.lastStatus;
    const started = performance.now();
    try {
      await this.get(PROBE_ACCOUNT, options.timeoutMs);
      if (options.write) {
        await this.set(PROBE_ACCOUNT, 'keydeck keychain probe (not a secret)', options.timeoutMs);
        await this.delete(PROBE_ACCOUNT, options.timeoutMs);
        this.lastWriteProbe = true;
      }
      this.lastStatus = { available: true, backend: this.backend, probeMs: elapsed(started) };
    } catch (err) {
      const reason = err instanceof CredentialStoreError ? err.message : describeKeychainError(String(err), this.platform);
      const code = err instanceof CredentialStoreError && err.code === 'keychain_timeout' ? 'keychain_timeout' : 'keychain_unavailable';
      this.lastStatus = { available: false, backend: this.backend, reason, probeMs: elapsed(started), code };
    }
    return this.lastStatus;
  }

  /** Forgets that the keychain did not answer, so the next call asks it again (a retry after a hang). */
  reset(): void {
    this.dead = undefined;
    this.keytar = undefined;
    this.lastStatus = undefined;
    this.lastWriteProbe = false;
  }

  private module(): Promise<KeytarLike> {
    if (this.dead) return Promise.reject(this.dead);
    const preflight = keychainPreflight(this.env, this.platform);
    if (preflight) {
      this.dead = new CredentialStoreError('keychain_unavailable', preflight);
      return Promise.reject(this.dead);
    }
    this.keytar ??= this.load();
    return this.keytar.catch((err: unknown) => {
      if (err instanceof CredentialStoreError) throw err;
      this.dead = new CredentialStoreError('keychain_unavailable', describeKeychainError(errorMessage(err), this.platform));
      throw this.dead;
    });
  }

  private async call<T>(op: (k: KeytarLike) => Promise<T>, keytar: KeytarLike, timeoutMs = this.timeoutMs): Promise<T> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        this.dead = new CredentialStoreError(
          'keychain_timeout',
          `the ${this.backend} did not answer within ${timeoutMs} ms (a hung keyring daemon?): restart your keyring, or raise KEYDECK_KEYCHAIN_TIMEOUT_MS`,
        );
        reject(this.dead);
        // The hung call's process goes; keydeck is then free to exit.
        (keytar as KeytarLike & { kill?: () => void }).kill?.();
      }, timeoutMs);
    });
    try {
      return await Promise.race([op(keytar), timeout]);
    } catch (err) {
      if (err instanceof CredentialStoreError) throw err;
      throw new CredentialStoreError('keychain_unavailable', describeKeychainError(errorMessage(err), this.platform));
    } finally {
      clearTimeout(timer);
    }
  }
}

function errorMessage(err: unknown): string {
  if (err instanceof Error) return `${err.message}${(err as NodeJS.ErrnoException).code ? ` (${(err as NodeJS.ErrnoException).code})` : ''}`;
  return String(err);
}

function elapsed(started: number): number {
  return Math.round((performance.now() - started) * 10) / 10;
}
