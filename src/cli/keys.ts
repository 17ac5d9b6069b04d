/** `keydeck keys …` and `keydeck mgmt-keys …` (src/commands/keys.ts, mgmt-keys.ts). */
import type { Command } from 'commander';
import { addDeliveryOptions, type DeliveryOptionValues } from './delivery.js';

/** The option values of `keys rotate`. */
interface RotateOptionValues extends DeliveryOptionValues {
  readonly name?: string;
  readonly old?: string;
  readonly grace?: string;
  readonly waitIdle?: string | boolean;
  readonly idleFor?: string;
  readonly finish?: boolean;
  readonly undo?: boolean;
  readonly yes?: boolean;
  readonly json?: boolean;
}
import { SERVICE_OPTIONS } from './inherited.js';
import { commandGroup, runScripted } from './shared.js';

/** Adds `keys` (consumption keys) to the program. */
export function registerKeys(program: Command): void {
  const keys = commandGroup(program, 'keys', 'consumption keys (sk_): list, show, create, rotate, rename, enable, disable, delete, usage', SERVICE_OPTIONS);
  keys
    .command('list')
    .description('list the consumption keys: id, name, keyType, keyPlan, status, expires, createdAt (never a key value)')
    .option('--json', 'print the service’s array of keys as JSON, each with its published limits (limits)')
    .action(async (opts: { json?: boolean }, cmd: Command) => {
      const { keysList } = await import('../commands/keysList.js');
      await runScripted(cmd, (g) => keysList(g, opts));
    });
  keys
    .command('show')
    .description('one key as the Keys pane shows it: status, expiry, plan, a pool key’s blocks, its limits with where each figure comes from, its last known spend')
    .argument('<id|name>', 'the key’s id, or its name when only one key has it (keydeck keys list)')
    .option('--json', 'print the key as keys list --json does (with limits), plus details')
    .action(async (idOrName: string, opts: { json?: boolean }, cmd: Command) => {
      const { keysShow } = await import('../commands/keysShow.js');
      await runScripted(cmd, (g) => keysShow(g, idOrName, opts));
    });
  keys
    .command('create')
    .description('create a credit key (needs a balance above 0), or with --subscription the key of a subscription or pool pledge, and print its sk_ value, the only time it is shown')
    .argument('[name]', 'label of the key (1–128 characters); or --name')
    .option('--name <name>', 'label of the key (1–128 characters)')
    .option('--subscription <id>', 'mint the one active key of this subscription or pool pledge (its id in keydeck billing status) instead of a credit key')
    .option('--allow-duplicate-name', 'create it even when another key has this name (without a terminal it is refused otherwise)')
    .option('--finish', 'finish the interrupted creation of NAME (or the only one): deliver its key where it did not arrive, or make a new one when its value is gone')
    .option('--undo', 'undo the interrupted creation of NAME (or the only one): put back what its files held, delete the key unless a command took it (asks first)')
    .option('-y, --yes', 'undo without asking')
    .option('--json', 'print the created key (with apiKey) as JSON')
    .action(
      async (
        name: string | undefined,
        opts: { name?: string; subscription?: string; allowDuplicateName?: boolean; finish?: boolean; undo?: boolean; yes?: boolean; json?: boolean } & DeliveryOptionValues,
        cmd: Command,
      ) => {
        const { keysCreate } = await import('../commands/keys.js');
        await runScripted(cmd, (g) => keysCreate(g, { ...opts, name: opts.name ?? name, positionalName: name }));
      },
    );
  addDeliveryOptions(keys.commands.find((c) => c.name() === 'create')!);
  keys
    .command('rename')
    .description('rename a consumption key')
    .argument('<id|name>', 'the key’s id, or its name when only one key has it (keydeck keys list)')
    .requiredOption('--name <name>', 'the new label (1–128 characters)')
    .option('--allow-duplicate-name', 'rename it even when another key has this name (without a terminal it is refused otherwise)')
    .option('--json', 'print the service’s answer as JSON (null when empty)')
    .action(async (idOrName: string, opts: { name: string; allowDuplicateName?: boolean; json?: boolean }, cmd: Command) => {
      const { keysRename } = await import('../commands/keys.js');
      await runScripted(cmd, (g) => keysRename(g, idOrName, opts));
    });
  keys
    .command('enable')
    .description('reactivate a disabled consumption key')
    .argument('<id|name>', 'the key’s id, or its name when only one key has it (keydeck keys list)')
    .option('--json', 'print the service’s answer as JSON (null when empty)')
    .action(async (id: string, opts: { json?: boolean }, cmd: Command) => {
      const { keysSetActive } = await import('../commands/keys.js');
      await runScripted(cmd, (g) => keysSetActive(g, id, true, opts));
    });
  keys
    .command('disable')
    .description('pause a consumption key: it is refused at once until enabled again (asks first)')
    .argument('<id|name>', 'the key’s id, or its name when only one key has it (keydeck keys list)')
    .option('-y, --yes', 'do not ask (required when stdin is not a terminal)')
    .option('--confirm-name <name>', 'the key’s name, to confirm without a question (required with --yes on a profile marked protected)')
    .option('--json', 'print the service’s answer as JSON (null when empty)')
    .action(async (id: string, opts: { yes?: boolean; confirmName?: string; json?: boolean }, cmd: Command) => {
      const { keysSetActive } = await import('../commands/keys.js');
      await runScripted(cmd, (g) => keysSetActive(g, id, false, opts));
    });
  keys
    .command('usage')
    .description('who spends what: each key’s spend per period and share (or one key’s spend read by read); reads are limited to 12 per 12 hours')
    .argument('[id|name]', 'one key (its id, or its name when only one key has it): its figures, burn rates and spend read by read')
    .option('--period <period>', 'only this period: 24h, 7d, 30d or total (with an id: how far back the reads go; default 7d)')
    .option('--refresh', 'spend one of the 12 usage reads per 12 hours now, when one is left')
    .option('--cached', 'never spend a read: print the last figures kept, with their age')
    .option('--json', 'print { service: the answer as sent, derived: keydeck’s figures } as JSON')
    .action(async (id: string | undefined, opts: { period?: string; refresh?: boolean; cached?: boolean; json?: boolean }, cmd: Command) => {
      const { keysUsage } = await import('../commands/usage.js');
      await runScripted(cmd, (g) => keysUsage(g, id, opts));
    });
  keys
    .command('delete')
    .description('delete a consumption key for good (asks first)')
    .argument('<id|name>', 'the key’s id, or its name when only one key has it (keydeck keys list)')
    .option('-y, --yes', 'do not ask (required when stdin is not a terminal)')
    .option('--confirm-name <name>', 'the key’s name, to confirm without a question (required with --yes on a profile marked protected)')
    .option('--json', 'print the service’s answer ({ "deleted": true }) as JSON')
    .action(async (id: string, opts: { yes?: boolean; confirmName?: string; json?: boolean }, cmd: Command) => {
      const { keysDelete } = await import('../commands/keys.js');
      await runScripted(cmd, (g) => keysDelete(g, id, opts));
    });
  const rotate = keys
    .command('rotate')
    .description('replace a credit key without downtime: create its successor (it takes the old key’s name), deliver it (--to-file, --to-command), then deactivate, delete or keep the old key')
    .argument('[id|name]', 'the key to rotate: its id, or its name (keydeck keys list); with --finish/--undo, the key whose rotation was interrupted')
    .option('--name <name>', 'the successor’s name (default: the old key’s own, which then becomes "NAME (rotated DATE)")')
    .option('--old <action>', 'what becomes of the old key once the successor is delivered: deactivate, delete or keep (default: ask)')
    .option('--grace <duration>', 'wait this long after the delivery before handling the old key (90s, 10m, 1h30m)')
    .option('--wait-idle [bound]', 'wait until the old key is idle (lastUsedAt) before handling it, at most BOUND (default 15m)')
    .option('--idle-for <duration>', 'how long without a request counts as idle (default 60s)')
    .option('--finish', 'finish the interrupted rotation of ID|NAME (or the only one): its successor read back from a file that holds it, or a new one (running the same command again does it too)')
    .option('--undo', 'undo the interrupted rotation of ID|NAME (or the only one): files put back, its successor deleted unless a command took it, the old key kept (asks first)')
    .option('-y, --yes', 'do not ask: handle the old key even while it is still in use; undo without asking')
    .option('--json', 'print the outcome (old key, successor, deliveries) as JSON; without a destination it holds the successor’s apiKey')
    .option('--metrics-textfile <path>', TEXTFILE_HELP)
    .action(async (idOrName: string | undefined, opts: RotateOptionValues & { metricsTextfile?: string }, cmd: Command) => {
      const [{ keysRotate }, { withMetricsTextfile }] = await Promise.all([import('../commands/keys-rotate.js'), import('../commands/metricsTextfile.js')]);
      await runScripted(cmd, (g) => withMetricsTextfile(opts.metricsTextfile, 'keys rotate', g, process.env, () => keysRotate(g, idOrName, opts)));
    });
  addDeliveryOptions(rotate);
}

