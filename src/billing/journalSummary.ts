/**
 * The summary of the top-up record (`<data dir>/topups-summary.json`), kept beside `topups.db` so
 * that the record's loss is seen: a damaged, emptied or removed `topups.db` is told apart from a
 * new one, and the sentence that stops every charge and verify says what it held.
 *
 * Written after each committed change of the record (./journal.ts), atomically, mode 0600:
 *
 * ```json
 * { "version": 1, "generation": 12, "records": 7, "updatedAt": "2026-11-28T03:56:00.000Z",
 *   "unfinished": [{ "id": "…", "method": "card_direct", "state": "verifying", "amount": 30,
 *                    "createdAt": "…", "host": "api.example", "autoTopUp": true }] }
 * ```
 *
 * `generation` counts the record's committed changes (its `meta` table), so that a summary from
 * an earlier change never replaces a later one. The summary is never ahead of the record (written
 * after the commit); it may be one change behind it (a kill between the two), which is why it is
 * read as what the record held at least, never as the record. No secret: what the record holds
 * of the unfinished top-ups (amounts, addresses, hashes, session ids).
 */
import path from 'node:path';
import { z } from '../api/zod.js';
import { readTrustedFile } from '../config/trust.js';
import { TopUpMethodSchema } from '../api/schemas.js';
import { methodLabel, stateLabel, TopUpStateSchema, type JournalEntry } from './journalEntry.js';
import { formatUsd } from '../api/money.js';

/** Most unfinished top-ups a summary names (the record never drops one; past this they are counted). */
export const MAX_SUMMARY_UNFINISHED = 50;

/** One unfinished top-up as the summary names it. */
const HeldSchema = z.object({
  id: z.string(),
  method: TopUpMethodSchema,
  state: TopUpStateSchema,
  /** USD. */
  amount: z.number(),
  createdAt: z.string(),
  host: z.string(),
  profile: z.string().optional(),
  address: z.string().optional(),
  txHash: z.string().optional(),
  sessionId: z.string().optional(),
  paymentId: z.string().optional(),
  /** A charge auto top-up made. */
  autoTopUp: z.boolean().optional(),
});
/** See {@link HeldSchema}. */
export type HeldTopUp = z.infer<typeof HeldSchema>;

/** The summary file's content. */
export const JournalSummarySchema = z.object({
  version: z.literal(1),
  /** The record's committed changes when it was written. */
  generation: z.number().int().min(0),
  /** Records in `topups.db` then. */
  records: z.number().int().min(0),
  /** ISO 8601 (this machine's clock). */
  updatedAt: z.string(),
  /** Its unfinished top-ups (awaiting payment, verifying), newest first, at most {@link MAX_SUMMARY_UNFINISHED}. */
  unfinished: z.array(HeldSchema),
  /** Unfinished top-ups beyond those named. */
  moreUnfinished: z.number().int().min(0).optional(),
});
/** See {@link JournalSummarySchema}. */
export type JournalSummary = z.infer<typeof JournalSummarySchema>;

/** The summary's path beside the database `topups.db`: `topups-summary.json`. */
export function summaryPath(databasePath: string): string {
  return path.join(path.dirname(databasePath), 'topups-summary.json');
}

/** What {@link readSummary} found. */
export type SummaryRead =
  | { readonly kind: 'none' }
  | { readonly kind: 'summary'; readonly summary: JournalSummary }
  /** There, but not in the format (cut, edited): the record existed, what it held is not known. */
  | { readonly kind: 'unreadable'; readonly problem: string }
  /** Not a file keydeck may trust (a link, someone else's, writable by others): its sentence. */
  | { readonly kind: 'refused'; readonly sentence: string };

/**
 * Reads the summary at `file` as keydeck reads its own files (src/config/trust.ts).
 * @throws the Node error when it exists but cannot be read (EACCES, EIO…)
 */
