/**
 * OSC 8 hyperlinks: the checkout link is written as a link the terminal can open with
 * a click, where the terminal is known to support them; elsewhere as plain text (never an escape
 * a terminal would print). `FORCE_HYPERLINK=1` turns them on, `FORCE_HYPERLINK=0` off.
 */
import { allowHyperlink } from '../terminal/outputGuard.js';

/** True when the terminal described by `env` is known to show OSC 8 hyperlinks. */
export function supportsHyperlinks(env: NodeJS.ProcessEnv = process.env): boolean {
  if (env.FORCE_HYPERLINK !== undefined) return env.FORCE_HYPERLINK !== '0' && env.FORCE_HYPERLINK !== 'false';
  if (env.CI || env.TERM === 'dumb') return false;
  const program = env.TERM_PROGRAM ?? '';
  if (['iTerm.app', 'WezTerm', 'vscode', 'ghostty', 'Hyper'].includes(program)) return true;
  if (env.WT_SESSION || env.KITTY_WINDOW_ID || env.DOMTERM) return true;
  if (Number(env.VTE_VERSION ?? 0) >= 5000) return true;
  return /kitty|alacritty|foot|ghostty/.test(env.TERM ?? '');
}

/**
 * `text` as an OSC 8 hyperlink to `url` (which must already be checked and free of control
 * characters: the checkout-link rule of src/api/baseUrl.ts), or `text` itself when `enabled` is false.
 */
export function hyperlink(url: string, text: string, enabled: boolean): string {
  if (!enabled || !/^[\x21-\x7e]+$/.test(url)) return text;
  // The output guard (src/terminal/outputGuard.ts) lets exactly this link through.
  allowHyperlink(url);
  return `\u001b]8;;${url}\u0007${text}\u001b]8;;\u0007`;
}
