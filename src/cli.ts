#!/usr/bin/env node
/**
 * keydeck's command line: parses argv (commander) and hands over to one face: the TUI,
 * a scriptable command, or the sandbox server. It holds no logic of its own, and it imports
 * every face lazily, so a command never pays for Ink and the TUI never pays for Fastify.
 *
 * Exit codes (shared by every command): 0 done, 1 refused by the service or the store,
 * 2 bad usage, 3 `billing watch` below its threshold, 4 network trouble.
 */
import { Argument, Command, Option } from 'commander';
import { createRequire } from 'node:module';
import { environmentHelp as environmentText } from './commands/environment.js';
// (The executable, src/bin.ts, checks the Node.js version and turns on the compile cache first.)

const { version } = createRequire(import.meta.url)('../package.json') as { version: string };

const program = new Command('keydeck')
  .description("A terminal manager for an inference service's account: keys, management keys, balance and top-ups.")
  .version(version, '-V, --version')
  .showSuggestionAfterError(true)
  .showHelpAfterError('(run with --help for usage)')
  .exitOverride((err) => {
    // commander's own errors are usage errors: exit 2 (help and version exit 0).
    process.exit(err.exitCode === 0 ? 0 : 2);
  })
  .option('--sandbox', 'start the embedded sandbox on a free loopback port and open the TUI against it')
  .addOption(new Option('--dialect <name>', 'with --sandbox: the shape of the sandbox’s answers (seed, docs-v1, docs-v2)').choices(['seed', 'docs-v1', 'docs-v2']))
  .addOption(new Option('--base-url <url>', 'use that service instead of the profile’s').env('KEYDECK_BASE_URL'))
  .addOption(new Option('--profile <name>', 'the profile to use').env('KEYDECK_PROFILE'))
  .option('--insecure-storage', 'store the management key in a file (mode 0600) when no keychain is available')
  .option('--allow-insecure-http', 'send the key over plain http:// to a host outside this machine (also KEYDECK_ALLOW_INSECURE_HTTP=1)')
  .option('--interval <seconds>', 'TUI: seconds between balance reads (at least 2; default the profile’s, 15)')
  .option('--alert-below <usd>', 'TUI: show LOW and ring the bell once when the balance drops below this many USD')
  .option('--on-low <command>', 'TUI and monitor: run this command line once per drop below --alert-below (figures in KEYDECK_* environment variables)')
  .option('--desktop-notifications', 'TUI and monitor: also show notifications on the desktop (notify-send, osascript)');

// ---- sandbox (src/commands/sandbox.ts) ----
program
  .command('sandbox')
  .description('run the sandbox server in the foreground (a local implementation of the service)')
  .option('--host <host>', 'address to listen on', '127.0.0.1')
  .option('--port <port>', 'port to listen on (0 picks a free one)', '8787')
  .option('--db <path>', 'SQLite database file (default: in the user data dir)')
  .addOption(new Option('--dialect <name>', 'answer in the shape of the seed (default) or of the real service’s older/newer documentation pages').choices(['seed', 'docs-v1', 'docs-v2']))
  .action(async (opts: { host: string; port: string; db?: string; dialect?: 'seed' | 'docs-v1' | 'docs-v2' }) => {
    const { runSandboxCommand } = await import('./commands/sandbox.js');
    // `--dialect` is also a global option (for --sandbox): commander may have given it to the program.
    const dialect = opts.dialect ?? program.opts<{ dialect?: 'seed' | 'docs-v1' | 'docs-v2' }>().dialect;
    await runSandboxCommand({ ...opts, ...(dialect !== undefined && { dialect }) });
  });
// ---- end sandbox ----

// ---- auth (src/commands/auth.ts, src/commands/doctor.ts) ----
const auth = program
  .command('auth')
  .description('sign in, show where the key is stored, sign out')
  .configureHelp({ showGlobalOptions: true });
auth
  .command('login')
  .description('turn a session token (or an mk_ key) into a management key stored in the OS keychain')
  .option('--token-stdin', 'read the token from stdin instead of asking for it')
  .option('--name <keyname>', 'name of the management key created from a session token (default "keydeck@<hostname> <profile> <date>", numbered when taken)')
  .action(async (opts: { tokenStdin?: boolean; name?: string }, cmd: Command) => {
    const { runCommand, globalOptionsOf } = await import('./commands/output.js');
    const { authLogin } = await import('./commands/auth.js');
    await runCommand(() => authLogin(globalOptionsOf(cmd), opts));
  });
