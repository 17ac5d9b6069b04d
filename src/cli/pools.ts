/** `keydeck pools [ID]` (src/commands/pools.ts): the service's pools, read-only. */
import type { Command } from 'commander';
import { inherits, SERVICE_OPTIONS } from './inherited.js';
import { runScripted } from './shared.js';

/** Adds `pools` to the program. */
export function registerPools(program: Command): void {
  inherits(program.command('pools'), SERVICE_OPTIONS)
    .description('the service’s pools (pool subscriptions): model, status, seats, prices; with ID one pool’s blocks and free seats (read-only)')
    .argument('[id]', 'one pool’s id or slug: its blocks (UTC hours), free seats, monthly and yearly price')
    .option('--json', 'print the service’s pools (or the pool) as JSON')
    .action(async (id: string | undefined, opts: { json?: boolean }, cmd: Command) => {
      const { poolsCommand } = await import('../commands/pools.js');
      await runScripted(cmd, (g) => poolsCommand(g, id, opts));
    });
}
