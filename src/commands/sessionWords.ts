/**
 * The sentences of a command's session that cannot open (./output.ts openSession): a profile
 * without a base URL, a profile without a key. Re-exported by ./output.ts.
 */
import type { CredentialStore } from '../credentials/index.js';
import { accountWords } from './wordingAccount.js';

/**
 * The sentence for a profile without a base URL ({@link accountWords}`.noBaseUrl`): a profile the
 * config file does not have (other than `default`, which exists before anything is saved) is "no
 * such profile", naming how to see the others and how to create it.
 */
export function noBaseUrlSentence(profile: { readonly name: string; readonly inConfig?: boolean }): string {
  return accountWords.noBaseUrl.words(profile);
}

/** What {@link accountWords}`.noCredential` words: the profile, the service asked and the one its key was stored for, the keychain's reason when it could not be asked. */
export interface NoCredentialFacts {
  readonly profile: string;
  readonly baseUrl?: string;
  readonly savedBaseUrl?: string;
  readonly keychainReason?: string;
}

/**
 * The facts of a profile without a key: the keychain asked for its reason when it could not be
 * asked (unless `options.keychainReason` is false).
 */
export async function noCredentialFacts(
  profile: string,
  store: CredentialStore,
  where: { readonly baseUrl?: string; readonly savedBaseUrl?: string } = {},
  options: { readonly keychainReason?: boolean } = {},
): Promise<NoCredentialFacts> {
  const status = options.keychainReason === false ? { available: true } : await store.keychainStatus();
  return {
    profile,
    ...(where.baseUrl !== undefined && { baseUrl: where.baseUrl }),
    ...(where.savedBaseUrl !== undefined && { savedBaseUrl: where.savedBaseUrl }),
    ...(!status.available && { keychainReason: String((status as { reason?: string }).reason) }),
  };
}

/**
 * The sentence for a profile without a key ({@link accountWords}`.noCredential`), with the
 * keychain's reason when it could not be asked. When the base URL is another service than the
 * profile's saved one, it says that keys are kept per service and how to get one for this service.
 */
export async function noCredentialSentence(
  profile: string,
  store: CredentialStore,
  where: { readonly baseUrl?: string; readonly savedBaseUrl?: string } = {},
  options: { readonly keychainReason?: boolean } = {},
): Promise<string> {
  return accountWords.noCredential.words(await noCredentialFacts(profile, store, where, options));
}
