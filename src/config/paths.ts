/**
 * Where keydeck keeps its files: the platform's config dir (env-paths, no `-nodejs` suffix:
 * `~/.config/keydeck` on Linux, `~/Library/Preferences/keydeck` on macOS,
 * `%APPDATA%\keydeck\Config` on Windows), or `KEYDECK_CONFIG_DIR` when set (tests point it at a
 * temp dir); and the platform's data dir (`~/.local/share/keydeck` on Linux), or
 * `KEYDECK_DATA_DIR`, for the top-up journal and the sandbox's database. Nothing here touches the disk.
 *
 * The functions read the `KEYDECK_*` overrides from the `env` they are given; the platform's dirs
 * are the process's whatever `env` says: env-paths reads the process's environment (XDG dirs,
 * APPDATA) when called, and its home dir once, when it is loaded.
 */
import envPaths from 'env-paths';
import path from 'node:path';

/** The directory holding `config.json` and, only with `--insecure-storage`, `credentials.json`. */
export function configDir(env: NodeJS.ProcessEnv = process.env): string {
  const override = env.KEYDECK_CONFIG_DIR;
  if (override && override.trim() !== '') return path.resolve(override);
  return envPaths('keydeck', { suffix: '' }).config;
}

/**
 * The directory holding keydeck's data (never a secret): the top-up journal (`topups.json`) and
 * the embedded sandbox's database (`sandbox.db`). `KEYDECK_DATA_DIR` when set, else the platform's
 * data dir (env-paths `keydeck`, no suffix).
 */
export function dataDir(env: NodeJS.ProcessEnv = process.env): string {
  const override = env.KEYDECK_DATA_DIR;
  if (override && override.trim() !== '') return path.resolve(override);
  return envPaths('keydeck', { suffix: '' }).data;
}

/**
 * The sandbox's database file, for `keydeck --sandbox` and `keydeck sandbox` alike:
 * `KEYDECK_SANDBOX_DB` when set, else `<dataDir>/sandbox.db`.
 */
export function sandboxDbPath(env: NodeJS.ProcessEnv = process.env): string {
  const override = env.KEYDECK_SANDBOX_DB;
  if (override && override.trim() !== '') return path.resolve(override);
  return path.join(dataDir(env), 'sandbox.db');
}

/**
 * The records of the key operations in the data dir, by what they hold: unfinished key creations
 * (src/operations/keyOperationRecord.ts), consumption-key rotations (rotationRecord.ts, where an
 * older keydeck also kept management-key rotations) and management-key rotations
 * (mgmtRotationRecord.ts). Named here so that a command can see that none is there without
 * loading their readers (src/commands/output.ts `openSession`).
 */
export const OPERATION_RECORD_FILES = { creations: 'operations.json', rotations: 'rotations.json', mgmtRotations: 'mgmt-rotations.json' } as const;

/** `<configDir>/config.json`: profiles and the current profile; never a secret. */
export function configFilePath(env: NodeJS.ProcessEnv = process.env): string {
  return path.join(configDir(env), 'config.json');
}

/** `<configDir>/credentials.json`: the consented plaintext fallback (mode 0600), profile → token. */
export function credentialsFilePath(env: NodeJS.ProcessEnv = process.env): string {
  return path.join(configDir(env), 'credentials.json');
}
