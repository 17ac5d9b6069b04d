/**
 * The program's default action: the full-screen TUI (src/tui/run.tsx), after the checks that
 * need no terminal drawing (a mistyped command, bad flags, no terminal, TERM=dumb), each a usage
 * error (exit 2) with one line.
 */
import type { Command } from 'commander';
import type { TuiGlobals } from '../tui/globals.js';
import { failUnknownCommand } from './errors.js';
import type { DialectName } from './shared.js';

/** Makes the TUI the program's default action. */
export function registerTuiAction(program: Command): void {
  // A mistyped command reaches the default action as an argument: report it (exit 2), never open the TUI.
  // (`keydeck help …` is a command of its own: src/cli/help.ts.)
  program.allowExcessArguments();
  program.action(async () => {
    if (program.args.length > 0) failUnknownCommand(program, program.args[0]!);
    const { dialect, chain, chainRpc, ...globals } = program.opts<TuiGlobals & { interval?: string; alertBelow?: string; dialect?: DialectName; chain?: string | false; chainRpc?: string }>();
    if (globals.sandbox && program.getOptionValueSource('baseUrl') === 'cli') {
      process.stderr.write('keydeck: --sandbox and --base-url name two different services: give one of them.\n');
      process.exit(2);
    }
    if (chain === 'anvil' && !globals.sandbox) {
      process.stderr.write('keydeck: --chain anvil goes with --sandbox (or run keydeck sandbox --chain anvil).\n');
      process.exit(2);
    }
    // Bad settings are usage errors, reported before anything is drawn.
    let settings = {};
    if (globals.interval !== undefined || globals.alertBelow !== undefined) {
      const { parseWatchFlags } = await import('../billing/settings.js');
      const parsed = parseWatchFlags(globals);
      if (!parsed.ok) {
        process.stderr.write(`keydeck: ${parsed.reason}.\n`);
        process.exit(2);
      }
      settings = parsed.value;
    }
    if (!process.stdin.isTTY || !process.stdout.isTTY) {
      process.stderr.write('keydeck: the full-screen app needs a terminal. For scripts use the commands: keydeck keys|mgmt-keys|billing|auth --help\n');
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
    const { importWithoutFetch } = await import('../tui/withoutFetch.js');
    const { runTui } = await importWithoutFetch(() => import('../tui/run.js'));
    const quitNormally = await runTuiThen(() =>
      runTui({
        ...globals,
        ...(program.getOptionValueSource('profile') === 'env' && { profileSource: 'env' as const }),
        ...settings,
        ...(dialect !== undefined && { sandboxDialect: dialect }),
        ...(chain === 'anvil' && { sandboxChain: chainRpc !== undefined ? { rpcUrl: chainRpc } : {} }),
        ...(chain === false && { noChain: true }),
        // With --chain anvil, --chain-rpc names the sandbox's node: keydeck asks the sandbox for it.
        ...(chain !== 'anvil' && chainRpc !== undefined && { chainRpc }),
      }),
    );
    // `npm start` in a clone: how `keydeck …` runs as its hints write it (src/commands/clone.ts).
    if (quitNormally && globals.sandbox) {
      const { cloneHint } = await import('../commands/clone.js');
      const hint = cloneHint();
      if (hint !== undefined) process.stderr.write(`${hint}\n`);
    }
  });
}

/** Runs the TUI; true when it ended with exit code 0 (the user quit). */
async function runTuiThen(run: () => Promise<void>): Promise<boolean> {
  await run();
  return process.exitCode === undefined || Number(process.exitCode) === 0;
}
