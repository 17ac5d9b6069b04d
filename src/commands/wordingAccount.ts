/**
 * The wording table of the account commands (auth, profile, the session, confirmations): every way one of them fails, a row naming its
 * stable code and wording its facts (docs/architecture.md, "The error type"). A command fails with
 * `fail(ExitCode…, accountWords.row, facts)` (./failure.ts), never with a sentence of its own.
 */
import { errorText, row } from './failure.js';
import { noSuchProfileSentence } from '../words/index.js';
import { originOf } from '../credentials/index.js';
import { TOKEN_ENV_VAR } from '../credentials/env.js';
import { visible } from '../terminal/sanitize.js';
import { formatUsd } from '../api/money.js';

/** Each failure of the account commands (auth, profile, the session, confirmations): its code and its sentence from the facts. */
export const accountWords = {
  noBaseUrl: row('no_base_url', (f: { readonly name: string; readonly inConfig?: boolean }) => {
    if (f.inConfig === false && f.name !== 'default') return noSuchProfileSentence(f.name);
    const login = `keydeck auth login${f.name === 'default' ? '' : ` --profile ${f.name}`} --base-url URL`;
    return `profile "${f.name}" has no base URL: pass --base-url URL (or set KEYDECK_BASE_URL), or save one with \`${login}\``;
  }),
  noCredential: row('no_credential', (f: { readonly profile: string; readonly baseUrl?: string; readonly savedBaseUrl?: string; readonly keychainReason?: string }) => {
    const why = f.keychainReason === undefined ? '' : `; the keychain could not be asked: ${f.keychainReason}`;
    if (f.baseUrl !== undefined && f.savedBaseUrl !== undefined && originOf(f.baseUrl) !== originOf(f.savedBaseUrl)) {
      return (
        `no key for profile "${f.profile}" at ${originOf(f.baseUrl)} (its stored key belongs to ${originOf(f.savedBaseUrl)}, and keydeck ` +
        `sends a key only to the service it was made for): run \`keydeck auth login --base-url ${f.baseUrl}\`, or set KEYDECK_TOKEN${why}`
      );
    }
    return `no key for profile "${f.profile}"${f.baseUrl !== undefined ? ` at ${originOf(f.baseUrl)}` : ''}: run \`keydeck auth login\`, or set KEYDECK_TOKEN${why}`;
  }),
  exporterFlagsWithoutExporter: row('usage', () => 'the exporter’s flags (--listen, --all-profiles, --token-file, --token-dir) check an exporter’s setup: add --exporter'),
  profileAddNeedsBaseUrl: row('usage', () => 'profile add needs --base-url URL'),
  noSuchProfile: row(
    'no_such_profile',
    (f: { name: string; names: readonly string[] }) =>
      `there is no profile "${f.name}" (${f.names.length > 0 ? `profiles: ${f.names.join(', ')}` : 'no profiles yet'}): add it with keydeck profile add ${f.name} --base-url URL`,
  ),
  loginNeedsBaseUrl: row(
    'usage',
    (f: { name: string }) =>
      `profile "${f.name}" has no base URL and there is no terminal to ask for one: pass --base-url URL ` +
      '(keydeck has no built-in address for the service; for the sandbox, use the URL `keydeck sandbox` prints)',
  ),
  keychainUnavailable: row(
    'refused',
    (f: { reason: string | undefined }) =>
      `cannot store the key: ${f.reason}. Nothing was sent or written. To go on without a keychain, re-run with ` +
      `--insecure-storage (the key is then kept in plaintext in the config dir, mode 0600), or set ${TOKEN_ENV_VAR} for each run instead of storing it`,
  ),
  keychainHung: row(
    'refused',
    (f: { name: string; keychainError: string }) =>
      `could not reach the keychain, so the key of profile "${f.name}" stored there (if any) is still there: ${f.keychainError.replace(/\.$/, '')}; ` +
      'try again once the keychain answers (or remove the entry with your keychain tool)',
  ),
  usageSandboxBaseUrl: row('usage', () => '--sandbox and --base-url name two different services: give one of them'),
  sandboxUnavailable: row('sandbox_unavailable', (f: { dbPath: string; error: unknown }) => `could not start the sandbox (${f.dbPath}): ${errorText(f.error)}`),
  usageNoTokenGiven: row('usage', () => 'no token given and no terminal to ask for one: pipe it with --token-stdin (e.g. `printf %s "$TOKEN" | keydeck auth login --token-stdin`)'),
  nothingToRevokeNoKeyStored: row('nothing_to_revoke', (f: { name: string }) => `no key is stored for profile "${f.name}", so there is nothing to revoke`),
  nothingToRevokeStoredTokenNot: row('nothing_to_revoke', () => 'the stored token is not a management key, so there is nothing to revoke'),
  confirmationRequiredStdinNotTerminal: row(
    'confirmation_required',
    (f: { command: string }) => `confirmation_required: stdin is not a terminal, so no confirmation can be asked and nothing was changed; to proceed run \`${f.command} --yes\``,
  ),
  cancelledChanged: row('cancelled', () => 'cancelled: nothing was changed'),
  confirmationRequiredProfileProtectedSo: row(
    'confirmation_required',
    (f: { profile: string }) =>
      `confirmation_required: the profile "${f.profile}" is protected, so a delete or a deactivation needs the key's name: add --confirm-name NAME (with --yes); nothing was changed`,
  ),
  nameMismatch: row(
    'name_mismatch',
    (f: { confirmName: string; name: string }) => `name_mismatch: --confirm-name "${visible(f.confirmName)}" is not the name of that key ("${visible(f.name)}"); nothing was changed`,
  ),
  cancelledNameTypedNot: row('cancelled', () => 'cancelled: the name typed is not the key’s; nothing was changed'),
  cancelledAmountTypedAgain: row('cancelled', (f: { amount: number }) => `cancelled: the amount typed again does not match ${formatUsd(f.amount)}; nothing was requested`),
  cancelledCharged: row('cancelled', () => 'cancelled: nothing was charged'),
  invalidInput: row('invalid_request', (f: { what: string; problem: string }) => `invalid_request: ${f.what}: ${f.problem}`),
  invalidTxHash: row('invalid_request', (f: { problem: string }) => `invalid_request: --tx: ${f.problem}`),
  invalidFlag: row('invalid_request', (f: { flag: string; reason: string; got: string }) => `invalid_request: ${f.flag}: ${f.reason}${f.got}`),
  invalidRequestSent: row('invalid_request', (f: { error: unknown }) => `--to: ${(f.error as Error).message.replace(/\.$/, '')}; nothing was sent.`),
  profileExists: row(
    'profile_exists',
    (f: { name: string; baseUrl: string | undefined }) => `profile "${f.name}" already exists (${f.baseUrl ?? 'no base URL'}): remove it first, or pick another name`,
  ),
  usageProfileSetNeeds: row('usage', () => 'profile set needs a mark: --read-only or --no-read-only, --protected or --no-protected'),
};
