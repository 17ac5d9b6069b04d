/**
 * Copying a key: an OSC 52 escape written to the terminal (works over SSH where the terminal
 * supports it, and through tmux and screen in their passthrough: src/terminal/osc.ts; its
 * success cannot be observed, and the user is told so), then the system clipboard through clipboardy
 * (loaded only when used; fails on a headless machine). Never throws.
 *
 * And clearing it once the key is acknowledged: the system clipboard is
 * emptied only while it still holds the key (something copied since is left alone); the
 * terminal's clipboard, which cannot be read, is asked to clear with an empty OSC 52 when the key
 * may still be there. What happened is said ({@link ClearOutcome}).
 */
import type { ClearOutcome, CopyOutcome } from './services.js';

import { osc52 } from '../terminal/osc.js';

/** Copies `text`: OSC 52 to `out`, then clipboardy with a 2 s limit. */
export async function copyText(text: string, out: NodeJS.WritableStream = process.stdout): Promise<CopyOutcome> {
  let sent = false;
  try {
    out.write(osc52(text));
    sent = true;
  } catch {
    // The terminal went away: try the system clipboard anyway.
  }
  try {
    const { default: clipboard } = await import('clipboardy');
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      clipboard.write(text),
      new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error('clipboard timed out')), 2000);
      }),
    ]).finally(() => clearTimeout(timer));
    return 'clipboard';
  } catch {
    // no clipboard program: OSC 52 if it was sent, else said as failed
    return sent ? 'osc52' : 'failed';
  }
}

/** `promise`, or a rejection after `ms`. */
async function within<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    promise,
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error('clipboard timed out')), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}

/**
 * Clears `secret` from where {@link copyText} put it (`via`: the system clipboard took it, or only
 * the terminal's OSC 52): `cleared` (the system clipboard held it and is now empty; the terminal's
 * is asked to clear too), `changed` (the system clipboard holds something else now: left alone),
 * `osc52` (the terminal was asked to clear its clipboard: not confirmable), `unknown` (nothing
 * could be done). `clipboard` is the system clipboard (default clipboardy, loaded when used).
 * Never throws.
 */
export async function clearCopied(
  secret: string,
  via: 'clipboard' | 'osc52',
  out: NodeJS.WritableStream = process.stdout,
  clipboard?: { read(): Promise<string>; write(text: string): Promise<void> },
): Promise<ClearOutcome> {
  const clearTerminal = (): boolean => {
    try {
      out.write(osc52(''));
      return true;
    } catch {
      // the terminal is gone: nothing to clear
      return false;
    }
  };
  if (via === 'clipboard') {
    try {
      const system = clipboard ?? (await import('clipboardy')).default;
      if ((await within(system.read(), 2000)) !== secret) return 'changed';
      await within(system.write(''), 2000);
      clearTerminal();
      return 'cleared';
    } catch {
      // The system clipboard cannot be read now: the terminal's is all that can be asked.
    }
  }
  return clearTerminal() ? 'osc52' : 'unknown';
}
