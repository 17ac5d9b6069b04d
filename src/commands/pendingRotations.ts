/**
 * The command line's word on interrupted operations (issue 26, issue 42): at the start of every
 * command that talks to the service, each unfinished rotation of the profile's service in the
 * record (src/delivery/rotationRecord.ts) and each unfinished key creation
 * (src/operations/record.ts) is named on stderr with the two commands that finish or undo it.
 */
import { RotationRecord, stageWords, type Rotation } from '../delivery/rotationRecord.js';
import { drivenElsewhere } from '../operations/drivers.js';
import { OperationRecord, type KeyOperation } from '../operations/record.js';
import { visible } from '../terminal/sanitize.js';

/** The operations of `all` that no keydeck drives now (the others are in progress, not interrupted). */
async function interrupted<T extends { id: string }>(dataDir: string, all: readonly T[]): Promise<T[]> {
  const out: T[] = [];
  for (const o of all) if (!(await drivenElsewhere(dataDir, o.id))) out.push(o);
  return out;
}

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
    return (await interrupted(dataDir, await new RotationRecord(dataDir).list({ profile, origin }))).map(pendingRotationSentence);
  } catch (err) {
    return [(err as Error).message];
  }
}

/** Where an interrupted key creation stopped, in words. */
function creationStage(op: KeyOperation): string {
  if (op.stage === 'creating') return 'while the key was being created';
  if (op.stage === 'showing') return 'while the new key was shown';
  return 'before the new key reached every destination';
}

/** One sentence naming the interrupted creation `op`, where it stopped, and how to finish or undo it. */
export function pendingCreationSentence(op: KeyOperation): string {
  const name = /^[\w.@-]+$/.test(op.name) ? op.name : JSON.stringify(op.name);
  return (
    `the creation of the ${op.kind === 'pledge' ? 'subscription ' : ''}key "${visible(op.name)}" was interrupted ${creationStage(op)} on ${op.startedAt.slice(0, 16).replace('T', ' ')} UTC: ` +
    `finish it with \`keydeck keys create --finish ${visible(name)}\` (or the same command again) or undo it with \`keydeck keys create --undo ${visible(name)}\``
  );
}

/** The sentences for the unfinished key creations of `profile` at `origin`. */
export async function pendingCreationWarnings(dataDir: string, profile: string, origin: string): Promise<string[]> {
  try {
    return (await interrupted(dataDir, await new OperationRecord(dataDir).list({ profile, origin }))).map(pendingCreationSentence);
  } catch (err) {
    return [(err as Error).message];
  }
}
