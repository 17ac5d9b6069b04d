/**
 * `keydeck` (and `keydeck --sandbox`): resolves the profile, starts the embedded sandbox when
 * asked (imported dynamically: the TUI never loads Fastify otherwise), draws the first frame
 * (./BootFrame.tsx: header and tabs, with Ink alone), then loads ./session.tsx, which builds the
 * services (API clients, credential store, history database) and the app, and hands the screen
 * over to it. One exit site (lifecycle.ts) for every way out (q, ctrl-c, SIGTERM, SIGHUP,
 * SIGINT, an uncaught error, the app failing to load).
 */
import type { ReactElement } from 'react';
import { render } from 'ink';
import { insecureHttpFromEnv, insecureHttpProblem } from '../api/baseUrl.js';
import type { TuiGlobals } from './globals.js';
import { ConfigError, resolveProfile, sandboxDbPath } from '../config/index.js';
import { belowSentence, noSuchProfileSentence, readOnlySentence } from '../words/index.js';
import { guardedStdout } from '../terminal/outputGuard.js';
import { BootFrame } from './BootFrame.js';
import { createLifecycle } from './lifecycle.js';
import { ERASE_SCREEN, repaintAfterResize } from './repaint.js';

/** Ink render options of the app (exported for the benchmarks). */
export const RENDER_OPTIONS = {
  alternateScreen: true,
  incrementalRendering: true,
  maxFps: 60,
  exitOnCtrlC: false,
  patchConsole: false,
} as const;

/**
 * Runs the TUI until the user quits. Resolves once the terminal is restored; the exit code is
 * in `process.exitCode` (0 quit, 1 error, 2 bad profile/config, 129/130/143 signals).
 */
