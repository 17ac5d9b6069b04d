/**
 * The USDC step's checks before verify (issue 25, item 2): the chain settings of the shell, then
 * src/billing/chainChecks.ts (loaded only here). Never throws: settings that cannot be used are an
 * `unavailable` sentence, and the service's verdict decides.
 */
import type { ChainCheck, ExpectedTransfer } from '../../../billing/chainChecks.js';
import type { ChainSettings } from '../../../billing/chainSettings.js';

/** The chain's check of `expected` through the settings `settingsOf(baseUrl)` gives. */
export async function chainCheckFor(settingsOf: (baseUrl: string) => Promise<ChainSettings>, baseUrl: string, expected: ExpectedTransfer): Promise<ChainCheck> {
  try {
    const settings = await settingsOf(baseUrl);
    const { checkTransaction } = await import('../../../billing/chainChecks.js');
    return await checkTransaction(settings, expected);
  } catch (error) {
    return { kind: 'unavailable', sentence: `the chain is not read (${error instanceof Error ? error.message : String(error)}): going on with the service's verdict alone` };
  }
}
