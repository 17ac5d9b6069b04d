/** `keydeck keys …` and `keydeck mgmt-keys …` (src/commands/keys.ts, mgmt-keys.ts). */
import type { Command } from 'commander';
import { addDeliveryOptions, type DeliveryOptionValues } from './delivery.js';
import { commandGroup, runScripted } from './shared.js';

/** Adds `keys` (consumption keys) to the program. */
export function registerKeys(program: Command): void {
  const keys = commandGroup(program, 'keys', 'consumption keys (sk_): list, create credit keys, rename, enable, disable, delete');
  keys
    .command('list')
    .description('list the consumption keys: id, name, keyType, keyPlan, status, expires, createdAt (never a key value)')
    .option('--json', 'print the service’s array of keys as JSON')
    .action(async (opts: { json?: boolean }, cmd: Command) => {
      const { keysList } = await import('../commands/keys.js');
      await runScripted(cmd, (g) => keysList(g, opts));
    });
  keys
    .command('create')
    .description('create a credit key (needs a balance above 0) and print its sk_ value, the only time it is shown')
    .requiredOption('--name <name>', 'label of the key (1–128 characters)')
    .option('--json', 'print the created key (with apiKey) as JSON')
    .action(async (opts: { name: string; json?: boolean } & DeliveryOptionValues, cmd: Command) => {
      const { keysCreate } = await import('../commands/keys.js');
      await runScripted(cmd, (g) => keysCreate(g, opts));
    });
  addDeliveryOptions(keys.commands.find((c) => c.name() === 'create')!);
  keys
    .command('rename')
    .description('rename a consumption key')
    .argument('<id>', 'the key’s id (keydeck keys list)')
    .requiredOption('--name <name>', 'the new label (1–128 characters)')
    .option('--json', 'print the service’s answer as JSON (null when empty)')
    .action(async (id: string, opts: { name: string; json?: boolean }, cmd: Command) => {
      const { keysRename } = await import('../commands/keys.js');
      await runScripted(cmd, (g) => keysRename(g, id, opts));
    });
  keys
    .command('enable')
    .description('reactivate a disabled consumption key')
    .argument('<id>', 'the key’s id (keydeck keys list)')
    .option('--json', 'print the service’s answer as JSON (null when empty)')
    .action(async (id: string, opts: { json?: boolean }, cmd: Command) => {
      const { keysSetActive } = await import('../commands/keys.js');
      await runScripted(cmd, (g) => keysSetActive(g, id, true, opts));
    });
  keys
    .command('disable')
    .description('pause a consumption key: it is refused at once until enabled again (asks first)')
    .argument('<id>', 'the key’s id (keydeck keys list)')
    .option('-y, --yes', 'do not ask (required when stdin is not a terminal)')
    .option('--json', 'print the service’s answer as JSON (null when empty)')
    .action(async (id: string, opts: { yes?: boolean; json?: boolean }, cmd: Command) => {
      const { keysSetActive } = await import('../commands/keys.js');
      await runScripted(cmd, (g) => keysSetActive(g, id, false, opts));
    });
  keys
    .command('delete')
    .description('delete a consumption key for good (asks first)')
    .argument('<id>', 'the key’s id (keydeck keys list)')
    .option('-y, --yes', 'do not ask (required when stdin is not a terminal)')
    .option('--json', 'print the service’s answer ({ "deleted": true }) as JSON')
    .action(async (id: string, opts: { yes?: boolean; json?: boolean }, cmd: Command) => {
      const { keysDelete } = await import('../commands/keys.js');
      await runScripted(cmd, (g) => keysDelete(g, id, opts));
    });
}

/** Adds `mgmt-keys` (management keys) to the program. */
export function registerMgmtKeys(program: Command): void {
  const mgmtKeys = commandGroup(program, 'mgmt-keys', 'management keys (mk_): list, create, delete');
  mgmtKeys
    .command('list')
    .description('list the management keys: id, name, keyPrefix, isActive, lastUsedAt, createdAt')
    .option('--json', 'print the service’s array of keys as JSON')
    .action(async (opts: { json?: boolean }, cmd: Command) => {
      const { mgmtKeysList } = await import('../commands/mgmt-keys.js');
      await runScripted(cmd, (g) => mgmtKeysList(g, opts));
    });
  mgmtKeys
    .command('create')
    .description('create a management key and print its mk_ value, the only time it is shown')
    .requiredOption('--name <name>', 'label of the key (1–128 characters)')
    .option('--json', 'print the created key (with apiKey) as JSON')
    .action(async (opts: { name: string; json?: boolean }, cmd: Command) => {
      const { mgmtKeysCreate } = await import('../commands/mgmt-keys.js');
      await runScripted(cmd, (g) => mgmtKeysCreate(g, opts));
    });
  mgmtKeys
    .command('delete')
    .description('delete a management key (asks first); deleting the one keydeck uses signs keydeck out')
    .argument('<id>', 'the key’s id (keydeck mgmt-keys list)')
    .option('-y, --yes', 'do not ask (required when stdin is not a terminal)')
    .option('--json', 'print the service’s answer as JSON (null when empty)')
    .action(async (id: string, opts: { yes?: boolean; json?: boolean }, cmd: Command) => {
      const { mgmtKeysDelete } = await import('../commands/mgmt-keys.js');
      await runScripted(cmd, (g) => mgmtKeysDelete(g, id, opts));
    });
}
