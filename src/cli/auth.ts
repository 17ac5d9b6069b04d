/** `keydeck auth login|status|logout` and `keydeck doctor` (src/commands/auth.ts, doctor.ts). */
import type { Command } from 'commander';
import { exporterSetupOptions, type ExporterCliFlags } from './exporter.js';
import { inherits, SERVICE_OPTIONS, STORAGE_OPTIONS } from './inherited.js';
import { withHints } from './shared.js';

/** Adds `auth` and `doctor` to the program. */
export function registerAuth(program: Command): void {
  const auth = inherits(program.command('auth').description('sign in, show where the key is stored, sign out'), SERVICE_OPTIONS);
  inherits(auth.command('login'), [...SERVICE_OPTIONS, ...STORAGE_OPTIONS])
    .description('turn a session token (or an mk_ key) into a management key stored in the OS keychain')
    .option('--token-stdin', 'read the token from stdin instead of asking for it')
    .option('--name <keyname>', 'name of the management key created from a session token (default "keydeck@<hostname> <profile> <date>", numbered when taken)')
    .action(async (opts: { tokenStdin?: boolean; name?: string }, cmd: Command) => {
      const { runCommand, globalOptionsOf } = await import('../commands/output.js');
      const { withSandbox } = await import('../commands/sandboxTarget.js');
      const { authLogin } = await import('../commands/auth.js');
      await withHints(cmd, () => runCommand(() => withSandbox(globalOptionsOf(cmd), (g) => authLogin(g, opts))));
    });
  auth
    .command('status')
    .description(
      'show the profile and which rule chose it (--profile, KEYDECK_PROFILE, a .keydeck file, profileRules, the default), its marks, its base URL, where its key is stored (never the key) and whether the service accepts it',
    )
    .option('--json', 'print { profile, chosenBy, readOnly, protected, baseUrl, store, keyPrefix, accepted, reason? } as JSON')
    .action(async (opts: { json?: boolean }, cmd: Command) => {
      const { runCommand, globalOptionsOf } = await import('../commands/output.js');
      const { withSandbox } = await import('../commands/sandboxTarget.js');
      const { authStatus } = await import('../commands/authStatus.js');
      await withHints(cmd, () => runCommand(() => withSandbox(globalOptionsOf(cmd), (g) => authStatus(g, opts)), { json: opts.json === true }));
    });
  auth
    .command('logout')
    .description("forget the profile's stored key (keychain and file)")
    .option('--revoke', 'first delete that management key on the service')
    .action(async (opts: { revoke?: boolean }, cmd: Command) => {
      const { runCommand, globalOptionsOf } = await import('../commands/output.js');
      const { withSandbox } = await import('../commands/sandboxTarget.js');
      const { authLogout } = await import('../commands/auth.js');
      await withHints(cmd, () => runCommand(() => withSandbox(globalOptionsOf(cmd), (g) => authLogout(g, opts))));
    });
  exporterSetupOptions(
    inherits(program.command('doctor'), SERVICE_OPTIONS)
      .description('check the keychain, the config file, the key and the service; exit 1 when a check fails (a warning alone exits 0)')
      .option('--json', 'print { ok, checks: [{ name, ok, status, detail }] } as JSON (status ok, warn or fail)')
      .option(
        '--exporter',
        'check an exporter’s setup instead, with the exporter’s own flags: the config, each profile’s token (owner, mode, key shape) and one read of its balance, the history, the listen address',
      ),
  ).action(async (opts: ExporterCliFlags & { json?: boolean; exporter?: boolean }, cmd: Command) => {
    const { runCommand, globalOptionsOf, fail, ExitCode } = await import('../commands/output.js');
    const { accountWords } = await import('../commands/wordingAccount.js');
    const { doctor, printChecks } = await import('../commands/doctor.js');
    if (!opts.exporter) {
      await withHints(cmd, () =>
        runCommand(
          async () => {
            const stray = ['listen', 'allProfiles', 'tokenFile', 'tokenDir'].filter((k) => opts[k as keyof typeof opts] !== undefined);
            if (stray.length > 0) fail(ExitCode.usage, accountWords.exporterFlagsWithoutExporter);
            const { withSandbox } = await import('../commands/sandboxTarget.js');
            return withSandbox(globalOptionsOf(cmd), (g) => doctor(g, opts));
          },
          { json: opts.json === true },
        ),
      );
      return;
    }
    const { exporterOptionsOf } = await import('./exporter.js');
    const options = await exporterOptionsOf(program, cmd, opts, 'text');
    const { checkExporterSetup } = await import('../exporter/check.js');
    const { suggestCommand } = await import('../commands/suggest.js');
    await runCommand(async () => (printChecks(await checkExporterSetup(options, { online: true, suggest: suggestCommand }), opts.json) ? ExitCode.ok : ExitCode.refused), { json: opts.json === true });
  });
}
