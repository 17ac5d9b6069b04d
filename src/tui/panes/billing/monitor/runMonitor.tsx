/**
 * Renders `keydeck monitor` inline (Ink, no alternate screen: the lines stay in the terminal
 * where they were drawn) until `q`, ctrl-c or SIGTERM; resolves with the exit code (0).
 */
import { render, useWindowSize } from 'ink';
import type { CreditBalance } from '../../../../api/schemas.js';
import type { MonitorSettings } from '../../../../billing/settings.js';
import type { HistorySeries } from '../../../../billing/historyStore.js';
import { KeymapProvider } from '../../../contexts/KeymapContext.js';
import { MonitorView } from './MonitorView.js';

/** Input of {@link runMonitor}. */
export interface RunMonitorInput {
  readonly settings: MonitorSettings;
  /** Reads the balance (KeydeckClient.getCredits). */
  readonly getCredits: (options: { signal: AbortSignal }) => Promise<CreditBalance>;
  /** The balance history on disk (absent: memory only). */
  readonly series?: HistorySeries;
  /** Streams (tests); default the process's. */
  readonly stdout?: NodeJS.WriteStream;
  readonly stdin?: NodeJS.ReadStream;
}

function MonitorApp({ input, onQuit }: { readonly input: RunMonitorInput; readonly onQuit: () => void }) {
  const { columns, rows } = useWindowSize();
  return (
    <KeymapProvider onQuit={onQuit}>
      <MonitorView settings={input.settings} getCredits={input.getCredits} onQuit={onQuit} columns={columns} rows={rows} {...(input.series && { series: input.series })} />
    </KeymapProvider>
  );
}

/** See the module comment. */
export function runMonitor(input: RunMonitorInput): Promise<number> {
  const stdout = input.stdout ?? process.stdout;
  return new Promise((resolve) => {
    let done = false;
    const quit = () => {
      if (done) return;
      done = true;
      process.off('SIGTERM', quit);
      instance.unmount();
    };
    const instance = render(<MonitorApp input={input} onQuit={quit} />, {
      stdout,
      ...(input.stdin && { stdin: input.stdin }),
      exitOnCtrlC: false,
      patchConsole: false,
      // Redraw in place even where CI=true is set: the command only runs on a terminal.
      interactive: true,
    });
    process.once('SIGTERM', quit);
    void instance.waitUntilExit().then(() => resolve(0), () => resolve(1));
  });
}
