/** `keydeck key-info`: a consumption key's own view (src/commands/keyInfo.ts); `keys usage` is in ./keys.ts. */
import type { Command } from 'commander';
import { inherits, SERVICE_OPTIONS } from './inherited.js';
import { runScripted } from './shared.js';

/** Adds `key-info` to the program. */
export function registerKeyInfo(program: Command): void {
  inherits(program.command('key-info'), SERVICE_OPTIONS)
    .description('a consumption key’s own budget, limits, plan and balance (GET /v1/usage); the sk_ key is read from KEYDECK_SK or stdin, never the command line')
    .option('--cached', 'never spend a read: print the last figures kept for this key, with their age')
    .option('--json', 'print { service: the answer as sent, derived: keydeck’s figures } as JSON (the key by its prefix only)')
    // A key given as an argument is refused by keydeck itself, never echoed (commander would quote it).
    .allowExcessArguments(true)
    .action(async (opts: { cached?: boolean; json?: boolean }, cmd: Command) => {
      if (cmd.args.length > 0) {
        process.stderr.write(
          'keydeck: key-info never takes the key on the command line (other users of the machine see it, and the shell keeps it in its history): set KEYDECK_SK or pipe it on stdin, and remove it from your shell history.\n',
        );
        process.exit(2);
      }
      const { keyInfo } = await import('../commands/keyInfo.js');
      await runScripted(cmd, (g) => keyInfo(g, opts));
    });
}
