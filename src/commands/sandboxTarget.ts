/**
 * `keydeck --sandbox <command>`: every service-facing command runs against the same
 * sandbox and demo account as `keydeck --sandbox` (the TUI), in the data dir: served by this
 * process for the command's length, or joined when another keydeck process serves it (a TUI left
 * open, say) (src/sandbox/shared.ts). The profile is `sandbox` unless `--profile` names another;
 * the key is the one stored for the sandbox's origin (after setup), else `KEYDECK_TOKEN`, else the
 * demo user's session token ({@link GlobalOptions.sandboxToken}, never stored).
 */
import { sandboxDbPath } from '../config/paths.js';
import { resolveProfile } from '../config/profile.js';
import { noSuchProfileSentence } from '../words/index.js';
import { ExitCode, fail, warn, type GlobalOptions } from './output.js';
import { accountWords } from './wordingAccount.js';

/** The profile `--sandbox` uses when `--profile` names none (the TUI's too). */
export const SANDBOX_PROFILE = 'sandbox';

/**
 * Runs `body` with `globals` pointed at the sandbox when `--sandbox` was given (its URL as the
 * base URL, profile `sandbox` by default, its demo token as the last resort), and closes what
 * was opened for it afterwards, also when `body` throws. Without `--sandbox`, just `body(globals)`.
 * @throws CommandFailure exit 2 for `--sandbox` with `--base-url` (two services named) or with
 *   `--profile` naming a profile the config file does not have, exit 1
 *   when the sandbox cannot be started or joined (the reason, naming the database file)
 */
export async function withSandbox<T>(globals: GlobalOptions, body: (globals: GlobalOptions) => Promise<T>, env: NodeJS.ProcessEnv = process.env): Promise<T> {
  if (!globals.sandbox) return body(globals);
  if (globals.baseUrl !== undefined && !globals.baseUrlFromEnv) {
    fail(ExitCode.usage, accountWords.usageSandboxBaseUrl);
  }
  // --profile names the profile whose settings apply to the sandbox: one the config file has.
  if (globals.profile !== undefined && globals.profile !== SANDBOX_PROFILE && !(await resolveProfile({ profile: globals.profile }, env)).inConfig) {
    fail(ExitCode.usage, noSuchProfileSentence(globals.profile), 'no_such_profile');
  }
  const dbPath = sandboxDbPath(env);
  const { openSharedSandbox, joinedDialectNotice } = await import('../sandbox/shared.js');
  let sandbox: Awaited<ReturnType<typeof openSharedSandbox>>;
  try {
    sandbox = await openSharedSandbox({
      dbPath,
      keep: true,
      ...(globals.sandbox.dialect !== undefined && { dialect: globals.sandbox.dialect }),
      ...(globals.sandbox.chain !== undefined && { chain: globals.sandbox.chain }),
    });
  } catch (error) {
    fail(ExitCode.refused, accountWords.sandboxUnavailable, { dbPath, error });
  }
  // A sandbox another process serves keeps its own dialect: said, so that answers in another shape surprise nobody.
  const notice = joinedDialectNotice(sandbox, globals.sandbox.dialect);
  if (notice !== undefined) warn(notice);
  try {
    // KEYDECK_BASE_URL names the usual service; --sandbox, given on this command line, wins over it.
    const { baseUrlFromEnv: _fromEnv, ...rest } = globals;
    const profile = globals.profile !== undefined ? { profile: globals.profile } : { profile: SANDBOX_PROFILE, profileSource: 'sandbox' as const };
    return await body({ ...rest, baseUrl: sandbox.url, ...profile, sandboxToken: sandbox.token });
  } finally {
    await sandbox.close();
  }
}