/** The help of `--metrics-textfile` (the rotations; `autotopup run` says the same). */
const TEXTFILE_HELP = "write the run (its time and exit code) for node_exporter's textfile collector to PATH (a *.prom file, replaced atomically)";

/** Adds `mgmt-keys` (management keys) to the program. */
export function registerMgmtKeys(program: Command): void {
  const mgmtKeys = commandGroup(program, 'mgmt-keys', 'management keys (mk_): list, create, delete, rotate the one keydeck uses', SERVICE_OPTIONS);
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
    .command('rotate')
    .description('replace the management key keydeck uses: create a new one, store it where the old one is, check it, then delete the old one (for cron)')
    .option('--name <name>', 'the new key’s name (default NAME-r2, then -r3…)')
    .option('--token-file <path>', 'rotate the key in this token file (the exporter’s) instead of keydeck’s own; the new key is written there, keeping its owner and mode')
    .option('--finish', 'finish an interrupted rotation (a plain rerun does too)')
    .option('--undo', 'undo an interrupted rotation: the old key back where it was, the new one deleted')
    .option('--json', 'print the old and new keys (id, name, keyPrefix; never a key value) and where the new one is stored')
    .option('--metrics-textfile <path>', TEXTFILE_HELP)
    .action(async (opts: { name?: string; tokenFile?: string; finish?: boolean; undo?: boolean; json?: boolean; metricsTextfile?: string }, cmd: Command) => {
      const [{ mgmtKeysRotate }, { withMetricsTextfile }] = await Promise.all([import('../commands/mgmt-rotate.js'), import('../commands/metricsTextfile.js')]);
      await runScripted(cmd, (g) => withMetricsTextfile(opts.metricsTextfile, 'mgmt-keys rotate', g, process.env, () => mgmtKeysRotate(g, opts)));
    });
  mgmtKeys
    .command('delete')
    .description('delete a management key (asks first); deleting the one keydeck uses signs keydeck out')
    .argument('<id|name>', 'the management key’s id, or its name when only one has it (keydeck mgmt-keys list)')
    .option('-y, --yes', 'do not ask (required when stdin is not a terminal)')
    .option('--confirm-name <name>', 'the key’s name, to confirm without a question (required with --yes on a profile marked protected)')
    .option('--json', 'print the service’s answer as JSON (null when empty)')
    .action(async (id: string, opts: { yes?: boolean; confirmName?: string; json?: boolean }, cmd: Command) => {
      const { mgmtKeysDelete } = await import('../commands/mgmt-keys.js');
      await runScripted(cmd, (g) => mgmtKeysDelete(g, id, opts));
    });
}
