/** `keydeck sandbox`: the sandbox server in the foreground (src/commands/sandbox.ts). */
import { Option, type Command } from 'commander';
import { DIALECTS, type DialectName } from './shared.js';

/** Adds `sandbox` to the program. */
export function registerSandbox(program: Command): void {
  program
    .command('sandbox')
    .description('run the sandbox server in the foreground (a local implementation of the service)')
    .option('--host <host>', 'address to listen on (the sandbox is for this machine: another address than loopback is warned about)', '127.0.0.1')
    .option('--port <port>', 'port to listen on (0 picks a free one)', '8787')
    .option('--db <path>', 'SQLite database file (default: in the user data dir)')
    .addOption(new Option('--dialect <name>', 'answer in the shape of the seed (default) or of the real service’s older/newer documentation pages').choices(DIALECTS))
    .option('--unlimited-usage-reads', 'lift the service’s limit of 12 usage reads per 12 hours per credential (load tests, benchmarks)')
    .addOption(new Option('--chain <node>', 'run USDC transfers on a real local chain: anvil (chain id 8453, the sandbox USDC at the native USDC address)').choices(['anvil']))
    .option('--chain-rpc <url>', 'with --chain anvil: use this anvil-compatible node instead of starting one')
    .action(async (opts: { host: string; port: string; db?: string; dialect?: DialectName; unlimitedUsageReads?: boolean; chain?: 'anvil'; chainRpc?: string }) => {
      const { runSandboxCommand } = await import('../commands/sandbox.js');
      // `--dialect`, `--chain` and `--chain-rpc` are also global options: commander may have given them to the program.
      const root = program.opts<{ dialect?: DialectName; chain?: string | false; chainRpc?: string }>();
      const dialect = opts.dialect ?? root.dialect;
      const chain = opts.chain ?? (root.chain === 'anvil' ? 'anvil' : undefined);
      const chainRpc = opts.chainRpc ?? root.chainRpc;
      await runSandboxCommand({ ...opts, ...(dialect !== undefined && { dialect }), ...(chain !== undefined && { chain }), ...(chainRpc !== undefined && { chainRpc }) });
    });
}
