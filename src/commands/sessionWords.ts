/**
 * The sentences of a command's session that cannot open (./output.ts openSession): a profile
 * without a base URL, a profile without a key. Re-exported by ./output.ts.
 */
import { noSuchProfileSentence } from '../config/profile.js';
import type { CredentialStore } from '../credentials/index.js';
import { originOf } from '../credentials/index.js';

/**
 * The sentence for a profile without a base URL: a profile the config file does not have (other
 * than `default`, which exists before anything is saved) is "no such profile", naming how to see
 * the others and how to create it.
 */
export function noBaseUrlSentence(profile: { readonly name: string; readonly inConfig?: boolean }): string {
  if (profile.inConfig === false && profile.name !== 'default') return noSuchProfileSentence(profile.name);
  const login = `keydeck auth login${profile.name === 'default' ? '' : ` --profile ${profile.name}`} --base-url URL`;
  return `profile "${profile.name}" has no base URL: pass --base-url URL (or set KEYDECK_BASE_URL), or save one with \`${login}\``;
}

/**
 * The sentence for a profile without a key, with the keychain's reason when it could not be asked.
 * When the base URL is another service than the profile's saved one, it says that keys are kept
 * per service and how to get one for this service.
 */
export async function noCredentialSentence(
  profile: string,
  store: CredentialStore,
  where: { readonly baseUrl?: string; readonly savedBaseUrl?: string } = {},
  options: { readonly keychainReason?: boolean } = {},
): Promise<string> {
  const status = options.keychainReason === false ? { available: true } : await store.keychainStatus();
  const why = status.available ? '' : `; the keychain could not be asked: ${(status as { reason?: string }).reason}`;
  if (where.baseUrl !== undefined && where.savedBaseUrl !== undefined && originOf(where.baseUrl) !== originOf(where.savedBaseUrl)) {
    return (
      `no key for profile "${profile}" at ${originOf(where.baseUrl)} (its stored key belongs to ${originOf(where.savedBaseUrl)}, and keydeck ` +
      `sends a key only to the service it was made for): run \`keydeck auth login --base-url ${where.baseUrl}\`, or set KEYDECK_TOKEN${why}`
    );
  }
  return `no key for profile "${profile}"${where.baseUrl !== undefined ? ` at ${originOf(where.baseUrl)}` : ''}: run \`keydeck auth login\`, or set KEYDECK_TOKEN${why}`;
}
