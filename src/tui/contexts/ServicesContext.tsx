/**
 * Publishes the injected {@link AppServices} (profile, store, client factory, clipboard, exit).
 */
import { createContext, useContext } from 'react';
import type { AppServices } from '../services.js';

/** The services of the running app; set once by <App>. */
export const ServicesContext = createContext<AppServices | undefined>(undefined);

/** The app's services. Throws when used outside <App>. */
export function useServices(): AppServices {
  const services = useContext(ServicesContext);
  if (!services) throw new Error('useServices needs <App> above it');
  return services;
}

/** The app's clock (epoch ms): services.now or Date.now. */
export function useClock(): () => number {
  return useServices().now ?? Date.now;
}
