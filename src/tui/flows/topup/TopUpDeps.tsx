/**
 * What the Billing pane and the top-up walk-through need from outside besides the shell's
 * services: the top-up journal, the browser opener, the sandbox transfer simulation and the
 * bell. Defaults are the real ones; tests (and embedders) replace them with
 * {@link TopUpDepsProvider}.
 */
import { createContext, useContext, type ReactNode } from 'react';
import { simulateUsdcTransfer } from '../../../api/sandbox-sim.js';
import { journalPath, TopUpJournal } from '../../../billing/journal.js';

/** See the module comment. */
export interface TopUpDeps {
  /** The journal (default: `<data dir>/topups.json`, `KEYDECK_DATA_DIR` honoured). */
  readonly journal: TopUpJournal;
  /** Opens `url` in the browser (default: the `open` package). Rejects when it cannot. */
  readonly openUrl: (url: string) => Promise<void>;
  /** Sends a simulated USDC transfer through the sandbox at `baseUrl`; returns its hash. */
  readonly simulateTransfer: (baseUrl: string, transfer: { to: string; amount: string }) => Promise<{ txHash: string }>;
  /** Pays a card checkout session on the sandbox at `baseUrl`; undefined: the real request (src/api/sandbox-sim.ts). */
  readonly payCheckout?: (baseUrl: string, sessionId: string) => Promise<void>;
  /** Rings the terminal bell; undefined: BEL written to Ink's stdout. */
  readonly bell?: () => void;
}

/**
 * Why no browser can be opened on this machine, or undefined when one may be: on Linux (not WSL)
 * with no graphical session (`DISPLAY`, `WAYLAND_DISPLAY`) and no `BROWSER` set (a server over
 * ssh, a container), xdg-open has nothing to open the page with and fails silently.
 */
export function noBrowserReason(env: NodeJS.ProcessEnv = process.env, platform: NodeJS.Platform = process.platform): string | undefined {
  if (platform !== 'linux' || env.BROWSER || env.WSL_DISTRO_NAME) return undefined;
  if (env.DISPLAY || env.WAYLAND_DISPLAY) return undefined;
  return 'no graphical session (DISPLAY and WAYLAND_DISPLAY are not set), so there is no browser to open';
}

let defaults: TopUpDeps | undefined;

/**
 * The real dependencies, made again when the journal's file (from the data dir of this run's
 * environment) is not the one they were made for: the command line runs several times in one
 * process in the suites, each run with its own environment.
 */
export function defaultTopUpDeps(): TopUpDeps {
  const path = journalPath(process.env);
  if (defaults?.journal.path !== path)
    defaults = {
      journal: new TopUpJournal({ path }),
      openUrl: async (url) => {
        const why = noBrowserReason();
        if (why !== undefined) throw new Error(why);
        const { default: open } = await import('open');
        await open(url);
      },
      simulateTransfer: (baseUrl, transfer) => simulateUsdcTransfer(baseUrl, transfer),
    };
  return defaults;
}

const TopUpDepsContext = createContext<TopUpDeps | undefined>(undefined);

/** Replaces the dependencies below it (tests). */
export function TopUpDepsProvider({ deps, children }: { readonly deps: TopUpDeps; readonly children?: ReactNode }) {
  return <TopUpDepsContext.Provider value={deps}>{children}</TopUpDepsContext.Provider>;
}

/** The dependencies in force: the provided ones, else {@link defaultTopUpDeps}. */
export function useTopUpDeps(): TopUpDeps {
  return useContext(TopUpDepsContext) ?? defaultTopUpDeps();
}
