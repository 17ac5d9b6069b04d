/** `keydeck billing …`: balance, status, top-ups, history, watch (src/commands/billing.ts). */
import { Option, type Command } from 'commander';
import { CHAIN_OPTIONS, inherits, SERVICE_OPTIONS } from './inherited.js';
import { commandGroup, runLocal, runScripted } from './shared.js';

/** Adds `billing` to the program. */
export function registerBilling(program: Command): void {
  const billing = commandGroup(program, 'billing', 'the USD credit balance and top-ups: credits, status, cancel, topup, verify, history, watch', SERVICE_OPTIONS);
  billing
    .command('credits')
    .description('show the balance: remaining, totalTopUp, hasCreditKey, creditKeyCount, userId')
    .option('--json', 'print the service’s balance record as JSON')
    .action(async (opts: { json?: boolean }, cmd: Command) => {
      const { billingCredits } = await import('../commands/billingCredits.js');
      await runScripted(cmd, (g) => billingCredits(g, opts));
    });
  billing
    .command('status')
    .description('show the service’s billing status, as it sends it')
    .option('--json', 'print the service’s status data as JSON')
    .action(async (opts: { json?: boolean }, cmd: Command) => {
      const { billingStatus } = await import('../commands/billing.js');
      await runScripted(cmd, (g) => billingStatus(g, opts));
    });
  billing
    .command('cancel')
    .description('stop the renewal of a subscription or pool pledge: it stays active until its period ends, then ends (asks first)')
    .argument('<subscription-id>', 'the subscription’s or pledge’s id (keydeck billing status)')
    .option('-y, --yes', 'do not ask (required when stdin is not a terminal)')
    .option('--json', 'print { answer: the service’s answer, subscription: the entry as the billing status lists it afterwards } as JSON')
    .action(async (id: string, opts: { yes?: boolean; json?: boolean }, cmd: Command) => {
      const { billingCancel } = await import('../commands/billingCancel.js');
      await runScripted(cmd, (g) => billingCancel(g, id, opts));
    });
  inherits(billing.command('topup'), [...SERVICE_OPTIONS, ...CHAIN_OPTIONS])
    .description('start a top-up: a card checkout page, a card on file, or a USDC transfer on Base')
    .requiredOption('--amount <usd>', 'USD, at least 10, at most two decimals (10, 12.50)')
    .requiredOption(
      '--method <name>',
      'how to pay: usdc, card_checkout or card_direct (sent as the profile’s topUpMethods names), a name the profile declares, or the real service’s pages’ stripe and stripe_direct; any other name is refused before anything is sent',
    )
    .option('-y, --yes', 'do not ask before charging the card on file or above the profile’s ceiling (required then when stdin is not a terminal)')
    .option('--wait', 'USDC: watch the deposit address on chain and verify the transfer when it arrives (no hash to copy)')
    .option('--timeout <seconds>', 'with --wait: how long to watch (default 900)')
    .option('--json', 'print the service’s data (checkout session, USDC instruction, or card result) as JSON')
    .action(async (opts: { amount: string; method: string; yes?: boolean; wait?: boolean; timeout?: string; json?: boolean }, cmd: Command) => {
      const { billingTopUp } = await import('../commands/billing.js');
      await runScripted(cmd, (g) => billingTopUp(g, opts));
    });
  inherits(billing.command('verify'), [...SERVICE_OPTIONS, ...CHAIN_OPTIONS])
    .description('credit a USDC transfer by its transaction hash, after checking it on chain (--no-chain: the service alone)')
    .option('--tx <hash>', 'the Base transaction hash, 0x followed by 64 hex digits')
    .option(
      '--amount <usd>',
      'the USD amount sent, exactly as in the top-up instruction (default: the amount of the one USDC top-up awaiting payment; with --find: which top-up, when several await payment)',
    )
    .option('--to <address>', 'the deposit address the transfer paid: which top-up, when several await the same amount')
    .option('--find', 'no hash: watch the deposit address of the USDC top-up awaiting payment and verify the transfer that arrives')
    .option('--timeout <seconds>', 'with --find: how long to watch (default 900)')
    .option('-y, --yes', 'send the verify even when the chain shows a mismatch, without asking (required then when stdin is not a terminal)')
    .option('--json', 'print { credited, balance } as JSON')
    .action(async (opts: { tx?: string; amount?: string; to?: string; find?: boolean; timeout?: string; yes?: boolean; json?: boolean }, cmd: Command) => {
      const { billingVerify } = await import('../commands/billing.js');
      await runScripted(cmd, (g) => billingVerify(g, opts));
    });
  billing
    .command('history')
    .description('list the top-ups on this machine’s record for this service, newest first; --chart draws the balance over time (sends nothing)')
    .option('--json', 'print an array of { method, amount, state, createdAt, txHash?, sessionId?, credited?, address? }; with --chart the balance series')
    .option('--chart', 'draw the balance over --window from the balance history on disk, top-ups marked (sends nothing)')
    .addOption(new Option('--window <window>', 'the chart’s window').choices(['1h', '6h', '24h', '7d', '30d']))
    .option('--accept-loss', 'when the record cannot be trusted (exit 3 elsewhere), move it aside and start a new one, once you have checked what it held with the service')
    .option('-y, --yes', 'with --accept-loss: do not ask (required when stdin is not a terminal)')
    .action(async (opts: { json?: boolean; chart?: boolean; window?: string; acceptLoss?: boolean; yes?: boolean }, cmd: Command) => {
      const { billingAcceptLoss, billingHistory, billingHistoryChart } = await import('../commands/billingHistory.js');
      const misuse =
        opts.window !== undefined && !opts.chart
          ? '--window goes with --chart.'
          : (opts.acceptLoss && (opts.chart || opts.json)) || (opts.yes && !opts.acceptLoss)
            ? '--accept-loss goes alone (with --yes), without --chart or --json.'
            : undefined;
      if (misuse !== undefined) {
        const { fail, ExitCode } = await import('../commands/output.js');
        await runLocal(() => fail(ExitCode.usage, misuse, 'usage'), { json: opts.json === true });
      }
      await runScripted(cmd, (g) => (opts.acceptLoss ? billingAcceptLoss(g, opts) : opts.chart ? billingHistoryChart(g, opts) : billingHistory(g, opts)));
    });
  billing
    .command('watch')
    .description('print the balance once per change until ctrl-c; exit 3 as soon as it is below --alert-below')
    .option('--interval <seconds>', 'seconds between reads (at least 2; default the profile’s, 15)')
    .option('--alert-below <usd>', 'exit 3 when the remaining balance is below this many USD (default the profile’s)')
    .action(async (opts: { interval?: string; alertBelow?: string }, cmd: Command) => {
      const { billingWatch } = await import('../commands/billingWatch.js');
      // The flags may also be parsed as the root program's (the TUI's) options: read both.
      const flags = { ...cmd.optsWithGlobals<{ interval?: string; alertBelow?: string }>(), ...opts };
      await runScripted(cmd, (g) => billingWatch(g, flags));
    });
}
