/**
 * The command line's side of a taken key name (src/billing/keyNames.ts): before `keys
 * create` or `keys rename` sends anything, a name another key already has is said (naming that
 * key) and asked about on a terminal, or refused in a script unless `--allow-duplicate-name`.
 */
import { describeApiError } from '../api/describe.js';
import type { ConsumptionKey } from '../api/schemas.js';
import { DUPLICATE_NAME_TROUBLE, keyNamed, takenByWords } from '../billing/keyNames.js';
import { visible } from '../terminal/sanitize.js';
import { askLine, canPrompt, ExitCode, fail, warn } from './output.js';
import { keyWords } from './wordingKeys.js';

/** Options of {@link ensureNameFree}. */
export interface NameCheck {
  /** `--allow-duplicate-name`: go on without asking. */
  readonly allowDuplicate?: boolean;
  /** `create` or `rename` (the words of the question). */
  readonly action: 'create' | 'rename';
  /** The key being renamed (its own name is not a clash). */
  readonly exceptId?: string;
  /** Default {@link canPrompt}. */
  readonly interactive?: boolean;
}

/**
 * Returns when `name` is free among the keys `list` reads, or the user said yes, or
 * `--allow-duplicate-name` (then nothing is read). A list that cannot be read is a warning, not a
 * stop: the create or rename is then sent and answers for itself.
 * @throws CommandFailure exit 2 `name_taken` without a terminal (naming the key that has it and
 *   the flag); exit 1 `cancelled` when the user answers anything but y/yes. Nothing was sent.
 */
export async function ensureNameFree(list: () => Promise<readonly ConsumptionKey[]>, name: string, check: NameCheck): Promise<void> {
  if (check.allowDuplicate) return;
  let keys: readonly ConsumptionKey[];
  try {
    keys = await list();
  } catch (error) {
    warn(`could not read the keys to check whether another key is named "${visible(name)}" (${describeApiError(error).replace(/\.$/, '')}); going on`);
    return;
  }
  const taken = keyNamed(keys, name, check.exceptId);
  if (!taken) return;
  const clash = `a key is already named "${visible(name)}", ${takenByWords(taken)}: ${DUPLICATE_NAME_TROUBLE}`;
  const nothing = check.action === 'create' ? 'nothing was created' : 'nothing was renamed';
  if (!(check.interactive ?? canPrompt())) {
    fail(ExitCode.usage, keyWords.nameTaken, { clash, action: check.action, nothing });
  }
  warn(clash);
  const answer = await askLine(`${check.action === 'create' ? 'Create another key' : 'Rename it anyway'} named "${visible(name)}"? [y/N] `);
  if (!/^y(es)?$/i.test(answer)) fail(ExitCode.refused, keyWords.cancelledNameTaken, { nothing });
}