auth
  .command('status')
  .description('show the profile, its base URL, where its key is stored (never the key) and whether the service accepts it')
  .option('--json', 'print { profile, baseUrl, store, keyPrefix, accepted, reason? } as JSON')
  .action(async (opts: { json?: boolean }, cmd: Command) => {
    const { runCommand, globalOptionsOf } = await import('./commands/output.js');
    const { authStatus } = await import('./commands/auth.js');
    await runCommand(() => authStatus(globalOptionsOf(cmd), opts));
  });
auth
  .command('logout')
  .description("forget the profile's stored key (keychain and file)")
  .option('--revoke', 'first delete that management key on the service')
  .action(async (opts: { revoke?: boolean }, cmd: Command) => {
    const { runCommand, globalOptionsOf } = await import('./commands/output.js');
    const { authLogout } = await import('./commands/auth.js');
    await runCommand(() => authLogout(globalOptionsOf(cmd), opts));
  });
program
  .command('doctor')
  .description('check the keychain, the config file, the key and the service; exit 1 when a check fails')
  .configureHelp({ showGlobalOptions: true })
  .option('--json', 'print { ok, checks: [{ name, ok, detail }] } as JSON')
  .action(async (opts: { json?: boolean }, cmd: Command) => {
    const { runCommand, globalOptionsOf } = await import('./commands/output.js');
    const { doctor } = await import('./commands/doctor.js');
    await runCommand(() => doctor(globalOptionsOf(cmd), opts));
  });
// ---- end auth ----

// ---- monitor (src/commands/monitor.ts, src/tui/panes/billing/monitor/) ----
program
  .command('monitor')
  .description('the live balance in a few lines (no full screen), for a tmux pane; q or ctrl-c leaves')
  .option('--interval <seconds>', 'seconds between balance reads (at least 2; default the profile’s, 15)')
  .option('--alert-below <usd>', 'ring the bell once when the balance drops below this many USD (default the profile’s)')
  .option('--metrics <host:port>', 'serve the figures as Prometheus/OpenMetrics text at http://HOST:PORT/metrics (host default 127.0.0.1)')
  .action(async (opts: { interval?: string; alertBelow?: string; metrics?: string }, cmd: Command) => {
    const { runCommand, globalOptionsOf } = await import('./commands/output.js');
    const { monitorCommand } = await import('./commands/monitor.js');
    // The flags may also be parsed as the root program's (the TUI's) options: read both.
    const flags = { ...cmd.optsWithGlobals<{ interval?: string; alertBelow?: string; onLow?: string; desktopNotifications?: boolean }>(), ...opts };
    await runCommand(() => monitorCommand(globalOptionsOf(cmd), flags, {
      // Ink loads only once the flags, the terminal and the key have been checked.
      render: async (input) => {
        const { importWithoutFetch } = await import('./tui/withoutFetch.js');
        return (await importWithoutFetch(() => import('./tui/panes/billing/monitor/runMonitor.js'))).runMonitor(input);
      },
    }));
  });
// ---- end monitor ----

// ---- keys, mgmt-keys, billing ----
// (src/commands/keys.ts, mgmt-keys.ts, billing.ts; shared: api-command.ts, input.ts, confirm.ts, table.ts)
/**
 * Runs a service-facing command with the global options of `cmd`; API errors become one
 * sentence naming the error code on stderr and exit 1/2/4 (src/commands/api-command.ts).
 */
async function runScripted(cmd: Command, body: (globals: import('./commands/output.js').GlobalOptions) => Promise<number>): Promise<void> {
  const { globalOptionsOf } = await import('./commands/output.js');
  const { runApiCommand } = await import('./commands/api-command.js');
  await runApiCommand(() => body(globalOptionsOf(cmd)));
}

/**
 * Makes a command group report a mistyped subcommand as keydeck does at the top level
 * (`keydeck: unknown command 'keys lst'. Did you mean 'keys list'?`, exit 2); without a
 * subcommand it shows its help (exit 2).
 */
