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

/** The exporter's flags, shared by `keydeck exporter` and `keydeck doctor --exporter`. */
export interface ExporterCliFlags {
  listen?: string;
  allProfiles?: boolean;
  interval?: string;
  tokenFile?: string[];
  tokenDir?: string;
  logFormat?: string;
  logLevel?: string;
}

/** Adds the options every exporter setup reads (`--listen`, `--all-profiles`, `--token-file`, `--token-dir`) to `command`. */
export function exporterSetupOptions(command: Command): Command {
  return command
    .option('--listen <host:port>', 'where to serve /metrics, /healthz and /readyz (default 127.0.0.1:9464; PORT or :PORT mean 127.0.0.1)')
    .option('--all-profiles', 'watch every profile of the config file, following it on SIGHUP')
    .option('--token-file <profile=path>', 'read PROFILE’s token from the file PATH (for systemd LoadCredential=; repeatable)', (value: string, previous: string[] = []) => [...previous, value])
    .option('--token-dir <dir>', 'read each profile’s token from DIR/<profile>, again on SIGHUP (a profile added, a token rotated)');
}

/**
 * The checked exporter options from a command's flags (`cmd`: `exporter` or `doctor`), or the
 * usage error written as one line (`log`: in the chosen log format; `text`: `keydeck: …`) and exit 2.
 */
export async function exporterOptionsOf(program: Command, cmd: Command, opts: ExporterCliFlags, usage: 'log' | 'text' = 'log') {
  const { parseExporterFlags } = await import('../exporter/options.js');
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
    if (parsed.logFormat === undefined || usage === 'text') process.stderr.write(`keydeck: ${parsed.reason}\n`);
    else (await import('../exporter/log.js')).createLogger(parsed.logFormat).error('usage', { msg: parsed.reason });
    process.exit(2);
  }
  return parsed.options;
}

/** The `--log-format` the command line asks for (`json`, else logfmt), read before commander has parsed it. */
function askedLogFormat(rawArgs: readonly string[]): 'json' | 'logfmt' {
  for (let i = 0; i < rawArgs.length; i++) {
    if (rawArgs[i] === '--log-format' && rawArgs[i + 1] === 'json') return 'json';
    if (rawArgs[i] === '--log-format=json') return 'json';
  }
  return 'logfmt';
}

/**
 * commander's own usage errors for `exporter` (an unknown option, a missing value) as log lines in
 * the asked `--log-format`, as every line the exporter writes. Written without the log
 * module (defining the program loads nothing but commander): `event=usage`, the text JSON-quoted
 * (a valid logfmt value), one line per line of commander's.
 */
function usageLines(program: Command, text: string): string {
  const format = askedLogFormat((program as unknown as { rawArgs?: string[] }).rawArgs ?? process.argv);
  const time = new Date().toISOString();
  return text
    .split('\n')
    .map((line) => line.replace(/^(error|keydeck): /, '').trim())
    .filter((line) => line !== '')
    .map((msg) => (format === 'json' ? JSON.stringify({ time, level: 'error', event: 'usage', msg }) : `time=${time} level=error event=usage msg=${JSON.stringify(msg)}`))
    .map((line) => `${line}\n`)
    .join('');
}

