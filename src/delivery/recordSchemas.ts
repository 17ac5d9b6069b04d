/**
 * The parts of keydeck's operation records that concern destinations, shared by the records of
 * src/operations (keyOperationRecord.ts, rotationRecord.ts) and the delivery record
 * (./deliveryRecord.ts): a destination as the user named it, and how far one operation got with
 * it. Never a key value.
 */
import { z } from '../api/zod.js';

/** A destination (./destinations.ts `Destination`) as recorded. */
export const DestinationSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('file'), path: z.string(), variable: z.string(), given: z.string() }),
  z.object({ kind: z.literal('command'), argv: z.array(z.string()).min(1), given: z.string() }),
]);

/**
 * How far an operation got with one destination, written before and after each effect:
 *
 * | state     | file                                                        | command                               |
 * |-----------|-------------------------------------------------------------|---------------------------------------|
 * | `pending` | nothing written                                             | not started                           |
 * | `writing` | its previous content kept (`backup`), the key being written | —                                     |
 * | `written` | it holds the key                                            | —                                     |
 * | `running` | —                                                           | started with the key: may hold it     |
 * | `took`    | —                                                           | exited 0: holds it                    |
 * | `failed`  | the write failed (the file is unchanged)                    | exited otherwise: does not hold it    |
 */
export const TargetSchema = z.object({
  state: z.enum(['pending', 'writing', 'written', 'running', 'took', 'failed']),
  /** A file's real path (symbolic links resolved), once known. */
  target: z.string().optional(),
  /** The copy of a file's previous content (src/delivery/fileUndo.ts); absent when it did not exist. */
  backup: z.string().optional(),
  /** A command was started with a key of this operation at least once (it may hold one). */
  ran: z.boolean().optional(),
});
/** See {@link TargetSchema}. */
export type TargetState = z.infer<typeof TargetSchema>;