function reportUnknownSubcommands(group: Command): Command {
  // `keydeck keys help list` keeps working: commander drops its implicit help command once a group has an action.
  return group.helpCommand(true).allowExcessArguments().action(async () => {
    if (group.args.length === 0) group.help({ error: true });
    const { unknownCommandSentence } = await import('./commands/suggest.js');
    const names = group.createHelp().visibleCommands(group).map((c) => c.name());
    process.stderr.write(`keydeck: ${unknownCommandSentence(group.args[0]!, names, group.name())}\n`);
    process.exit(2);
  });
}

const keys = program
  .command('keys')
  .description('consumption keys (sk_): list, create credit keys, rename, enable, disable, delete')
  .configureHelp({ showGlobalOptions: true });
reportUnknownSubcommands(keys);
keys
  .command('list')
  .description('list the consumption keys: id, name, keyType, keyPlan, status, expires, createdAt (never a key value)')
  .option('--json', 'print the service’s array of keys as JSON')
  .action(async (opts: { json?: boolean }, cmd: Command) => {
    const { keysList } = await import('./commands/keys.js');
    await runScripted(cmd, (g) => keysList(g, opts));
  });
keys
  .command('create')
  .description('create a credit key (needs a balance above 0) and print its sk_ value, the only time it is shown')
  .requiredOption('--name <name>', 'label of the key (1–128 characters)')
  .option('--json', 'print the created key (with apiKey) as JSON')
  .action(async (opts: { name: string; json?: boolean }, cmd: Command) => {
    const { keysCreate } = await import('./commands/keys.js');
    await runScripted(cmd, (g) => keysCreate(g, opts));
  });
keys
  .command('rename')
  .description('rename a consumption key')
  .argument('<id>', 'the key’s id (keydeck keys list)')
  .requiredOption('--name <name>', 'the new label (1–128 characters)')
  .option('--json', 'print the service’s answer as JSON (null when empty)')
  .action(async (id: string, opts: { name: string; json?: boolean }, cmd: Command) => {
    const { keysRename } = await import('./commands/keys.js');
    await runScripted(cmd, (g) => keysRename(g, id, opts));
  });
keys
  .command('enable')
  .description('reactivate a disabled consumption key')
  .argument('<id>', 'the key’s id (keydeck keys list)')
  .option('--json', 'print the service’s answer as JSON (null when empty)')
  .action(async (id: string, opts: { json?: boolean }, cmd: Command) => {
    const { keysSetActive } = await import('./commands/keys.js');
    await runScripted(cmd, (g) => keysSetActive(g, id, true, opts));
  });
keys
  .command('disable')
  .description('pause a consumption key: it is refused at once until enabled again (asks first)')
  .argument('<id>', 'the key’s id (keydeck keys list)')
  .option('-y, --yes', 'do not ask (required when stdin is not a terminal)')
  .option('--json', 'print the service’s answer as JSON (null when empty)')
  .action(async (id: string, opts: { yes?: boolean; json?: boolean }, cmd: Command) => {
    const { keysSetActive } = await import('./commands/keys.js');
    await runScripted(cmd, (g) => keysSetActive(g, id, false, opts));
  });
keys
  .command('delete')
  .description('delete a consumption key for good (asks first)')
  .argument('<id>', 'the key’s id (keydeck keys list)')
  .option('-y, --yes', 'do not ask (required when stdin is not a terminal)')
  .option('--json', 'print the service’s answer ({ "deleted": true }) as JSON')
  .action(async (id: string, opts: { yes?: boolean; json?: boolean }, cmd: Command) => {
    const { keysDelete } = await import('./commands/keys.js');
    await runScripted(cmd, (g) => keysDelete(g, id, opts));
  });

const mgmtKeys = program
  .command('mgmt-keys')
  .description('management keys (mk_): list, create, delete')
  .configureHelp({ showGlobalOptions: true });
reportUnknownSubcommands(mgmtKeys);
mgmtKeys
  .command('list')
  .description('list the management keys: id, name, keyPrefix, isActive, lastUsedAt, createdAt')
  .option('--json', 'print the service’s array of keys as JSON')
  .action(async (opts: { json?: boolean }, cmd: Command) => {
    const { mgmtKeysList } = await import('./commands/mgmt-keys.js');
    await runScripted(cmd, (g) => mgmtKeysList(g, opts));
  });
