/**
 * Copying a key: an OSC 52 escape written to the terminal (works over SSH where the terminal
 * supports it, and through tmux and screen in their passthrough: src/terminal/osc.ts; its
 * success cannot be observed, and the user is told so), then the system clipboard through clipboardy
 * (loaded only when used; fails on a headless machine). Never throws.
 */
import type { CopyOutcome } from './services.js';

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
    return sent ? 'osc52' : 'failed';
  }
}
