/** `keydeck autotopup …`: the auto top-up policy and one run of it (src/commands/autotopup.ts). */
import type { Command } from 'commander';
import { SERVICE_OPTIONS } from './inherited.js';
import { commandGroup, runScripted } from './shared.js';

/** Adds `autotopup` to the program. */
export function registerAutoTopUp(program: Command): void {
  const group = commandGroup(program, 'autotopup', 'charge the card on file when the balance falls below a threshold, within caps: set, status, off, resume, run', SERVICE_OPTIONS);
  group
    .command('set')
    .description('set the profile’s policy (asks first: it authorises future charges to the card on file)')
    .requiredOption('--below <usd>', 'charge when the balance is below this many USD')
    .option('--amount <usd>', 'charge this many USD each time (at least 10, two decimals)')
    .option('--to <usd>', 'or: charge what brings the balance up to this many USD (at least 10 a charge)')
    .option('--max-per-day <usd>', 'charge at most this many USD in a UTC day (default: the largest charge twice)')
    .option('--max-per-month <usd>', 'charge at most this many USD in a UTC month (default: the largest charge ten times)')
    .option('--method <name>', 'the card-on-file method name (default the profile’s topUpMethods.card_direct, else card_direct)')
    .option('-y, --yes', 'do not ask (required when stdin is not a terminal)')
    .action(async (opts: { below: string; amount?: string; to?: string; maxPerDay?: string; maxPerMonth?: string; method?: string; yes?: boolean }, cmd: Command) => {
      const { autoTopUpSet } = await import('../commands/autotopup.js');
      await runScripted(cmd, (g) => autoTopUpSet(g, opts));
    });
  group
    .command('status')
    .description('show the policy, whether it is paused and why, the last charge and the last failure (this machine’s record; sends nothing)')
    .option('--json', 'print { profile, policy, paused, pausedBy, twoMachines, failuresInARow, lastCharge, lastFailure } as JSON')
    .action(async (opts: { json?: boolean }, cmd: Command) => {
      const { autoTopUpStatus } = await import('../commands/autotopup.js');
      await runScripted(cmd, (g) => autoTopUpStatus(g, opts));
    });
  group
    .command('off')
    .description('remove the profile’s policy: keydeck charges nothing by itself after this')
    .action(async (_opts: unknown, cmd: Command) => {
      const { autoTopUpOff } = await import('../commands/autotopup.js');
      await runScripted(cmd, (g) => autoTopUpOff(g));
    });
  group
    .command('resume')
    .description('resume a policy paused after failed charges (earlier failures no longer count), or paused on this machine because two machines ran it')
    .action(async (_opts: unknown, cmd: Command) => {
      const { autoTopUpResume } = await import('../commands/autotopup.js');
      await runScripted(cmd, (g) => autoTopUpResume(g));
    });
  group
    .command('run')
    .description('read the balance afresh and charge once if it is below the threshold, after a settle wait (for cron); exit 0 when nothing was needed or the charge was credited')
    .requiredOption('--once', 'one decision and at most one charge, then exit (the only mode: long-running faces take --auto-topup)')
    .option('--json', 'print { outcome, decision?, sentence, topUp?, secondCharge? } as JSON')
    .option('--metrics-textfile <path>', "write the run for node_exporter's textfile collector to PATH (a *.prom file, replaced atomically)")
    .action(async (opts: { json?: boolean; metricsTextfile?: string }, cmd: Command) => {
      const { autoTopUpRun } = await import('../commands/autotopup.js');
      await runScripted(cmd, (g) => autoTopUpRun(g, opts));
    });
}
