/**
 * The command line's word on interrupted management-key rotations (issue 42): at the start of
 * every command that talks to the service, each unfinished rotation of the profile's service in
 * the record (src/operations/mgmtRotationRecord.ts) is named on stderr with the two commands that
 * take it up. Read before the consumption-key record (./pendingRotations.ts): it takes over the
 * management entries an earlier keydeck kept there.
 */
import { MgmtRotationRecord, type MgmtRotation } from '../operations/mgmtRotationRecord.js';
import { visible } from '../terminal/sanitize.js';

/** The flags that take up a rotation of `r` (its token file named again). */
function resumeFlags(r: MgmtRotation): string {
  return r.target.kind === 'token_file' ? ` --token-file ${r.target.path}` : '';
}

/** Where an interrupted rotation stopped, in words (by its record; recovery reads the world). */
function stateWords(r: MgmtRotation): string {
  switch (r.state) {
    case 'creating':
      return 'while its successor was being created';
    case 'created':
      return 'after the new management key was created (it may be stored already)';
    case 'stored':
      return 'after the new management key was stored, before the old one was deleted';
  }
}

/** One sentence naming the interrupted rotation `r`, and the two commands that take it up. */
export function pendingMgmtRotationSentence(r: MgmtRotation): string {
  const where = r.target.kind === 'token_file' ? ` in the token file ${r.target.path}` : '';
  return (
    `the rotation of the management key "${visible(r.old.name)}" (id ${visible(r.old.id)})${visible(where)} was interrupted ${stateWords(r)} on ${r.startedAt.slice(0, 16).replace('T', ' ')} UTC: ` +
    `finish it with \`keydeck mgmt-keys rotate --finish${visible(resumeFlags(r))}\` or undo it with \`keydeck mgmt-keys rotate --undo${visible(resumeFlags(r))}\``
  );
}

/** The sentences for the unfinished management-key rotations of `profile` at `origin` (a record that cannot be read: one sentence saying so). */
export async function pendingMgmtRotationWarnings(dataDirectory: string, profile: string, origin: string): Promise<string[]> {
  try {
    return (await new MgmtRotationRecord(dataDirectory).list({ profile, origin })).map(pendingMgmtRotationSentence);
  } catch (err) {
    return [(err as Error).message];
  }
}
