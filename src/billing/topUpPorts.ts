/**
 * What the top-up procedures (./topups.ts, ./verifyUsdc.ts) read and write, and the small helpers
 * they share.
 */
import type { CreditBalance, VerifiedTopUp } from '../api/schemas.js';
import { type JournalScope, type TopUpJournal } from './journal.js';

/** The client calls these procedures make (a KeydeckClient's `billing`, or a stand-in in tests). */
export interface TopUpClient {
  readonly billing: {
    credits(): Promise<CreditBalance>;
    verifyTopUp(input: { txHash: string; amount: number }): Promise<VerifiedTopUp>;
    status(): Promise<unknown>;
  };
}

/** Where the procedures read and write. */
export interface TopUpPorts {
  readonly journal: TopUpJournal;
  readonly client: TopUpClient;
  readonly scope: JournalScope;
}

/** Whole cents of a USD amount (money is never compared as floats). */
export function cents(usd: number): number {
  return Math.round(usd * 100);
}

/** The `code` of an error, or `error`. */
export function codeOf(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : 'error';
}

/** An error's message without its final period. */
export function messageOf(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return text.replace(/\.$/, '');
}

/** True when the error says the request may have reached the service (its outcome is not known). */
export function outcomeUnknown(error: unknown): boolean {
  return (error as { outcomeUnknown?: unknown } | null)?.outcomeUnknown === true;
}
