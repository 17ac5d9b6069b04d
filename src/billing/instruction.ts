/**
 * A USDC payment instruction is what the user must send: the service may name another
 * amount than the one requested (the older documentation page answers `"amount": 25` to a
 * request of 50: https://cheapestinference-docs.pages.dev/api/credits). keydeck then says so in
 * one sentence and uses the instruction's amount for the QR code, the top-up record and the
 * verification. Shared by the TUI's top-up flow and `keydeck billing topup`.
 */
import { centsText } from '../api/money.js';

/**
 * The one sentence naming both amounts: `The service's instruction asks for 25 USDC, not the
 * 50.00 USD requested: send exactly 25 USDC; the transfer is verified for that amount.`
 * @param requestedUsd the amount requested, USD
 * @param instructed the instruction's `amount` as the reader gave it (a decimal string)
 */
export function instructionDiffersSentence(requestedUsd: number, instructed: string): string {
  return `The service's instruction asks for ${instructed} USDC, not the ${centsText(requestedUsd)} USD requested: send exactly ${instructed} USDC; the transfer is verified for that amount.`;
}
