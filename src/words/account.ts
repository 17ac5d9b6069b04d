/**
 * The command line's words for a profile keydeck cannot use as asked (src/config: a profile the
 * config file does not have, a read-only profile): what to run to get past it. The commands say
 * them, and the TUI on stderr before it draws its first frame.
 */
import { ProfileMissingError, isReadOnlyError, readOnlyReason, readOnlyRefusal, type MarkedProfile } from '../config/index.js';
import { JournalDamagedError } from '../billing/journalEntry.js';
import { recordDamagedSentence } from './topUpRecord.js';

/** `no such profile "NAME"`, with where the profiles are listed and how to create it (no final period). */
export function noSuchProfileSentence(name: string): string {
  return `no such profile "${name}": \`keydeck profile list\` lists the profiles; \`keydeck auth login --profile ${name} --base-url URL\` creates it`;
}

/** The refusal of `action` on the read-only `profile` (`read_only: …`), with how to lift it, without the final period. */
export function readOnlySentence(profile: MarkedProfile, action: string): string {
  const reason = readOnlyReason(profile) ?? `the profile "${profile.name}" is read-only`;
  const undo = profile.readOnly?.by === 'flag' ? 'run it without --read-only' : `unmark it first with \`keydeck profile set ${profile.name} --no-read-only\``;
  return `read_only: ${readOnlyRefusal(reason, action)} (${undo})`;
}

/**
 * The command line's sentence for an error of a lower layer whose way out is a command (no final
 * period promised): a read-only profile (`read_only`), a profile chosen by a rule that the config
 * file does not have (`no_such_profile`), a top-up record that cannot be trusted
 * (`record_damaged`); undefined for any other error, which a face words as it did.
 */
export function belowSentence(error: unknown): string | undefined {
  if (isReadOnlyError(error)) return readOnlySentence({ name: error.profile, readOnly: { by: error.by }, configPath: error.configPath }, error.action);
  if (error instanceof ProfileMissingError) {
    return `${error.message}: add it with \`keydeck profile add ${error.profile} --base-url URL\`, or choose another with --profile NAME`;
  }
  if (error instanceof JournalDamagedError) return recordDamagedSentence(error);
  return undefined;
}
