/**
 * The command line as one commander `Command`, built without parsing anything: `src/cli.ts` parses
 * argv with it, and the manual's drift test (test/docs/) reads every command and flag from it.
 *
 * What lives here (src/cli/): one module per command group, each `register…(program)`; they only
 * define commands and import their faces lazily (src/commands/*, src/tui/* for the TUI and the
 * monitor, src/commands/sandbox.ts), so defining the program loads nothing but commander. Nothing
 * imports src/cli/ but src/cli.ts and the tests.
 *
 * Exit codes (shared by every command): 0 done, 1 refused by the service or the store,
 * 2 bad usage, 3 `billing watch` below its threshold, 4 network trouble.
 */
import { Command, Option } from 'commander';
import { registerAuth } from './auth.js';
import { registerAutoTopUp } from './autotopup.js';
import { registerBilling } from './billing.js';
import { styleErrors } from './errors.js';
import { registerExporter } from './exporter.js';
import { registerHelp } from './help.js';
import { pointToTheRest } from './inherited.js';
import { registerKeys, registerMgmtKeys } from './keys.js';
import { registerMonitor } from './monitor.js';
import { registerPolicy } from './policy.js';
import { registerPools } from './pools.js';
import { registerProfile, registerShellHelpers } from './profile.js';
import { registerSandbox } from './sandbox.js';
import { DIALECTS } from './shared.js';
import { registerTuiAction } from './tui.js';
import { registerKeyInfo } from './usage.js';

/**
 * The top-level commands each module defines, in the order the program lists them, so that a run
 * of one command can define that command alone ({@link createProgram}'s `args`). `help` (./help.ts,
 * always defined) and the shell helpers (`completion`, `__complete`, `environment`) read the whole
 * program: theirs is never defined alone.
 */
const DEFINERS: ReadonlyArray<readonly [readonly string[], (program: Command) => void]> = [
  [['sandbox'], registerSandbox],
  [['auth', 'doctor'], registerAuth],
  [['monitor'], registerMonitor],
  [['exporter'], registerExporter],
  [['keys'], registerKeys],
  [['mgmt-keys'], registerMgmtKeys],
  [['key-info'], registerKeyInfo],
  [['billing'], registerBilling],
  [['autotopup'], registerAutoTopUp],
  [['plan', 'apply'], registerPolicy],
  [['pools'], registerPools],
  [['profile'], registerProfile],
  [[], registerShellHelpers],
];

/**
 * The top-level command `args` (the arguments after the script) run: the first operand after the
 * program's own options (a value-taking one skips its value, `--profile NAME`). Undefined when
 * there is none, or when the program is asked for itself: `--`, `--help`, `--version`, an option
 * the program does not define.
 */
export function invokedCommand(program: Command, args: readonly string[]): string | undefined {
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (!arg.startsWith('-') || arg === '-') return arg;
    const flag = arg.split('=', 1)[0]!;
    const option = program.options.find((o) => o.long === flag || o.short === flag);
    if (option === undefined || option.long === '--version' || option.optional) return undefined;
    if (option.required && flag === arg) i++; // `--profile NAME`: NAME is the option's
  }
  return undefined;
}

/**
 * Builds keydeck's whole command line. `version` is shown by `--version`. Usage errors, commander's
 * and keydeck's, are two lines on stderr and exit 2 (./errors.ts); help and version exit 0.
 * With `args` (the arguments of this run, ./main.ts), a run of one top-level command (`keys list
 * …`) gets a program that defines that command alone, with its whole subtree, every global option
 * and the default action: what commander parses, prints and refuses for that run is the same
 * (test/commands/program.test.ts compares each command's subtree with the whole program's), and
 * defining the ~80 others would cost a one-shot command ~4 % of its start (docs/performance.md).
 * Anything else (no command, an unknown one, `help`, `--help` before the command) gets the whole
 * program.
 */
export function createProgram(version: string, args?: readonly string[]): Command {
  const program = new Command('keydeck')
    .description("A terminal manager for an inference service's account: keys, management keys, balance and top-ups.")
    .version(version, '-V, --version')
    .showSuggestionAfterError(true)
    .option('--sandbox', "use the sandbox's demo account in the data dir, for the TUI and every command alike: started on its loopback port, or the one another keydeck runs")
    .addOption(new Option('--dialect <name>', 'with --sandbox: the shape of the sandbox’s answers (seed, docs-v1, docs-v2)').choices(DIALECTS))
    .addOption(new Option('--chain <node>', 'with --sandbox: run its USDC transfers on a real local chain (anvil, from the devDependencies)').choices(['anvil']))
    .option('--no-chain', 'never read the chain: USDC transfers are judged by the service alone (also KEYDECK_CHAIN_CHECKS=0)')
    .option('--chain-rpc <url>', 'read USDC transfers through this Base JSON-RPC endpoint (https, or http to this machine; also KEYDECK_CHAIN_RPC)')
    .addOption(new Option('--base-url <url>', 'use that service instead of the profile’s').env('KEYDECK_BASE_URL'))
    .addOption(
      new Option('--profile <name>', 'the profile to use (else KEYDECK_PROFILE, a .keydeck file or profileRules for this directory, else the default: keydeck auth status says which)').env(
        'KEYDECK_PROFILE',
      ),
    )
    .option('--read-only', 'change nothing on the account in this run, as a profile marked readOnly: every create, change, delete, top-up and verify is refused (exit 3)')
    .option('--insecure-storage', 'store the management key in a file (mode 0600) when no keychain is available')
    .option('--allow-insecure-http', 'send the key over plain http:// to a host outside this machine (also KEYDECK_ALLOW_INSECURE_HTTP=1)')
    .option('--interval <seconds>', 'TUI: seconds between balance reads (at least 2; default the profile’s, 15)')
    .option('--alert-below <usd>', 'TUI: show LOW and ring the bell once when the balance drops below this many USD')
    .option('--on-low <command>', 'TUI and monitor: run this command line once per drop below --alert-below (figures in KEYDECK_* environment variables)')
    .option('--on-anomaly <command>', 'TUI and monitor: run this command line once per runaway key or fast-falling balance (figures in KEYDECK_* environment variables)')
    .option('--desktop-notifications', 'TUI and monitor: also show notifications on the desktop (notify-send, osascript)')
    .option(
      '--auto-topup',
      'TUI, monitor and exporter: act on the profile’s auto top-up policy (keydeck autotopup set) after each balance read: charge the card on file below its threshold, within its caps',
    )
    .option('--on-auto-topup <command>', 'TUI and monitor: run this command line after each charge auto top-up makes (figures in KEYDECK_* environment variables)')
    .option('--quiet', 'no warnings on stderr (errors still); also KEYDECK_QUIET=1')
    // `--quiet` reaches every warning through the environment of this command (src/commands/output.ts).
    .hook('preAction', (root) => {
      if (root.opts().quiet === true) process.env.KEYDECK_QUIET = '1';
    });
  const invoked = args === undefined ? undefined : invokedCommand(program, args);
  const alone = DEFINERS.find(([names]) => invoked !== undefined && names.includes(invoked));
  for (const definer of DEFINERS) if (alone === undefined || definer === alone) definer[1](program);
  registerTuiAction(program);
  registerHelp(program);
  // Every command's errors in keydeck's style (./errors.ts), its help ending with where the rest is (./inherited.ts).
  styleErrors(program);
  pointToTheRest(program);
  return program;
}
