/**
 * Operating System Command sequences keydeck writes to the terminal: OSC 52 (set
 * the clipboard) and the desktop-notification OSCs (9, 777, 99), each wrapped for the
 * multiplexer in between: inside tmux (`TMUX` set) in its DCS passthrough (`ESC P tmux; …
 * ESC \`, every ESC doubled; tmux ≥ 3.3 needs `set -g allow-passthrough on`), inside GNU screen
 * (`STY` set, `TERM` screen*) in a DCS string cut into pieces of at most 768 bytes (screen's
 * limit). Text put into a sequence is the caller's own or sanitised here: no control character
 * can end the sequence early. Pure.
 */

import { flatText } from './sanitize.js';

const ESC = '\x1b';
const BEL = '\x07';
const ST = `${ESC}\\`;

/** The multiplexer between keydeck and the terminal, from the environment. */
export type Multiplexer = 'tmux' | 'screen' | 'none';

/** `tmux` when `TMUX` is set, `screen` when `STY` is set (or `TERM` is screen* outside tmux), else `none`. */
export function multiplexerOf(env: NodeJS.ProcessEnv = process.env): Multiplexer {
  if (env.TMUX) return 'tmux';
  if (env.STY || /^screen/.test(env.TERM ?? '')) return 'screen';
  return 'none';
}

/** `sequence` wrapped so that it reaches the outer terminal through `mux` (see the module comment). */
export function passthrough(sequence: string, mux: Multiplexer): string {
  if (mux === 'tmux') return `${ESC}Ptmux;${sequence.replaceAll(ESC, ESC + ESC)}${ST}`;
  if (mux === 'screen') {
    const pieces: string[] = [];
    for (let i = 0; i < sequence.length; i += 768) pieces.push(`${ESC}P${sequence.slice(i, i + 768)}${ST}`);
    return pieces.join('');
  }
  return sequence;
}

/** The OSC 52 "set the clipboard" sequence for `text` (base64, so any text is safe), for `env`'s multiplexer. */
export function osc52(text: string, env: NodeJS.ProcessEnv = process.env): string {
  return passthrough(`${ESC}]52;c;${Buffer.from(text, 'utf8').toString('base64')}${BEL}`, multiplexerOf(env));
}

/**
 * `text` for inside an OSC: the one sanitiser's flat form (./sanitize.ts `flatText`: no control
 * character, which could end the sequence early, no bidi, zero-width or other invisible format
 * character, which could spoof what the notification says), at most `max` characters.
 */
export function oscText(text: string, max = 240): string {
  return flatText(text, max);
}

/** How the terminal shows a notification. */
export type NotificationProtocol = 'osc9' | 'osc777' | 'osc99';

/**
 * The notification protocol the terminal understands, from the environment: kitty OSC 99;
 * foot, urxvt, VTE terminals (GNOME Terminal, Tilix…), Konsole and Ghostty OSC 777; iTerm2,
 * WezTerm, Windows Terminal and the rest OSC 9 (widely understood; ignored where not).
 */
export function notificationProtocolOf(env: NodeJS.ProcessEnv = process.env): NotificationProtocol {
  const term = env.TERM ?? '';
  const program = env.TERM_PROGRAM ?? '';
  if (env.KITTY_WINDOW_ID || term === 'xterm-kitty') return 'osc99';
  if (/^foot/.test(term) || /^rxvt-unicode/.test(term) || env.VTE_VERSION || env.KONSOLE_VERSION || program === 'ghostty' || term === 'xterm-ghostty') return 'osc777';
  return 'osc9';
}

/** The notification sequence (`title`, `body`) in `protocol`, wrapped for `env`'s multiplexer. Both texts are sanitised. */
export function notificationSequence(title: string, body: string, protocol: NotificationProtocol, env: NodeJS.ProcessEnv = process.env): string {
  const t = oscText(title, 80);
  const b = oscText(body);
  let sequence: string;
  if (protocol === 'osc99') {
    // kitty: the title (d=0: more to come), then the body; `;` is the payload separator, `:` the key separator.
    sequence = `${ESC}]99;i=keydeck:d=0:p=title;${t}${ST}${ESC}]99;i=keydeck:d=1:p=body;${b}${ST}`;
  } else if (protocol === 'osc777') {
    sequence = `${ESC}]777;notify;${t.replaceAll(';', ',')};${b.replaceAll(';', ',')}${BEL}`;
  } else {
    sequence = `${ESC}]9;${t}: ${b}${BEL}`;
  }
  return passthrough(sequence, multiplexerOf(env));
}
