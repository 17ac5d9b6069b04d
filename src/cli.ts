#!/usr/bin/env node
/**
 * keydeck's command line: parses argv (commander) and hands over to one face: the TUI,
 * a scriptable command, or the sandbox server. It holds no logic of its own, and it imports
 * every face lazily, so a command never pays for Ink and the TUI never pays for Fastify.
 *
 * Exit codes (shared by every command): 0 done, 1 refused by the service or the store,
 * 2 bad usage, 3 `billing watch` below its threshold, 4 network trouble.
 */
import { Command, Option } from 'commander';
import { createRequire } from 'node:module';

const { version } = createRequire(import.meta.url)('../package.json') as { version: string };

const program = new Command('keydeck')
  .description("A terminal manager for an inference service's account: keys, management keys, balance and top-ups.")
  .version(version, '-V, --version')
  .showSuggestionAfterError(true)
  .showHelpAfterError('(run with --help for usage)')
  .exitOverride((err) => {
    // commander's own errors are usage errors: exit 2 (help and version exit 0).
    process.exit(err.exitCode === 0 ? 0 : 2);
  })
  .option('--sandbox', 'start the embedded sandbox on a free loopback port and open the TUI against it')
  .addOption(new Option('--base-url <url>', 'use that service instead of the profile’s').env('KEYDECK_BASE_URL'))
  .addOption(new Option('--profile <name>', 'the profile to use').env('KEYDECK_PROFILE'))
  .option('--insecure-storage', 'store the management key in a file (mode 0600) when no keychain is available');

// ---- sandbox (src/commands/sandbox.ts) ----
program
  .command('sandbox')
  .description('run the sandbox server in the foreground (a local implementation of the service)')
  .option('--host <host>', 'address to listen on', '127.0.0.1')
  .option('--port <port>', 'port to listen on (0 picks a free one)', '8787')
  .option('--db <path>', 'SQLite database file (default: in the user data dir)')
  .action(async (opts: { host: string; port: string; db?: string }) => {
    const { runSandboxCommand } = await import('./commands/sandbox.js');
    await runSandboxCommand(opts);
  });
// ---- end sandbox ----

// ---- default action: the TUI ----
program.action(async () => {
  const globals = program.opts();
  if (!process.stdin.isTTY || !process.stdout.isTTY) {
    process.stderr.write(
      'keydeck: the full-screen app needs a terminal. For scripts use the commands: keydeck keys|mgmt-keys|billing|auth --help\n',
    );
    process.exit(2);
  }
  const { runTui } = await import('./tui/run.js');
  await runTui(globals);
});

await program.parseAsync(process.argv);