/** Adds `exporter` to the program. */
export function registerExporter(program: Command): void {
  exporterSetupOptions(
    inherits(program.command('exporter'), ['--allow-insecure-http', '--sandbox', '--auto-topup'])
      .description('serve every watched profile’s balance, keys and burn rates to Prometheus, with no terminal (one line per event on stderr)')
      .configureOutput({ writeErr: (text) => process.stderr.write(usageLines(program, text)) }),
  )
    .option('--profile <name>', 'a profile to watch (repeatable; default the current profile)')
    .option('--interval <seconds>', 'seconds between each profile’s balance polls (at least 2; default 60)')
    .addOption(new Option('--log-format <format>', 'the log lines on stderr').choices(['logfmt', 'json']).default('logfmt'))
    .addOption(new Option('--log-level <level>', 'the least severe log lines written (debug: one line per poll)').choices(['debug', 'info', 'warn', 'error']).default('info'))
    .option('--enforce', 'act on each watched profile’s guardrails (keydeck apply stores them) after each poll: budgets, expiry, rotation (docs/guardrails.md)')
    .option('--on-guardrail <command>', 'with --enforce: run this command line for each thing a guardrail says or does (figures in KEYDECK_* environment variables)')
    .option(
      '--check-config',
      'check the flags, the config file and each profile’s service and credential, say what is wrong in log lines, and exit (0 clean, 1 a profile would be down, 2 it would not start)',
    )
    .action(async (opts: ExporterCliFlags & { checkConfig?: boolean; enforce?: boolean; onGuardrail?: string }, cmd: Command) => {
      if (opts.onGuardrail !== undefined && opts.enforce !== true) {
        const { failUsage } = await import('./errors.js');
        failUsage(cmd, '--on-guardrail needs --enforce (the exporter says guardrails only while it acts on them)');
      }
      const options = await exporterOptionsOf(program, cmd, opts);
      const { suggestCommand } = await import('../commands/suggest.js');
      let code: number;
      if (opts.checkConfig) {
        const { checkExporterSetup, setupExitCode } = await import('../exporter/check.js');
        const { createLogger } = await import('../exporter/log.js');
        const log = createLogger(options.logFormat, undefined, undefined, options.logLevel);
        const checks = await checkExporterSetup(options, { suggest: suggestCommand });
        for (const c of checks) log[c.status === 'ok' ? 'info' : c.status === 'warn' ? 'warn' : 'error']('check', { check: c.name, status: c.status, msg: c.detail });
        code = setupExitCode(checks);
        log[code === 0 ? 'info' : 'error']('check_done', { result: code === 0 ? 'clean' : code === 1 ? 'profiles_down' : 'would_not_start' });
      } else {
        // --sandbox: the sandbox of the data dir is watched too, as profile "sandbox" (the
        // only one unless --all-profiles or --profile name others), served or joined for as long as
        // the exporter runs; its key is KEYDECK_TOKEN_SANDBOX, else the demo session token.
        let run = options;
        let env = process.env;
        let sandbox: { url: string; token: string; close(): Promise<void> } | undefined;
        if (program.opts<{ sandbox?: boolean }>().sandbox) {
          const { openSharedSandbox } = await import('../sandbox/shared.js');
          const { sandboxDbPath } = await import('../config/paths.js');
          try {
            sandbox = await openSharedSandbox({ dbPath: sandboxDbPath(), keep: true });
          } catch (error) {
            process.stderr.write(`keydeck: could not start the sandbox (${sandboxDbPath()}): ${(error as Error).message}\n`);
            process.exit(1);
          }
          const explicit = opts.allProfiles === true || profileFlags((program as unknown as { rawArgs?: string[] }).rawArgs ?? process.argv).length > 0;
          run = { ...run, selection: { kind: 'plus', first: { name: 'sandbox', baseUrl: sandbox.url }, ...(explicit && { rest: run.selection }) } };
          env = { ...process.env, KEYDECK_TOKEN_SANDBOX: process.env.KEYDECK_TOKEN_SANDBOX ?? sandbox.token };
        }
        // --read-only with --auto-topup asks for two opposite things: refused before anything starts (exit 3).
        if (cmd.optsWithGlobals<{ readOnly?: boolean; autoTopup?: boolean }>().readOnly === true && cmd.optsWithGlobals<{ autoTopup?: boolean }>().autoTopup === true) {
          await sandbox?.close();
          process.stderr.write('keydeck: read_only: --read-only was given, so keydeck does not act on auto top-up (--auto-topup); nothing was sent.\n');
          process.exit(3);
        }
        const { runExporter } = await import('../exporter/run.js');
        const enforce = { enforce: opts.enforce === true, ...(opts.onGuardrail !== undefined && { onGuardrail: opts.onGuardrail }) };
        code = await runExporter(
          { ...run, ...enforce, autoTopUp: cmd.optsWithGlobals<{ autoTopup?: boolean }>().autoTopup === true, version: program.version() ?? 'unknown' },
          { env, suggest: suggestCommand },
        );
        await sandbox?.close();
      }
      // Nothing of the exporter's is left running; a keychain child that hung is not waited for.
      // Its last log lines reach stderr first, as `runCommand` lets a command's output (loaded
      // here, once the exporter has stopped: of src/commands only the small "did you mean" rule
      // is loaded while it runs).
      const { flushed } = await import('../commands/output.js');
      await flushed(process.stderr);
      process.exit(code);
    });
}
