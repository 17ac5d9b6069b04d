/**
 * Confirmation of destructive commands (`keys delete`, `keys disable`, `mgmt-keys delete`):
 * with `--yes` nothing is asked; on a terminal a y/N question on stderr (default no); without a
 * terminal (stdin or stderr not a TTY) the command refuses with exit 2 and names `--yes`, so a
 * script never waits for an answer nobody gives. On a profile marked `protected`
 * (src/config/profileMarks.ts) a delete or a deactivation asks for the key's name typed instead,
 * and a script gives it with `--confirm-name NAME` beside `--yes`.
 */
import { formatUsd } from '../api/money.js';
import { confirmsName, visible } from '../terminal/sanitize.js';
import { askLine, canPrompt, ExitCode, fail } from './output.js';
import { accountWords } from './wordingAccount.js';

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
  fail(ExitCode.usage, accountWords.confirmationRequiredStdinNotTerminal, { command: options.command });
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
  if (!/^y(es)?$/i.test(answer)) fail(ExitCode.refused, accountWords.cancelledChanged);
}

/** What {@link confirmKeyChange} needs: the question, and the profile's `protected` mark (src/config/profileMarks.ts). */
export interface KeyChangeConfirmation extends ConfirmOptions {
  /** `--confirm-name NAME`: the key's name, given by a script; when given it must match, whatever the profile. */
  readonly confirmName?: string;
  /** The profile is marked `protected`: the key's name must be typed (or given with `--confirm-name`). */
  readonly protected: boolean;
  /** The profile's name, for the refusal. */
  readonly profile: string;
}

/**
 * Refuses early, before any request, when a delete or a deactivation could not be confirmed: as
 * {@link ensureCanConfirm}, and on a protected profile without a terminal, `--yes` alone is not
 * enough: it needs `--confirm-name NAME` (a script names the key it means, so an id that points at
 * another key deletes nothing).
 * @throws CommandFailure exit 2 `confirmation_required`
 */
export function ensureCanConfirmKeyChange(c: Pick<KeyChangeConfirmation, 'yes' | 'command' | 'interactive' | 'confirmName' | 'protected' | 'profile'>): void {
  if (c.confirmName !== undefined) return;
  const interactive = c.interactive ?? canPrompt();
  if (c.protected && !interactive) {
    fail(ExitCode.usage, accountWords.confirmationRequiredProfileProtectedSo, { profile: c.profile });
  }
  ensureCanConfirm(c);
}

/**
 * Confirms a delete or a deactivation of the key named `name`: `--confirm-name` must match it
 * (then nothing is asked); on a protected profile the name is typed on the terminal, as GitHub asks
 * for a repository's (`--yes` does not skip it); otherwise as {@link confirmDestructive}.
 * @throws CommandFailure exit 1 `name_mismatch` (the name given or typed is not the key's) or
 *   `cancelled`; exit 2 as {@link ensureCanConfirmKeyChange}
 */
export async function confirmKeyChange(c: KeyChangeConfirmation & { readonly name: string; readonly ask?: (question: string) => Promise<string> }): Promise<void> {
  if (c.confirmName !== undefined) {
    if (!confirmsName(c.confirmName, c.name)) {
      fail(ExitCode.refused, accountWords.nameMismatch, { confirmName: c.confirmName, name: c.name });
    }
    return;
  }
  if (!c.protected) return confirmDestructive(c);
  ensureCanConfirmKeyChange(c);
  const typed = await (c.ask ?? askLine)(`${c.question} The profile "${c.profile}" is protected: type the key's name to confirm (${visible(c.name)}): `);
  if (!confirmsName(typed, c.name)) fail(ExitCode.refused, accountWords.cancelledNameTypedNot);
}

/** What {@link confirmTopUp} needs to know about the top-up and the profile. */
export interface TopUpConfirmation {
  /** USD, already parsed (≥ 10, two decimals). */
  readonly amount: number;
  readonly method: 'card_checkout' | 'card_direct' | 'usdc';
  /** The profile's ceiling, USD (`confirmAboveUsd`, default 500): a larger amount is typed again. */
  readonly ceilingUsd: number;
  /** `--yes` was given. */
  readonly yes?: boolean;
  /** The command line to repeat with `--yes`: `keydeck billing topup --amount 10 --method card_direct`. */
  readonly command: string;
  /** Default {@link canPrompt}. */
  readonly interactive?: boolean;
  /** Asks one line (default {@link askLine}); tests may replace it. */
  readonly ask?: (question: string) => Promise<string>;
}

/** True when `billing topup` must ask before sending: a card-on-file charge, or an amount above the ceiling. */
export function topUpNeedsConfirmation(c: Pick<TopUpConfirmation, 'amount' | 'method' | 'ceilingUsd'>): boolean {
  return c.method === 'card_direct' || Math.round(c.amount * 100) > Math.round(c.ceilingUsd * 100);
}

/**
 * Confirms a money action of `billing topup`: a card-on-file charge asks
 * `Charge $10.00 to the card on file? [y/N]` (default no); an amount above the profile's ceiling
 * must be typed again. With `--yes` nothing is asked; without a terminal and without `--yes` it
 * refuses before anything is sent.
 * @throws CommandFailure exit 2 `confirmation_required` (no terminal, no `--yes`); exit 1
 *   `cancelled` when the answer is not yes or the amount typed again differs (nothing was sent).
 */
export async function confirmTopUp(c: TopUpConfirmation): Promise<void> {
  if (c.yes || !topUpNeedsConfirmation(c)) return;
  ensureCanConfirm(c);
  const ask = c.ask ?? askLine;
  if (Math.round(c.amount * 100) > Math.round(c.ceilingUsd * 100)) {
    const again = (await ask(`${formatUsd(c.amount)} is above this profile's top-up ceiling of ${formatUsd(c.ceilingUsd)} (confirmAboveUsd). Type the amount again to confirm: `))
      .replace(/^\$/, '')
      .replace(/,/g, '');
    const cents = /^\d+(\.\d{1,2})?$/.test(again) ? Math.round(Number(again) * 100) : undefined;
    if (cents !== Math.round(c.amount * 100)) fail(ExitCode.refused, accountWords.cancelledAmountTypedAgain, { amount: c.amount });
  }
  if (c.method === 'card_direct') {
    const answer = await ask(`Charge ${formatUsd(c.amount)} to the card on file? [y/N] `);
    if (!/^y(es)?$/i.test(answer)) fail(ExitCode.refused, accountWords.cancelledCharged);
  }
}
