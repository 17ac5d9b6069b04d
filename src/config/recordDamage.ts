/**
 * The one mark of a record keydeck trusts that cannot be read as it is on disk, shared by the JSON
 * records (./recordFile.ts) and the top-up record (src/billing/journal.ts): a dependency-free
 * module, so the commands' exit code (src/commands/output.ts) costs no load.
 */

/**
 * The `code` of the error of any record keydeck trusts that cannot be read as it is on disk (not
 * JSON, not in the format, an SQLite file damaged, a record emptied or removed while its summary
 * says it held something): the operation it guards stops, and the commands exit 3.
 */
export const RECORD_DAMAGED = 'record_damaged';

/** True for the error of a record that cannot be read ({@link RECORD_DAMAGED}). */
export function isRecordDamaged(error: unknown): boolean {
  return (error as { code?: unknown } | null)?.code === RECORD_DAMAGED;
}
