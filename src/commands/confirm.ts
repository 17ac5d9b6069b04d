/**
 * Confirmation of destructive commands (`keys delete`, `keys disable`, `mgmt-keys delete`):
 * with `--yes` nothing is asked; on a terminal a y/N question on stderr (default no); without a
 * terminal (stdin or stderr not a TTY) the command refuses with exit 2 and names `--yes`, so a
 * script never waits for an answer nobody gives.
 */
import { askLine, canPrompt, ExitCode, fail } from './output.js';

/** Options of {@link confirmDestructive}. */
export interface ConfirmOptions {
  /** `--yes` was given: proceed without asking. */
  readonly yes?: boolean;
  /** The question, without the `[y/N]` suffix: `Delete the key "ci" (id k_1)? It cannot be undone.` */
  readonly question: string;
  /** The command line to repeat with `--yes`, for the refusal: `keydeck keys delete k_1`. */
  readonly command: string;
  /** Default {@link canPrompt}. */
  readonly interactive?: boolean;
}

/**
 * Refuses early, before any request, when a confirmation would be needed but cannot be asked:
 * no `--yes` and no terminal.
 * @throws CommandFailure exit 2 `confirmation_required`, naming `<command> --yes`.
 */
export function ensureCanConfirm(options: Pick<ConfirmOptions, 'yes' | 'command' | 'interactive'>): void {
  if (options.yes || (options.interactive ?? canPrompt())) return;
  fail(
    ExitCode.usage,
    `confirmation_required: stdin is not a terminal, so no confirmation can be asked and nothing was changed; to proceed run \`${options.command} --yes\``,
  );
}

/**
 * Returns when the user confirmed (or `--yes`).
 * @throws CommandFailure exit 2 `confirmation_required` without a terminal and without `--yes`
 *   (see {@link ensureCanConfirm}); exit 1 `cancelled` when the user answers anything but
 *   `y`/`yes` (nothing was changed).
 */
export async function confirmDestructive(options: ConfirmOptions): Promise<void> {
  if (options.yes) return;
  ensureCanConfirm(options);
  const answer = await askLine(`${options.question} [y/N] `);
  if (!/^y(es)?$/i.test(answer)) fail(ExitCode.refused, 'cancelled: nothing was changed');
}

/**
 * The name of the item `id` in a list, for a confirmation question; undefined when the list
 * cannot be read or has no such item (the question then names the id only; the request that
 * follows reports what is wrong).
 */
export async function nameOf(list: () => Promise<ReadonlyArray<{ id: string; name: string }>>, id: string): Promise<string | undefined> {
  try {
    return (await list()).find((k) => k.id === id)?.name;
  } catch {
    return undefined;
  }
}