export async function runTui(globals: TuiGlobals): Promise<void> {
  let sandbox: { url: string; token: string; joinedDialect?: string; close(): Promise<void> } | undefined;
  /** Said on the status line once the app is up (the screen is the app's by then). */
  const startNotices: string[] = [];
  if (globals.sandbox) {
    const dbPath = sandboxDbPath();
    try {
      // One sandbox per database for every keydeck process (src/sandbox/shared.ts): served here on
      // the port of its last start, or joined when another keydeck --sandbox serves it already
      // (and taken over when that one ends: the app stays open).
      const shared = await import('../sandbox/shared.js');
      sandbox = await shared.openSharedSandbox({
        dbPath,
        keep: true,
        ...(globals.sandboxDialect && { dialect: globals.sandboxDialect }),
        ...(globals.sandboxChain && { chain: globals.sandboxChain }),
      });
      const notice = shared.joinedDialectNotice(sandbox, globals.sandboxDialect);
      if (notice !== undefined) startNotices.push(`${notice}.`);
    } catch (error) {
      process.stderr.write(`keydeck: could not start the sandbox (${dbPath}): ${error instanceof Error ? error.message : String(error)}\n`);
      process.exitCode = 1;
      return;
    }
  }

  let profile;
  try {
    profile = await resolveProfile({
      ...(globals.profile !== undefined && { profile: globals.profile, ...(globals.profileSource !== undefined && { profileSource: globals.profileSource }) }),
      ...(globals.profile === undefined && sandbox && { profile: 'sandbox', profileSource: 'sandbox' as const }),
      ...((sandbox?.url ?? globals.baseUrl) !== undefined && { baseUrl: sandbox?.url ?? globals.baseUrl }),
      ...(globals.readOnly === true && { readOnly: true }),
    });
  } catch (error) {
    await sandbox?.close();
    process.stderr.write(`keydeck: ${belowSentence(error) ?? (error instanceof ConfigError || error instanceof Error ? error.message : String(error))}\n`);
    process.exitCode = 2;
    return;
  }
  // With --sandbox, --profile names the profile whose settings apply: one the config file has.
  if (sandbox && !profile.inConfig && profile.name !== 'sandbox') {
    await sandbox.close();
    process.stderr.write(`keydeck: ${noSuchProfileSentence(profile.name)}.\n`);
    process.exitCode = 2;
    return;
  }

  // --auto-topup charges the card by itself: refused on a read-only profile before anything is drawn (exit 3).
  if (globals.autoTopup && profile.readOnly !== undefined) {
    await sandbox?.close();
    process.stderr.write(`keydeck: ${readOnlySentence(profile, 'act on auto top-up (--auto-topup)')}.\n`);
    process.exitCode = 3;
    return;
  }

  // No key over plain http to another machine without the opt-in: said before anything is drawn.
  const allowInsecureHttp = globals.allowInsecureHttp === true || insecureHttpFromEnv();
  const insecure = profile.baseUrl !== undefined ? insecureHttpProblem(profile.baseUrl, allowInsecureHttp) : undefined;
  if (insecure !== undefined) {
    await sandbox?.close();
    process.stderr.write(`keydeck: ${insecure}.\n`);
    process.exitCode = 2;
    return;
  }

  // A sandbox on this machine reached with --base-url (keydeck sandbox, another --sandbox) is
  // SANDBOX, not LIVE: asked before the first frame, which wears the badge (GET /sandbox, ≤ 1.5 s;
  // only for plain http on loopback, where the real service never is).
  let target: 'sandbox' | 'live' = sandbox ? 'sandbox' : 'live';
  if (!sandbox && profile.baseUrl !== undefined) {
    const { isLocalSandbox } = await import('../api/sandboxProbe.js');
    if (await isLocalSandbox(profile.baseUrl)) target = 'sandbox';
  }

  let instance: ReturnType<typeof render> | undefined;
  const lifecycle = createLifecycle({
    unmount: () => instance?.unmount(),
    waitUntilExit: () => instance?.waitUntilExit() ?? Promise.resolve(),
  });
  if (sandbox) {
    const running = sandbox;
    lifecycle.addSecret(running.token);
    lifecycle.onCleanup(() => running.close());
  }

  const onSignal = (code: number) => () => void lifecycle.exit(code);
  const signals: Array<[NodeJS.Signals, () => void]> = [
    ['SIGTERM', onSignal(143)],
    ['SIGHUP', onSignal(129)],
    ['SIGINT', onSignal(130)],
  ];
  const onCrash = (error: unknown) => {
    void lifecycle.exit(1, `keydeck: unexpected error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  };
  for (const [signal, handler] of signals) process.on(signal, handler);
  process.on('uncaughtException', onCrash);
  process.on('unhandledRejection', onCrash);

  // Keys typed while the app loads must neither echo onto the frame nor be lost: the terminal leaves
  // cooked mode now, and the keys wait in it until the app's input starts reading (Ink then sets
  // raw mode again and reads them, in order). Restored at exit by Ink, or here if the app never came.
  if (process.stdin.isTTY) {
    process.stdin.setRawMode(true);
    lifecycle.onCleanup(() => {
      if (process.stdin.isRaw) process.stdin.setRawMode(false);
    });
  }
  // The first frame (header and tabs) is drawn with Ink alone, then the app loads and replaces
  // it (BootFrame.tsx, session.tsx): the client, zod's schemas, the panes and node:sqlite are
  // read after the user sees keydeck, not before. Ink's stdout has a last net under
  // it: only the sequences Ink writes get through (src/terminal/outputGuard.ts).
  let element: ReactElement = <BootFrame target={target} profileName={profile.name} baseUrl={profile.baseUrl} readOnly={profile.readOnly !== undefined} />;
  const ink = render(element, { ...RENDER_OPTIONS, stdout: guardedStdout(process.stdout) });
  instance = ink;
  // After a resize storm, one full repaint puts right what racing frames left (repaint.ts).
  const stopRepainting = repaintAfterResize({
    stdout: process.stdout,
    repaint: () => {
      if (lifecycle.exiting) return;
      ink.clear();
      process.stdout.write(ERASE_SCREEN);
      ink.rerender(element);
    },
  });
  lifecycle.onCleanup(stopRepainting);
  ink.waitUntilExit().then(
    () => void lifecycle.exit(process.exitCode === undefined ? 0 : Number(process.exitCode)),
    (error: unknown) => onCrash(error),
  );
  // Asked for once the first frame is drawn: loading it earlier delayed that frame (it competes
  // with Ink's first render for the one thread).
  import('./session.js').then(
    ({ sessionApp }) => {
      if (lifecycle.exiting) return;
      element = sessionApp({ globals, profile, sandbox, target, allowInsecureHttp, lifecycle, redraw: () => ink.clear(), notices: startNotices });
      ink.rerender(element);
    },
    (error: unknown) => onCrash(error),
  );

  const code = await lifecycle.done;
  for (const [signal, handler] of signals) process.off(signal, handler);
  process.off('uncaughtException', onCrash);
  process.off('unhandledRejection', onCrash);
  // Anything still open (a socket in a half-closed state, stdin on some platforms) must not
  // keep keydeck running after the user quit.
  setTimeout(() => process.exit(code), 1000).unref();
}
