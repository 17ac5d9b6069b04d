/**
 * `keydeck billing credits [--json]`: the shared USD balance record (the service's endpoints `GET
 * /api/billing/credits`). Its own module, apart from the other `billing` commands (./billing.ts),
 * so that a read of the balance, the command a shell loop over profiles runs,
 * loads the client, the session and the table, nothing of the top-up record (`node:sqlite`) or
 * the chain (bench/oneshot.mjs, test/house/oneshot.test.ts). Errors and exit codes: see
 * ./api-command.ts.
 */
import type { CreditBalance } from '../api/schemas.js';
import { printData, type CommandDeps, type JsonFlag } from './api-command.js';
import { ExitCode, openSession, printFormatted, type ExitCodeValue, type GlobalOptions } from './output.js';
import { colorEnabled, formatKeyValues, type TerminalText } from './table.js';
import { formatUsdCode } from '../api/money.js';

/** The credit balance record record as `label  value` lines, with the spec's field names. */
export function creditsBlock(credits: CreditBalance, options: { color?: boolean } = {}): TerminalText {
  return formatKeyValues(
    [
      ['remaining', formatUsdCode(credits.remaining)],
      ['totalTopUp', formatUsdCode(credits.totalTopUp)],
      ['hasCreditKey', credits.hasCreditKey ? 'yes' : 'no'],
      ['creditKeyCount', String(credits.creditKeyCount)],
      // Null is the spec's "until the first top-up"; null after top-ups: the service does not send it (the older pages).
      ['userId', credits.userId ?? (credits.totalTopUp > 0 ? '(not sent by this service)' : '(none until the first top-up)')],
    ],
    options,
  );
}

/** `keydeck billing credits [--json]`: the balance record. Exit 0. */
export async function billingCredits(globals: GlobalOptions, flags: JsonFlag = {}, deps: CommandDeps = {}): Promise<ExitCodeValue> {
  const { client } = await openSession(globals, deps.session);
  const credits = await client.billing.credits();
  if (flags.json) printData(credits);
  else printFormatted(creditsBlock(credits, { color: colorEnabled() }));
  return ExitCode.ok;
}
