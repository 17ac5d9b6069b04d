/**
 * `keydeck profile …`, `keydeck completion`, the hidden `__complete` and the `help environment`
 * topic (src/commands/profile.ts, completion.ts, environment.ts).
 */
import path from 'node:path';
import { Argument, type Command } from 'commander';
import { environmentHelp as environmentText } from '../commands/environment.js';
import { inherits } from './inherited.js';
import { commandGroup, runLocal } from './shared.js';

/** Adds `profile` to the program. */
export function registerProfile(program: Command): void {
  const profile = commandGroup(program, 'profile', 'see, add, switch and remove profiles (the config file) without editing it', []);
  profile
    .command('list')
    .description('list the profiles: * current, name, baseUrl, poll interval, alert threshold, marks (read-only, protected)')
    .option('--json', 'print { current, configPath, profiles: [{ name, current, baseUrl, origin, pollIntervalSeconds, alertBelowUsd, readOnly, protected }] }')
    .action(async (opts: { json?: boolean }) => {
      const { profileList } = await import('../commands/profile.js');
      await runLocal(() => profileList(opts), { json: opts.json === true });
    });
  inherits(profile.command('show'), ['--profile'])
    .description('show a profile (default the current one): settings and where its key is stored (never the key)')
    .argument('[name]', 'the profile (default: --profile, KEYDECK_PROFILE, else the current one)')
    .option('--json', 'print the profile and { key: { store, keyPrefix } | null } as JSON')
    .action(async (name: string | undefined, opts: { json?: boolean }, cmd: Command) => {
      const { globalOptionsOf } = await import('../commands/output.js');
      const { profileShow } = await import('../commands/profile.js');
      await runLocal(() => profileShow(name ?? globalOptionsOf(cmd).profile, opts), { json: opts.json === true });
    });
  profile
    .command('use')
    .description('make a profile the current one (config.json currentProfile)')
    .argument('<name>', 'an existing profile (keydeck profile list)')
    .action(async (name: string) => {
      const { profileUse } = await import('../commands/profile.js');
      await runLocal(() => profileUse(name));
    });
  inherits(profile.command('add'), ['--base-url'])
    .description('add a profile for a service (then sign in: keydeck --profile NAME auth login)')
    .argument('<name>', '1–64 letters, digits, ".", "_" or "-"')
    .option('--interval <seconds>', 'seconds between balance reads (at least 2; default 15)')
    .option('--alert-below <usd>', 'low-balance threshold in USD')
    .option('--use', 'also make it the current profile')
    .addHelpText('after', '\n--base-url URL (required): the service’s base URL (https://…; http only on loopback)')
    .action(async (name: string, opts: { interval?: string; alertBelow?: string; use?: boolean }, cmd: Command) => {
      const { globalOptionsOf, fail, ExitCode } = await import('../commands/output.js');
      const { profileAdd } = await import('../commands/profile.js');
      const { accountWords } = await import('../commands/wordingAccount.js');
      // --base-url is the root program's option (it is global): read it from there.
      // (and --interval / --alert-below may be parsed as the root program's (the TUI's) options: read both).
      const baseUrl = globalOptionsOf(cmd).baseUrl;
      const flags = { ...cmd.optsWithGlobals<{ interval?: string; alertBelow?: string }>(), ...opts };
      const settings = { ...(flags.interval !== undefined && { interval: flags.interval }), ...(flags.alertBelow !== undefined && { alertBelow: flags.alertBelow }), ...(opts.use && { use: true }) };
      await runLocal(() => (baseUrl === undefined ? fail(ExitCode.usage, accountWords.profileAddNeedsBaseUrl) : profileAdd(name, { ...settings, baseUrl })));
    });
  profile
    .command('set')
    .description('mark a profile: read-only (keydeck changes nothing on its account) or protected (a delete or a deactivation asks for the key’s name typed)')
    .argument('<name>', 'an existing profile (keydeck profile list)')
    .option('--read-only', 'mark it read-only: every create, change, delete, top-up and verify is refused (exit 3)')
    .option('--no-read-only', 'lift the read-only mark')
    .option('--protected', 'mark it protected: deleting or deactivating a key asks for its name typed (--confirm-name NAME in scripts)')
    .option('--no-protected', 'lift the protected mark')
    .action(async (name: string, _opts: unknown, cmd: Command) => {
      const { profileSet } = await import('../commands/profile.js');
      // --read-only is also the program's own option (this run changes nothing): here it names the mark either way.
      const marks = cmd.optsWithGlobals<{ readOnly?: boolean; protected?: boolean }>();
      await runLocal(() => profileSet(name, { ...(marks.readOnly !== undefined && { readOnly: marks.readOnly }), ...(marks.protected !== undefined && { protected: marks.protected }) }));
    });
  profile
    .command('remove')
    .description('remove a profile from the config file (a key stored for it is kept: keydeck --profile NAME auth logout forgets it)')
    .argument('<name>', 'the profile (keydeck profile list)')
    .action(async (name: string) => {
      const { profileRemove } = await import('../commands/profile.js');
      await runLocal(() => profileRemove(name));
    });
}

/** Adds `completion`, the hidden `__complete` (used by the scripts it prints) and `help environment`. */
export function registerShellHelpers(program: Command): void {
  program
    .command('completion')
    .description('print the shell completion script (commands, options, profile names, key ids): source <(keydeck completion bash)')
    .addArgument(new Argument('<shell>', 'the shell').choices(['bash', 'zsh', 'fish']))
    .action(async (shell: 'bash' | 'zsh' | 'fish') => {
      const { completionScript, selfInvocation } = await import('../commands/completion.js');
      // In a clone nothing named keydeck is on PATH (npx runs it): the script then calls this program by its path.
      const { default: which } = await import('which');
      const onPath = which.sync('keydeck', { nothrow: true }) !== null;
      const { invoke, advice } = selfInvocation(onPath, process.execPath, path.resolve(process.argv[1] ?? 'keydeck'));
      process.stdout.write(completionScript(shell, 'keydeck', invoke));
      if (advice !== undefined) process.stderr.write(`warning: ${advice}.\n`);
    });
  program
    .command('__complete', { hidden: true })
    .argument('[words...]')
    .helpOption(false)
    .allowUnknownOption()
    .action(async (words: string[]) => {
      // The same as src/complete.ts answers from dist/completion.json without loading the program.
      const { commandTreeOf, runCompletion } = await import('../commands/completion.js');
      await runCompletion(commandTreeOf(program), words, program.opts().baseUrl as string | undefined);
    });

  // `keydeck help environment`: a help topic, not a command.
  const environment = program.command('environment', { hidden: true }).description('every environment variable keydeck reads');
  environment.helpInformation = () => environmentText();
  environment.action(() => {
    process.stdout.write(environmentText());
  });
  // The program's help (src/cli/overview.ts) names it.
}
