/**
 * Renders `keydeck monitor` inline (Ink, no alternate screen: the lines stay in the terminal
 * where they were drawn) until `q` (exit 0), ctrl-c or SIGINT (130) or SIGTERM (143); resolves with the exit code.
 */
import { useWindowSize } from 'ink';
import { runInline } from '../../../runInline.js';
import type { MonitorSettings } from '../../../../billing/settings.js';
import type { AccountWatcher } from '../../../../watcher/accountWatcher.js';
import type { NotifyEvent } from '../../../../terminal/notify.js';
import { KeymapProvider } from '../../../contexts/KeymapContext.js';
import { MonitorView } from './MonitorView.js';
import type { AutoTopUpFeed } from '../../../../operations/index.js';

/** Input of {@link runMonitor}. */
export interface RunMonitorInput {
  readonly settings: MonitorSettings;
  /** The account watcher to show (src/watcher/accountWatcher.ts), started by the caller. */
  readonly watcher: AccountWatcher;
  /** Notifications (src/terminal/notify.ts). */
  readonly notify?: (event: NotifyEvent) => void;
  /** `--auto-topup`: its line (src/operations/autoTopUpRunner.ts). */
  readonly autoTopUp?: Pick<AutoTopUpFeed, 'view' | 'subscribe'>;
  /** Streams (tests); default the process's. */
  readonly stdout?: NodeJS.WriteStream;
  readonly stdin?: NodeJS.ReadStream;
}

function MonitorApp({ input, onQuit }: { readonly input: RunMonitorInput; readonly onQuit: (code: number) => void }) {
  const { columns, rows } = useWindowSize();
  return (
    <KeymapProvider onQuit={() => onQuit(0)} onInterrupt={() => onQuit(130)}>
      <MonitorView
        settings={input.settings}
        watcher={input.watcher}
        onQuit={() => onQuit(0)}
        columns={columns}
        rows={rows}
        {...(input.notify && { notify: input.notify })}
        {...(input.autoTopUp && { autoTopUp: input.autoTopUp })}
      />
    </KeymapProvider>
  );
}

/** See the module comment. */
export function runMonitor(input: RunMonitorInput): Promise<number> {
  return runInline((quit) => <MonitorApp input={input} onQuit={quit} />, input);
}