mgmtKeys
  .command('create')
  .description('create a management key and print its mk_ value, the only time it is shown')
  .requiredOption('--name <name>', 'label of the key (1–128 characters)')
  .option('--json', 'print the created key (with apiKey) as JSON')
  .action(async (opts: { name: string; json?: boolean }, cmd: Command) => {
    const { mgmtKeysCreate } = await import('./commands/mgmt-keys.js');
    await runScripted(cmd, (g) => mgmtKeysCreate(g, opts));
  });
mgmtKeys
  .command('delete')
  .description('delete a management key (asks first); deleting the one keydeck uses signs keydeck out')
  .argument('<id>', 'the key’s id (keydeck mgmt-keys list)')
  .option('-y, --yes', 'do not ask (required when stdin is not a terminal)')
  .option('--json', 'print the service’s answer as JSON (null when empty)')
  .action(async (id: string, opts: { yes?: boolean; json?: boolean }, cmd: Command) => {
    const { mgmtKeysDelete } = await import('./commands/mgmt-keys.js');
    await runScripted(cmd, (g) => mgmtKeysDelete(g, id, opts));
  });

const billing = program
  .command('billing')
  .description('the USD credit balance and top-ups: credits, status, topup, verify, history, watch')
  .configureHelp({ showGlobalOptions: true });
reportUnknownSubcommands(billing);
billing
  .command('credits')
  .description('show the balance: remaining, totalTopUp, hasCreditKey, creditKeyCount, userId')
  .option('--json', 'print the service’s balance record as JSON')
  .action(async (opts: { json?: boolean }, cmd: Command) => {
    const { billingCredits } = await import('./commands/billing.js');
    await runScripted(cmd, (g) => billingCredits(g, opts));
  });
billing
  .command('status')
  .description('show the service’s billing status, as it sends it')
  .option('--json', 'print the service’s status data as JSON')
  .action(async (opts: { json?: boolean }, cmd: Command) => {
    const { billingStatus } = await import('./commands/billing.js');
    await runScripted(cmd, (g) => billingStatus(g, opts));
  });
billing
  .command('topup')
  .description('start a top-up: a card checkout page, a card on file, or a USDC transfer on Base')
  .requiredOption('--amount <usd>', 'USD, at least 10, at most two decimals (10, 12.50)')
  .requiredOption(
    '--method <name>',
    'how to pay: card_checkout, card_direct or usdc (sent as the profile’s topUpMethods names), or any other method name, sent as given (the real service’s pages: stripe, stripe_direct, usdc)',
  )
  .option('-y, --yes', 'do not ask before charging the card on file or above the profile’s ceiling (required then when stdin is not a terminal)')
  .option('--json', 'print the service’s data (checkout session, USDC instruction, or card result) as JSON')
  .action(async (opts: { amount: string; method: string; yes?: boolean; json?: boolean }, cmd: Command) => {
    const { billingTopUp } = await import('./commands/billing.js');
    await runScripted(cmd, (g) => billingTopUp(g, opts));
  });
billing
  .command('verify')
  .description('credit a USDC transfer by its transaction hash')
  .requiredOption('--tx <hash>', 'the Base transaction hash, 0x followed by 64 hex digits')
  .requiredOption('--amount <usd>', 'the USD amount sent, exactly as in the top-up instruction')
  .option('--json', 'print { credited, balance } as JSON')
  .action(async (opts: { tx: string; amount: string; json?: boolean }, cmd: Command) => {
    const { billingVerify } = await import('./commands/billing.js');
    await runScripted(cmd, (g) => billingVerify(g, opts));
  });
billing
  .command('history')
  .description('list the top-ups on this machine’s record for this service, newest first; --chart draws the balance over time (sends nothing)')
  .option('--json', 'print an array of { method, amount, state, createdAt, txHash?, sessionId?, credited?, address? }; with --chart the balance series')
  .option('--chart', 'draw the balance over --window from the balance history on disk, top-ups marked (sends nothing)')
  .addOption(new Option('--window <window>', 'the chart’s window').choices(['1h', '6h', '24h', '7d', '30d']))
  .action(async (opts: { json?: boolean; chart?: boolean; window?: string }, cmd: Command) => {
    const { billingHistory, billingHistoryChart } = await import('./commands/billing.js');
    if (opts.window !== undefined && !opts.chart) {
      process.stderr.write('keydeck: --window goes with --chart.\n');
      process.exit(2);
    }
    await runScripted(cmd, (g) => (opts.chart ? billingHistoryChart(g, opts) : billingHistory(g, opts)));
  });
