/** `keydeck sandbox`: the sandbox server in the foreground (src/commands/sandbox.ts). */
import { Option, type Command } from 'commander';
import { DIALECTS, type DialectName } from './shared.js';

/** Adds `sandbox` to the program. */
export function registerSandbox(program: Command): void {
  program
    .command('sandbox')
    .description('run the sandbox server in the foreground (a local implementation of the service)')
    .option('--host <host>', 'address to listen on', '127.0.0.1')
    .option('--port <port>', 'port to listen on (0 picks a free one)', '8787')
    .option('--db <path>', 'SQLite database file (default: in the user data dir)')
    .addOption(new Option('--dialect <name>', 'answer in the shape of the seed (default) or of the real service’s older/newer documentation pages').choices(DIALECTS))
    .option('--unlimited-usage-reads', 'lift the service’s limit of 12 usage reads per 12 hours per credential (load tests, benchmarks)')
    .action(async (opts: { host: string; port: string; db?: string; dialect?: DialectName; unlimitedUsageReads?: boolean }) => {
      const { runSandboxCommand } = await import('../commands/sandbox.js');
      // `--dialect` is also a global option (for --sandbox): commander may have given it to the program.
      const dialect = opts.dialect ?? program.opts<{ dialect?: DialectName }>().dialect;
      await runSandboxCommand({ ...opts, ...(dialect !== undefined && { dialect }) });
    });
}
