/**
 * The chain's word before `keydeck billing verify` sends anything: where the
 * chain is read (src/billing/chainSettings.ts), what it shows (src/billing/chainChecks.ts), and
 * what the command does with it: a passed check is one line on stderr and the verify is sent; a
 * failed one is its sentence, then a y/N question on a terminal (the service may know better) or,
 * without one, exit 1 naming `--yes`; an unreadable chain is one line and the service decides.
 */
import type { ChainEvidence, ExpectedTransfer } from '../billing/chainChecks.js';
import { ChainSettingsError, resolveChainSettings, type ChainSettings } from '../billing/chainSettings.js';
import { visible } from '../terminal/sanitize.js';
import { askLine, canPrompt, ExitCode, fail, warn, type GlobalOptions } from './output.js';
import { billingWords } from './wordingBilling.js';

/** What the checks need of the profile. */
export interface ChainProfile {
  readonly baseUrl: string;
  readonly chainRpc?: string | undefined;
  readonly chainChecks: boolean;
}

/**
 * Where this command reads the chain: the global flags (`--no-chain`, `--chain-rpc`) over the
 * environment and `profile` (src/billing/chainSettings.ts).
 * @throws CommandFailure exit 2 `invalid_chain_rpc` for an unusable `--chain-rpc`/`KEYDECK_CHAIN_RPC`
 */
export async function chainSettingsOf(globals: GlobalOptions, profile: ChainProfile): Promise<ChainSettings> {
  try {
    return await resolveChainSettings({ noChain: globals.noChain, chainRpc: globals.chainRpc, profile, baseUrl: profile.baseUrl });
  } catch (error) {
    if (error instanceof ChainSettingsError) fail(ExitCode.usage, billingWords.invalidChainRpc, { error });
    throw error;
  }
}

/**
 * Reads and checks the transfer of `expected` through `settings` ({@link chainSettingsOf}) before
 * the verify; returns the chain's evidence to keep on the record (undefined when the chain was not
 * read or showed no USDC to keep).
 * @throws CommandFailure exit 1 `chain_mismatch` when a check failed and the user did not confirm
 *   (nothing was sent).
 */
export async function checkBeforeVerify(settings: ChainSettings, expected: ExpectedTransfer, options: { readonly yes?: boolean; readonly command: string }): Promise<ChainEvidence | undefined> {
  const { checkTransaction } = await import('../billing/chainChecks.js');
  const check = await checkTransaction(settings, expected);
  switch (check.kind) {
    case 'off':
      return undefined;
    case 'unavailable':
      warn(check.sentence);
      return undefined;
    case 'passed':
      process.stderr.write(`chain: ${visible(check.sentence)}\n`);
      return check.evidence;
    case 'problem': {
      if (!options.yes && !canPrompt()) {
        fail(ExitCode.refused, billingWords.chainMismatch, { sentence: check.sentence, command: options.command });
      }
      warn(`chain: ${check.sentence}`);
      if (options.yes) return check.evidence;
      const answer = await askLine('Send the verify to the service anyway? It may know better. [y/N] ');
      if (!/^y(es)?$/i.test(answer)) fail(ExitCode.refused, billingWords.cancelledSent);
      return check.evidence;
    }
  }
}
