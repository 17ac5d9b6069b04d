/**
 * A command's help is about that command: its own options, then under
 * "Inherited options:" the few options of the program that it reads (gh's "inherited flags"),
 * not every option of the full-screen app and the monitor. The program's own help
 * (`keydeck --help`), `keydeck help environment` and the manual (docs/commands.md) keep the rest.
 * The program's options stay accepted after any command (`keydeck keys list --profile work`);
 * only the help is shorter.
 */
import { Help, type Command, type Option } from 'commander';

/** What every command that talks to the service reads: which profile, which service (or the sandbox's demo account), whether it may change anything, plain http off this machine, and whether warnings are said. */
export const SERVICE_OPTIONS = ['--profile', '--base-url', '--sandbox', '--read-only', '--allow-insecure-http', '--quiet'] as const;
/** What the commands that check a USDC transfer on chain read (`billing topup --wait`, `billing verify`). */
export const CHAIN_OPTIONS = ['--no-chain', '--chain-rpc'] as const;
/** What the commands that store a management key read. */
export const STORAGE_OPTIONS = ['--insecure-storage'] as const;
/** What the faces left open read about telling the user and acting on their own (the TUI and `monitor`). */
export const NOTIFY_OPTIONS = ['--on-low', '--on-anomaly', '--desktop-notifications', '--auto-topup', '--on-auto-topup'] as const;

/** The program above `cmd`. */
function programOf(cmd: Command): Command {
  let root = cmd;
  while (root.parent) root = root.parent;
  return root;
}

/**
 * Makes the help of `cmd` (and of the commands defined under it afterwards, which inherit it)
 * list, after its own options, the program's options named by `flags` (their long flags), under
 * "Inherited options:", and end with where the rest is. Returns `cmd`.
 */
export function inherits(cmd: Command, flags: readonly string[]): Command {
  return cmd.configureHelp({
    showGlobalOptions: flags.length > 0,
    visibleGlobalOptions: (c: Command): Option[] => programOf(c).options.filter((o) => !o.hidden && o.long !== undefined && flags.includes(o.long)),
    formatItemList(heading: string, items: string[], helper: Help): string[] {
      return Help.prototype.formatItemList.call(this, heading === 'Global Options:' ? 'Inherited options:' : heading, items, helper);
    },
  });
}

/**
 * The last line of every command's help (not the program's): where the options it does not list
 * are. Added to `program` and each command under it once they are all defined.
 */
export function pointToTheRest(program: Command): void {
  const add = (cmd: Command): void => {
    if (cmd !== program && cmd.name() !== 'help' && cmd.name() !== 'environment') {
      cmd.addHelpText('after', '\nGlobal options: keydeck help options\nEnvironment variables: keydeck help environment');
    }
    for (const sub of cmd.commands) add(sub);
  };
  add(program);
}
