/**
 * What runs around the app (src/tui/session.tsx renders it): every profile's account watcher
 * (src/watcher/profileWatchers.ts), and the profile the app shows. The other profiles' watchers start
 * once the config file is read, after the first frame; the watcher of the profile shown starts when
 * the Accounts pane is first shown (until then the app's own watcher is the only one reading it: a
 * run on a single profile that never shows the pane reads nothing twice). Each runs on for the run. Opening another profile from the Accounts pane starts the app
 * again on that profile (its own services, session, watcher and panes: nothing of the previous
 * account is carried over), while the watchers of every profile run on.
 */
import { useEffect, useMemo, useState, type ReactElement } from 'react';
import type { ResolvedProfile } from '../../config/profile.js';
import type { ProfileWatch } from '../../watcher/profileWatchers.js';
import type { AppServices } from '../services.js';
import { App } from '../App.js';
import { AccountsContext, type AccountsValue } from './AccountsContext.js';

/** Props of {@link AccountsRoot}. */
export interface AccountsRootProps {
  /** The profile the app starts on (as the flags resolved it). */
  readonly start: ResolvedProfile;
  /** The app's services for `profile` (built once per profile shown). */
  readonly servicesFor: (profile: ResolvedProfile) => AppServices;
  /** Finds out, before a profile is opened, what its header says (SANDBOX or LIVE). Never throws. */
  readonly targetOf: (profile: ResolvedProfile) => Promise<void>;
  /** Lists the profiles and makes their watchers (not started). @throws when the config file cannot be read: said on the pane. */
  readonly watchAll: () => Promise<ProfileWatch[]>;
  /** Hands the watchers' stop to the app's end (src/tui/lifecycle.ts `waitUntil`): their polls end before the history database closes. */
  readonly waitUntil: <T>(work: Promise<T>) => Promise<T>;
}

/** See the module comment. */
export function AccountsRoot({ start, servicesFor, targetOf, watchAll, waitUntil }: AccountsRootProps): ReactElement {
  const [watches, setWatches] = useState<readonly ProfileWatch[]>([]);
  const [problem, setProblem] = useState<string | undefined>(undefined);
  const [current, setCurrent] = useState<ResolvedProfile>(start);
  const [opened, setOpened] = useState(false);
  const [wanted, setWanted] = useState(false);
  useEffect(() => {
    let made: ProfileWatch[] = [];
    let gone = false;
    void watchAll().then(
      (list) => {
        if (gone) return;
        made = list;
        setWatches(list);
      },
      (error: unknown) => !gone && setProblem(error instanceof Error ? error.message : String(error)),
    );
    return () => {
      gone = true;
      for (const w of made) void waitUntil(w.watcher.stop());
    };
  }, [watchAll, waitUntil]);
  // The other profiles are read from the start; the one the app shows (its own watcher reads it)
  // only once the pane is shown. Idempotent: a watcher started stays started.
  useEffect(() => {
    for (const w of watches) if (wanted || w.profile.name !== current.name) w.watcher.start();
  }, [watches, wanted, current]);
  const services = useMemo(() => servicesFor(current), [servicesFor, current]);
  const value = useMemo(
    (): AccountsValue => ({
      watches,
      current: current.name,
      problem,
      want: () => setWanted(true),
      open: (name) => {
        const found = watches.find((w) => w.profile.name === name);
        if (!found) return;
        void targetOf(found.profile).then(() => {
          setCurrent(found.profile);
          setOpened(true);
        });
      },
    }),
    [watches, current, problem, targetOf],
  );
  return (
    <AccountsContext.Provider value={value}>
      <App key={current.name} services={services} {...(opened && { initialPane: 'keys' as const })} />
    </AccountsContext.Provider>
  );
}