billing
  .command('watch')
  .description('print the balance once per change until ctrl-c; exit 3 as soon as it is below --alert-below')
  .option('--interval <seconds>', 'seconds between reads (at least 2; default the profile’s, 15)')
  .option('--alert-below <usd>', 'exit 3 when the remaining balance is below this many USD (default the profile’s)')
  .action(async (opts: { interval?: string; alertBelow?: string }, cmd: Command) => {
    const { billingWatch } = await import('./commands/billing.js');
    // The flags may also be parsed as the root program's (the TUI's) options: read both.
    const flags = { ...cmd.optsWithGlobals<{ interval?: string; alertBelow?: string }>(), ...opts };
    await runScripted(cmd, (g) => billingWatch(g, flags));
  });
// ---- end keys, mgmt-keys, billing ----

// ---- profile, completion, environment (src/commands/profile.ts, completion.ts, environment.ts) ----
const profile = program
  .command('profile')
  .description('see, add, switch and remove profiles (the config file) without editing it')
  .configureHelp({ showGlobalOptions: true });
reportUnknownSubcommands(profile);
profile
  .command('list')
  .description('list the profiles: * current, name, baseUrl, poll interval, alert threshold')
  .option('--json', 'print { current, configPath, profiles: [{ name, current, baseUrl, pollIntervalSeconds, alertBelowUsd }] }')
  .action(async (opts: { json?: boolean }) => {
    const { runCommand } = await import('./commands/output.js');
    const { profileList } = await import('./commands/profile.js');
    await runCommand(() => profileList(opts));
  });
profile
  .command('show')
  .description('show a profile (default the current one): settings and where its key is stored (never the key)')
  .argument('[name]', 'the profile (default: --profile, KEYDECK_PROFILE, else the current one)')
  .option('--json', 'print the profile and { key: { store, keyPrefix } | null } as JSON')
  .action(async (name: string | undefined, opts: { json?: boolean }, cmd: Command) => {
    const { runCommand, globalOptionsOf } = await import('./commands/output.js');
    const { profileShow } = await import('./commands/profile.js');
    await runCommand(() => profileShow(name ?? globalOptionsOf(cmd).profile, opts));
  });
profile
  .command('use')
  .description('make a profile the current one (config.json currentProfile)')
  .argument('<name>', 'an existing profile (keydeck profile list)')
  .action(async (name: string) => {
    const { runCommand } = await import('./commands/output.js');
    const { profileUse } = await import('./commands/profile.js');
    await runCommand(() => profileUse(name));
  });
profile
  .command('add')
  .description('add a profile for a service (then sign in: keydeck --profile NAME auth login)')
  .argument('<name>', '1–64 letters, digits, ".", "_" or "-"')
  .option('--interval <seconds>', 'seconds between balance reads (at least 2; default 15)')
  .option('--alert-below <usd>', 'low-balance threshold in USD')
  .option('--use', 'also make it the current profile')
  .addHelpText('after', '\n--base-url URL (required): the service’s base URL (https://…; http only on loopback)')
  .action(async (name: string, opts: { interval?: string; alertBelow?: string; use?: boolean }, cmd: Command) => {
    const { runCommand, globalOptionsOf, fail, ExitCode } = await import('./commands/output.js');
    const { profileAdd } = await import('./commands/profile.js');
    // --base-url is the root program's option (it is global): read it from there.
    // (and --interval / --alert-below may be parsed as the root program's (the TUI's) options: read both).
    const baseUrl = globalOptionsOf(cmd).baseUrl;
    const flags = { ...cmd.optsWithGlobals<{ interval?: string; alertBelow?: string }>(), ...opts };
    const settings = { ...(flags.interval !== undefined && { interval: flags.interval }), ...(flags.alertBelow !== undefined && { alertBelow: flags.alertBelow }), ...(opts.use && { use: true }) };
    await runCommand(() => (baseUrl === undefined ? fail(ExitCode.usage, 'profile add needs --base-url URL') : profileAdd(name, { ...settings, baseUrl })));
  });
profile
  .command('remove')
  .description('remove a profile from the config file (a key stored for it is kept: keydeck --profile NAME auth logout forgets it)')
  .argument('<name>', 'the profile (keydeck profile list)')
  .action(async (name: string) => {
    const { runCommand } = await import('./commands/output.js');
    const { profileRemove } = await import('./commands/profile.js');
    await runCommand(() => profileRemove(name));
  });

