/**
 * The USDC step's checks before verify: keydeck's record first (a verify it
 * would not send is not checked), then the chain settings of the shell, then
 * src/billing/chainChecks.ts (loaded only here). Never throws: settings that cannot be used are an
 * `unavailable` sentence, and the service's verdict decides.
 */
import type { ChainCheck, ExpectedTransfer } from '../../../billing/chainChecks.js';
import type { ChainSettings } from '../../../billing/chainSettings.js';
import { verifyOnRecord, type TopUpPorts } from '../../../billing/topups.js';

/**
 * The chain's check of `expected` (the transfer for the record `entryId`) through the settings
 * `settingsOf(baseUrl)` gives; `off` when keydeck's record already names the hash or the record
 * credited (the verify then sends nothing: nothing to check or ask).
 */
export async function chainCheckFor(
  settingsOf: (baseUrl: string) => Promise<ChainSettings>,
  baseUrl: string,
  ports: TopUpPorts,
  expected: ExpectedTransfer & { readonly entryId: string },
): Promise<ChainCheck> {
  const onRecord = await verifyOnRecord(ports, expected).catch(() => undefined); // record unreadable: the chain is read, and the verify reads the record again
  if (onRecord?.credited) return { kind: 'off', why: "credited on keydeck's record" };
  try {
    const settings = await settingsOf(baseUrl);
    const { checkTransaction } = await import('../../../billing/chainChecks.js');
    return await checkTransaction(settings, expected);
  } catch (error) {
    return { kind: 'unavailable', sentence: `the chain is not read (${error instanceof Error ? error.message : String(error)}): going on with the service's verdict alone` };
  }
}
