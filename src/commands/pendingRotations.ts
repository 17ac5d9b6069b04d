/**
 * The command line's word on interrupted rotations (issue 26): at the start of every command that
 * talks to the service, each unfinished rotation of the profile's service in the record
 * (src/delivery/rotationRecord.ts) is named on stderr with the two commands that finish or undo it.
 */
import { RotationRecord, stageWords, type Rotation } from '../delivery/rotationRecord.js';
import { visible } from '../terminal/sanitize.js';

/** One sentence naming `r`, where it stopped, and how to finish or undo it. */
export function pendingRotationSentence(r: Rotation): string {
  const group = r.kind === 'management' ? 'mgmt-keys' : 'keys';
  const what = r.kind === 'management' ? 'management key' : 'key';
  const target = r.kind === 'management' ? '' : ` ${r.old.id}`;
  return (
    `the rotation of the ${what} "${visible(r.old.name)}" (id ${visible(r.old.id)}) was interrupted ${stageWords(r)} on ${r.startedAt.slice(0, 16).replace('T', ' ')} UTC: ` +
    `finish it with \`keydeck ${group} rotate --finish${target}\` or undo it with \`keydeck ${group} rotate --undo${target}\``
  );
}

/** The sentences for the unfinished rotations of `profile` at `origin` (a record that cannot be read: one sentence saying so). */
export async function pendingRotationWarnings(dataDir: string, profile: string, origin: string): Promise<string[]> {
  try {
    return (await new RotationRecord(dataDir).list({ profile, origin })).map(pendingRotationSentence);
  } catch (err) {
    return [(err as Error).message];
  }
}