program
  .command('completion')
  .description('print the shell completion script (commands, options, profile names, key ids): source <(keydeck completion bash)')
  .addArgument(new Argument('<shell>', 'the shell').choices(['bash', 'zsh', 'fish']))
  .action(async (shell: 'bash' | 'zsh' | 'fish') => {
    const { completionScript } = await import('./commands/completion.js');
    process.stdout.write(completionScript(shell));
  });
program
  .command('__complete', { hidden: true })
  .argument('[words...]')
  .helpOption(false)
  .allowUnknownOption()
  .action(async (words: string[]) => {
    const { completeWords, within } = await import('./commands/completion.js');
    const { profileNames } = await import('./commands/profile.js');
    const at = words.indexOf('--profile');
    const chosenProfile = at >= 0 ? words[at + 1] : undefined;
    const candidates = await completeWords(program, words.length > 0 ? words : [''], {
      profiles: () => profileNames(),
      keyIds: () =>
        within(
          (async () => {
            const { openSession } = await import('./commands/output.js');
            const { client } = await openSession(
              { ...(chosenProfile && { profile: chosenProfile }), ...(program.opts().baseUrl && { baseUrl: program.opts().baseUrl as string }) },
              { spinner: false, client: { timeoutMs: 2000, retries: 0 } },
            );
            try {
              return (await client.listKeys()).map((k) => k.id);
            } finally {
              client.close();
            }
          })(),
          2000,
        ),
    });
    process.stdout.write(candidates.length > 0 ? `${candidates.join('\n')}\n` : '');
    process.exit(0);
  });

// `keydeck help environment`: a help topic, not a command.
const environment = program.command('environment', { hidden: true }).description('every environment variable keydeck reads');
environment.helpInformation = () => environmentText();
environment.action(() => {
  process.stdout.write(environmentText());
});
program.addHelpText('after', '\nEnvironment variables: keydeck help environment\n');
// ---- end profile, completion, environment ----

// ---- default action: the TUI ----
// A mistyped command reaches the default action as an argument: report it (exit 2), never open the TUI.
// (`keydeck help keys` needs the help command forced on: commander drops it when the root has an action.)
program.helpCommand(true).allowExcessArguments();
program.action(async () => {
  if (program.args.length > 0) {
    const { unknownCommandSentence } = await import('./commands/suggest.js');
    const names = program.createHelp().visibleCommands(program).map((c) => c.name());
    process.stderr.write(`keydeck: ${unknownCommandSentence(program.args[0]!, names)}\n`);
    process.exit(2);
  }
  const { dialect, ...globals } = program.opts<import('./tui/run.js').TuiGlobals & { interval?: string; alertBelow?: string; dialect?: 'seed' | 'docs-v1' | 'docs-v2' }>();
  // Bad settings are usage errors, reported before anything is drawn.
  let settings = {};
  if (globals.interval !== undefined || globals.alertBelow !== undefined) {
    const { parseWatchFlags } = await import('./billing/settings.js');
    const parsed = parseWatchFlags(globals);
    if (!parsed.ok) {
      process.stderr.write(`keydeck: ${parsed.reason}.\n`);
      process.exit(2);
    }
    settings = parsed.value;
  }
  if (!process.stdin.isTTY || !process.stdout.isTTY) {
    process.stderr.write(
      'keydeck: the full-screen app needs a terminal. For scripts use the commands: keydeck keys|mgmt-keys|billing|auth --help\n',
    );
    process.exit(2);
  }
  if (process.env.TERM === 'dumb') {
    process.stderr.write(
      'keydeck: the full-screen app needs a capable terminal (TERM=dumb cannot move the cursor). ' +
        'Use the commands instead: keydeck keys list, keydeck billing credits, keydeck billing watch, keydeck --help\n',
    );
    process.exit(2);
  }
  // Ink's layout engine would load Node's fetch (undici) only to decode itself: src/tui/withoutFetch.ts.
  const { importWithoutFetch } = await import('./tui/withoutFetch.js');
  const { runTui } = await importWithoutFetch(() => import('./tui/run.js'));
  await runTui({ ...globals, ...settings, ...(dialect !== undefined && { sandboxDialect: dialect }) });
});

await program.parseAsync(process.argv);