export async function readSummary(file: string): Promise<SummaryRead> {
  const read = await readTrustedFile(file, 'config file');
  if (read.kind === 'missing') return { kind: 'none' };
  if (read.kind === 'refused') return { kind: 'refused', sentence: read.problem.sentence };
  let data: unknown;
  try {
    data = JSON.parse(read.text);
  } catch {
    // not JSON: said as unreadable, the record then fails closed
    return { kind: 'unreadable', problem: read.text.length === 0 ? 'it is empty' : 'it is not JSON' };
  }
  const parsed = JournalSummarySchema.safeParse(data);
  return parsed.success ? { kind: 'summary', summary: parsed.data } : { kind: 'unreadable', problem: "it is not in keydeck's format" };
}

/** The summary of a record of `records` top-ups whose `unfinished` ones (newest first) are these, at `generation`; `now` ISO 8601. */
export function summaryOf(unfinished: readonly JournalEntry[], records: number, generation: number, now: string): JournalSummary {
  return {
    version: 1,
    generation,
    records,
    updatedAt: now,
    unfinished: unfinished.slice(0, MAX_SUMMARY_UNFINISHED).map((e) => ({
      id: e.id,
      method: e.method,
      state: e.state,
      amount: e.amount,
      createdAt: e.createdAt,
      host: e.host,
      ...(e.profile !== undefined && { profile: e.profile }),
      ...(e.address !== undefined && { address: e.address }),
      ...(e.txHash !== undefined && { txHash: e.txHash }),
      ...(e.sessionId !== undefined && { sessionId: e.sessionId }),
      ...(e.paymentId !== undefined && { paymentId: e.paymentId }),
      ...(e.autoTopUp !== undefined && { autoTopUp: true }),
    })),
    ...(unfinished.length > MAX_SUMMARY_UNFINISHED && { moreUnfinished: unfinished.length - MAX_SUMMARY_UNFINISHED }),
  };
}

/** "2026-11-28 03:56 UTC" of an ISO 8601 time. */
function minute(iso: string): string {
  return `${iso.slice(0, 16).replace('T', ' ')} UTC`;
}

/** One unfinished top-up in words: "a card charge of $30.00 (auto top-up) recorded 2026-11-28 03:56 UTC, verifying: its outcome is unknown". */
export function heldWords(held: HeldTopUp): string {
  const what =
    held.method === 'card_direct' ? `a card charge of ${formatUsd(held.amount)}${held.autoTopUp ? ' (auto top-up)' : ''}` : `a ${methodLabel(held.method)} top-up of ${formatUsd(held.amount)}`;
  const ref = held.txHash
    ? `, transaction ${held.txHash}`
    : held.address
      ? ` to ${held.address}`
      : held.sessionId
        ? `, session ${held.sessionId}`
        : held.paymentId
          ? `, payment ${held.paymentId}`
          : '';
  const state = held.state === 'verifying' ? 'verifying: its outcome is unknown' : stateLabel(held.state);
  return `${what}${ref} recorded ${minute(held.createdAt)}, ${state}`;
}

/**
 * What the record held, by its summary, as one clause: "by its summary (…/topups-summary.json,
 * written 2026-11-28 03:56 UTC) it held 3 top-ups, 1 of them unfinished: a card charge of …".
 */
export function heldSentence(read: SummaryRead, file: string): string {
  if (read.kind === 'none') return 'keydeck has no summary of what it held';
  if (read.kind !== 'summary') return `what it held is not known: its summary ${file} cannot be read either (${read.kind === 'refused' ? read.sentence : read.problem})`;
  const s = read.summary;
  const head = `by its summary (${file}, written ${minute(s.updatedAt)}) it held ${s.records} top-up${s.records === 1 ? '' : 's'}`;
  const count = s.unfinished.length + (s.moreUnfinished ?? 0);
  if (count === 0) return `${head}, none of them unfinished`;
  const more = s.moreUnfinished ? `; and ${s.moreUnfinished} more` : '';
  return `${head}, ${count} of them unfinished: ${s.unfinished.map(heldWords).join('; ')}${more}`;
}
