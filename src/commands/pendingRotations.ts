/**
 * The command line's word on interrupted operations: at the start of every command that talks to
 * the service, each unfinished rotation and each unfinished key creation of the profile's service
 * (src/operations/queries.ts) is named on stderr with the two commands that finish or undo it, in
 * the words of src/operations/wording.ts.
 */
import { unfinishedCreations, unfinishedRotations } from '../operations/queries.js';
import { unfinishedWords } from '../operations/wording.js';
import { visible } from '../terminal/sanitize.js';

/** The sentences for the unfinished rotations of `profile` at `origin` (a record that cannot be read: one sentence saying so). */
export async function pendingRotationWarnings(dataDir: string, profile: string, origin: string): Promise<string[]> {
  try {
    return (await unfinishedRotations(dataDir, { profile, origin })).map((op) => visible(unfinishedWords({ kind: 'rotation', op }, 'cli')));
  } catch (err) {
    return [(err as Error).message];
  }
}

/** The sentences for the unfinished key creations of `profile` at `origin`. */
export async function pendingCreationWarnings(dataDir: string, profile: string, origin: string): Promise<string[]> {
  try {
    return (await unfinishedCreations(dataDir, { profile, origin })).map((op) => visible(unfinishedWords({ kind: 'creation', op }, 'cli')));
  } catch (err) {
    return [(err as Error).message];
  }
}
