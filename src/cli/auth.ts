/** `keydeck auth login|status|logout` and `keydeck doctor` (src/commands/auth.ts, doctor.ts). */
import type { Command } from 'commander';
import { inherits, SERVICE_OPTIONS, STORAGE_OPTIONS } from './inherited.js';

/** Adds `auth` and `doctor` to the program. */
export function registerAuth(program: Command): void {
  const auth = inherits(program.command('auth').description('sign in, show where the key is stored, sign out'), SERVICE_OPTIONS);
  inherits(auth.command('login'), [...SERVICE_OPTIONS, ...STORAGE_OPTIONS])
    .description('turn a session token (or an mk_ key) into a management key stored in the OS keychain')
    .option('--token-stdin', 'read the token from stdin instead of asking for it')
    .option('--name <keyname>', 'name of the management key created from a session token (default "keydeck@<hostname> <profile> <date>", numbered when taken)')
    .action(async (opts: { tokenStdin?: boolean; name?: string }, cmd: Command) => {
      const { runCommand, globalOptionsOf } = await import('../commands/output.js');
      const { authLogin } = await import('../commands/auth.js');
      await runCommand(() => authLogin(globalOptionsOf(cmd), opts));
    });
  auth
    .command('status')
    .description('show the profile, its base URL, where its key is stored (never the key) and whether the service accepts it')
    .option('--json', 'print { profile, baseUrl, store, keyPrefix, accepted, reason? } as JSON')
    .action(async (opts: { json?: boolean }, cmd: Command) => {
      const { runCommand, globalOptionsOf } = await import('../commands/output.js');
      const { authStatus } = await import('../commands/auth.js');
      await runCommand(() => authStatus(globalOptionsOf(cmd), opts));
    });
  auth
    .command('logout')
    .description("forget the profile's stored key (keychain and file)")
    .option('--revoke', 'first delete that management key on the service')
    .action(async (opts: { revoke?: boolean }, cmd: Command) => {
      const { runCommand, globalOptionsOf } = await import('../commands/output.js');
      const { authLogout } = await import('../commands/auth.js');
      await runCommand(() => authLogout(globalOptionsOf(cmd), opts));
    });
  inherits(program.command('doctor'), SERVICE_OPTIONS)
    .description('check the keychain, the config file, the key and the service; exit 1 when a check fails')
    .option('--json', 'print { ok, checks: [{ name, ok, detail }] } as JSON')
    .action(async (opts: { json?: boolean }, cmd: Command) => {
      const { runCommand, globalOptionsOf } = await import('../commands/output.js');
      const { doctor } = await import('../commands/doctor.js');
      await runCommand(() => doctor(globalOptionsOf(cmd), opts));
    });
}
