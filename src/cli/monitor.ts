/** `keydeck monitor`: the live balance in a few lines (src/commands/monitor.ts, src/tui/panes/billing/monitor/). */
import type { Command } from 'commander';
import { inherits, NOTIFY_OPTIONS, SERVICE_OPTIONS } from './inherited.js';
import { withHints } from './shared.js';

/** Adds `monitor` to the program. */
export function registerMonitor(program: Command): void {
  inherits(program.command('monitor'), [...SERVICE_OPTIONS, ...NOTIFY_OPTIONS])
    .description('the live balance in a few lines (no full screen), for a tmux pane; q or ctrl-c leaves')
    .option('--interval <seconds>', 'seconds between balance reads (at least 2; default the profile’s, 15)')
    .option('--alert-below <usd>', 'ring the bell once when the balance drops below this many USD (default the profile’s)')
    .option('--all-profiles', 'every profile’s account in one table, most urgent first (each on its own schedule; reads only)')
    .option('--metrics <host:port>', 'serve the figures as Prometheus/OpenMetrics text at http://HOST:PORT/metrics (host default 127.0.0.1)')
    .action(async (opts: { interval?: string; alertBelow?: string; metrics?: string; allProfiles?: boolean }, cmd: Command) => {
      const { runCommand, globalOptionsOf } = await import('../commands/output.js');
      if (opts.allProfiles) {
        const { monitorAllProfiles } = await import('../commands/monitorAll.js');
        const flags = { ...cmd.optsWithGlobals<{ onLow?: string; onAnomaly?: string; desktopNotifications?: boolean; autoTopup?: boolean; onAutoTopup?: string }>(), ...opts };
        const { withSandbox } = await import('../commands/sandboxTarget.js');
        await withHints(cmd, () =>
          runCommand(() =>
            withSandbox(globalOptionsOf(cmd), (globals) =>
              monitorAllProfiles(globals, flags, {
                renderAll: async (input) => {
                  const { importWithoutFetch } = await import('../tui/withoutFetch.js');
                  return (await importWithoutFetch(() => import('../tui/accounts/runAccountsMonitor.js'))).runAccountsMonitor(input);
                },
              }),
            ),
          ),
        );
        return;
      }
      const { monitorCommand } = await import('../commands/monitor.js');
      // The flags may also be parsed as the root program's (the TUI's) options: read both.
      const flags = {
        ...cmd.optsWithGlobals<{ interval?: string; alertBelow?: string; onLow?: string; onAnomaly?: string; desktopNotifications?: boolean; autoTopup?: boolean; onAutoTopup?: string }>(),
        ...opts,
      };
      const { withSandbox } = await import('../commands/sandboxTarget.js');
      await withHints(cmd, () =>
        runCommand(() =>
          withSandbox(globalOptionsOf(cmd), (globals) =>
            monitorCommand(globals, flags, {
              version: program.version() ?? 'unknown',
              // Ink loads only once the flags, the terminal and the key have been checked.
              render: async (input) => {
                const { importWithoutFetch } = await import('../tui/withoutFetch.js');
                return (await importWithoutFetch(() => import('../tui/panes/billing/monitor/runMonitor.js'))).runMonitor(input);
              },
            }),
          ),
        ),
      );
    });
}
