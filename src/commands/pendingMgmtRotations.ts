/**
 * The command line's word on interrupted management-key rotations: at the start of every command
 * that talks to the service, each unfinished rotation of the profile's service
 * (src/operations/queries.ts) is named on stderr with the two commands that take it up, in the
 * words of src/operations/wording.ts. Read before the consumption-key record
 * (./pendingRotations.ts): it takes over the management entries an earlier keydeck kept there.
 */
import { unfinishedMgmtRotations } from '../operations/queries.js';
import { unfinishedWords } from '../operations/wording.js';
import { visible } from '../terminal/sanitize.js';

/** The sentences for the unfinished management-key rotations of `profile` at `origin` (a record that cannot be read: one sentence saying so). */
export async function pendingMgmtRotationWarnings(dataDirectory: string, profile: string, origin: string): Promise<string[]> {
  try {
    return (await unfinishedMgmtRotations(dataDirectory, { profile, origin })).map((op) => visible(unfinishedWords({ kind: 'mgmt', op }, 'cli')));
  } catch (err) {
    return [(err as Error).message];
  }
}
