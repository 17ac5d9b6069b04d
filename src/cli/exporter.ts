/** `keydeck exporter`: every watched account's figures for Prometheus, headless (src/exporter/). */
import { Option, type Command } from 'commander';
import { inherits } from './inherited.js';

/**
 * Every `--profile NAME` / `--profile=NAME` on the command line: the program's own `--profile`
 * option takes them wherever they stand and keeps only the last, but the exporter's is repeatable.
 */
export function profileFlags(rawArgs: readonly string[]): string[] {
  const names: string[] = [];
  for (let i = 0; i < rawArgs.length; i++) {
    const arg = rawArgs[i]!;
    if (arg === '--') break;
    if (arg === '--profile' && i + 1 < rawArgs.length) names.push(rawArgs[++i]!);
    else if (arg.startsWith('--profile=')) names.push(arg.slice('--profile='.length));
  }
  return names;
}

/** Adds `exporter` to the program. */
export function registerExporter(program: Command): void {
  inherits(program.command('exporter'), ['--allow-insecure-http'])
    .description('serve every watched profile’s balance, keys and burn rates to Prometheus, with no terminal (one line per event on stderr)')
    .option('--listen <host:port>', 'where to serve /metrics and /healthz (default 127.0.0.1:9464; PORT or :PORT mean 127.0.0.1)')
    .option('--profile <name>', 'a profile to watch (repeatable; default the current profile)')
    .option('--all-profiles', 'watch every profile of the config file, following it on SIGHUP')
    .option('--interval <seconds>', 'seconds between each profile’s balance polls (at least 2; default 60)')
    .option('--token-file <profile=path>', 'read PROFILE’s token from the file PATH (for systemd LoadCredential=; repeatable)', (value: string, previous: string[] = []) => [...previous, value])
    .addOption(new Option('--log-format <format>', 'the log lines on stderr').choices(['logfmt', 'json']).default('logfmt'))
    .action(async (opts: { listen?: string; allProfiles?: boolean; interval?: string; tokenFile?: string[]; logFormat?: string }, cmd: Command) => {
      const { parseExporterFlags } = await import('../exporter/options.js');
      const { runExporter } = await import('../exporter/run.js');
      const { insecureHttpFromEnv } = await import('../api/baseUrl.js');
      // `--interval` and `--profile` are also the program's own options: read them from there too.
      const globals = cmd.optsWithGlobals<{ interval?: string; profile?: string; allowInsecureHttp?: boolean }>();
      const fromEnv = program.getOptionValueSource('profile') === 'env' ? globals.profile : undefined;
      const parsed = parseExporterFlags({
        ...opts,
        interval: opts.interval ?? globals.interval,
        // commander keeps the arguments it parsed as `rawArgs` (not in its types).
        profiles: profileFlags((program as unknown as { rawArgs?: string[] }).rawArgs ?? process.argv),
        envProfile: fromEnv,
        allowInsecureHttp: globals.allowInsecureHttp === true || insecureHttpFromEnv(),
      });
      if (!parsed.ok) {
        process.stderr.write(`keydeck: ${parsed.reason}\n`);
        process.exit(2);
      }
      const code = await runExporter({ ...parsed.options, version: program.version() ?? 'unknown' });
      // Nothing of the exporter's is left running; a keychain child that hung is not waited for.
      // Its last log lines reach stderr first, as `runCommand` lets a command's output (loaded
      // here, once the exporter has stopped: nothing of src/commands is on its way while it runs).
      const { flushed } = await import('../commands/output.js');
      await flushed(process.stderr);
      process.exit(code);
    });
}
