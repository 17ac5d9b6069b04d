/**
 * The state of the top-up walk-through, pure: which step is on screen, and how a
 * record is reopened. When a top-up counts as credited is decided in src/billing/.
 */
import type { TopUpMethod } from '../../../api/schemas.js';
import type { TopUpResult } from '../../../api/client.js';
import type { JournalEntry, JournalScope } from '../../../billing/journal.js';

/** Whole cents of a USD amount (src/billing/topups.ts; money is never compared as floats). */
export { cents } from '../../../billing/topups.js';

/** The methods in the order the method step lists them (keys 1, 2, 3). */
export const METHODS: readonly TopUpMethod[] = ['usdc', 'card_checkout', 'card_direct'];

/** A message shown in a step: a tone (never shown by colour alone) and lines. */
export interface FlowMessage {
  readonly tone: 'ok' | 'info' | 'warning' | 'error';
  readonly lines: readonly string[];
}

/** What part of the USDC step has the keyboard. */
export type UsdcMode = 'main' | 'hash' | 'amountSent' | 'qr' | 'chainConfirm';

/** The step on screen. Steps after the request refer to their journal entry by id. */
export type FlowView =
  | { readonly kind: 'amount'; readonly initial?: string }
  | { readonly kind: 'method'; readonly amount: number; readonly cursor: number; readonly message?: FlowMessage }
  | { readonly kind: 'requesting'; readonly amount: number; readonly method: TopUpMethod }
  | { readonly kind: 'card'; readonly entryId: string; readonly message?: FlowMessage }
  | {
      readonly kind: 'usdc';
      readonly entryId: string;
      readonly mode: UsdcMode;
      /** Pre-filled hash for the hash field (after a simulated transfer or a resume). */
      readonly hashDraft?: string;
      readonly message?: FlowMessage;
    }
  | { readonly kind: 'direct'; readonly entryId: string; readonly data?: unknown; readonly message?: FlowMessage }
  /** Finished; `data` is a card direct answer, kept to show it. */
  | { readonly kind: 'done'; readonly entryId: string; readonly data?: unknown };

/** The step that shows `entry` when it is reopened (after a restart, or from the list). */
export function viewForEntry(entry: JournalEntry): FlowView {
  if (entry.state === 'credited') return { kind: 'done', entryId: entry.id };
  switch (entry.method) {
    case 'usdc':
      return {
        kind: 'usdc',
        entryId: entry.id,
        mode: 'main',
        ...(entry.txHash !== undefined && { hashDraft: entry.txHash }),
        ...(entry.reason !== undefined && { message: { tone: entry.state === 'refused' ? 'error' : 'warning', lines: [`Last time: ${entry.reason}.`] } as FlowMessage }),
      };
    case 'card_checkout':
      return { kind: 'card', entryId: entry.id };
    case 'card_direct':
      return { kind: 'direct', entryId: entry.id };
  }
}

/** True for views that belong to a started top-up (leaving them keeps the top-up open). */
export function isStarted(view: FlowView | undefined): boolean {
  return view !== undefined && view.kind !== 'amount' && view.kind !== 'method' && view.kind !== 'requesting';
}

/** The journal entry a view refers to, if any. */
export function entryIdOf(view: FlowView | undefined): string | undefined {
  return view && 'entryId' in view ? view.entryId : undefined;
}

/**
 * The record of a top-up the service answered but the journal could not save: kept in memory
 * only (the step says so), with what the answer gave (the USDC instruction, the checkout session).
 */
export function unsavedEntry(amount: number, method: TopUpMethod, scope: JournalScope, result: TopUpResult): JournalEntry {
  const time = new Date().toISOString();
  return {
    amount,
    method,
    state: method === 'card_direct' ? 'verifying' : 'awaiting_payment',
    host: scope.host,
    ...(scope.profile !== undefined && { profile: scope.profile }),
    ...(result.method === 'usdc' && {
      address: result.data.address,
      chain: result.data.chain,
      instructedAmount: result.data.amount,
      // The instruction is what must be sent: its amount is the top-up's.
      ...(result.amountDiffers && { amount: result.instructedAmount, requestedAmount: amount }),
    }),
    ...(result.method === 'card_checkout' && { sessionId: result.data.sessionId }),
    id: `unsaved-${Date.now()}`,
    createdAt: time,
    updatedAt: time,
  };
}
