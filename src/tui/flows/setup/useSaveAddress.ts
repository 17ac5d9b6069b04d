/**
 * Saving the address the guided setup ran against in the profile (never with --sandbox, whose
 * address is the sandbox's own): once a key works there, and when setup is quit after the token
 * worked there, so that the next run needs only the token (./../SetupFlow.tsx).
 */
import { useServices } from '../../contexts/ServicesContext.js';
import type { Flash } from '../../contexts/StatusContext.js';
import { describeFailure } from '../../errors.js';

/** The two ways {@link useSaveAddress} saves an address. */
export interface SaveAddress {
  /** Saves `url` in the profile; a failure is said on the status line. */
  readonly saveUrl: (url: string) => Promise<void>;
  /**
   * Saves `url` in the profile before setup is quit. Returns the words to add to the exit message
   * (`; the address … is saved in profile "default"`), or '' when there is nothing to save.
   */
  readonly saveUrlQuietly: (url: string) => Promise<string>;
}

/** See the module comment; `flash` is the setup's status line. */
export function useSaveAddress(flash: Flash): SaveAddress {
  const services = useServices();
  return {
    saveUrl: async (url) => {
      if (!services.saveBaseUrl || url === services.profile.savedBaseUrl) return;
      try {
        await services.saveBaseUrl(url);
      } catch (error) {
        flash(`could not save the address in the profile: ${describeFailure(error)}`, 'warning');
      }
    },
    saveUrlQuietly: async (url) => {
      if (!services.saveBaseUrl) return '';
      if (url === services.profile.savedBaseUrl) return `; the address ${url} is the one profile "${services.profile.name}" has`;
      try {
        await services.saveBaseUrl(url);
        return `; the address ${url} is saved in profile "${services.profile.name}"`;
      } catch (error) {
        return `; the address ${url} could not be saved (${describeFailure(error)}): pass --base-url ${url}`;
      }
    },
  };
}
