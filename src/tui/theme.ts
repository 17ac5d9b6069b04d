/**
 * Colours and symbols of the TUI. Colour always doubles a word or a symbol, never carries
 * meaning alone, and follows keydeck's one colour rule (src/terminal/color.ts, the rule of
 * Node's `util.styleText` with stream validation: `FORCE_COLOR`, `NO_COLOR`, `TERM=dumb`, not a
 * terminal): chalk 6 (inside Ink) ignores `NO_COLOR`, so every colour the app uses goes through
 * {@link theme}, whose entries are then `undefined`.
 */
import { shouldColorize, type ColorStream } from '../terminal/color.js';

/** True when colour output is allowed on `stream` (stdout) by the one colour rule. Read once at start-up. */
export function colorsEnabled(env: NodeJS.ProcessEnv = process.env, stream: ColorStream = process.stdout): boolean {
  return shouldColorize(stream, env);
}

/** An Ink `color` value, or undefined (no colour) under `NO_COLOR`. */
export type ThemeColor = string | undefined;

/** The app's palette by meaning. Each entry is an Ink colour name or undefined. */
export interface Theme {
  readonly ok: ThemeColor;
  readonly muted: ThemeColor;
  readonly danger: ThemeColor;
  readonly warning: ThemeColor;
  readonly accent: ThemeColor;
  readonly sandbox: ThemeColor;
  readonly live: ThemeColor;
}

/** Builds the palette; every entry is undefined when `enabled` is false. */
export function createTheme(enabled: boolean): Theme {
  const c = (name: string): ThemeColor => (enabled ? name : undefined);
  return {
    ok: c('green'),
    muted: c('gray'),
    danger: c('red'),
    warning: c('yellow'),
    accent: c('cyan'),
    sandbox: c('magenta'),
    live: c('red'),
  };
}

/** Colour is allowed in this process (the one colour rule on stdout). */
export const COLORS_ENABLED = colorsEnabled();

/** The palette of this process (the one colour rule). */
export const theme: Theme = createTheme(COLORS_ENABLED);

/**
 * A field placeholder (components/TextField.tsx), greyed:
 * undefined under `NO_COLOR`, where the surrounding text says the same thing.
 */
export function placeholderText(text: string): string | undefined {
  return COLORS_ENABLED ? text : undefined;
}

/** Symbols that carry meaning next to words (all single-column wide). */
export const symbols = {
  active: '●',
  inactive: '○',
  expired: '✕',
  selected: '▶',
  inUse: '◆',
  warning: '⚠',
  online: '●',
  offline: '✕',
} as const;
