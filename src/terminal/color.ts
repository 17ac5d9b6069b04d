/**
 * The one colour rule of keydeck, for the commands and the TUI alike: the rule of
 * Node's `util.styleText(…, { validateStream: true })`. `FORCE_COLOR` set: colour unless it
 * says `0`/`false` (it beats `NO_COLOR`, as in Node); else colour only on a terminal whose
 * colour depth is above 2, which rules out `NO_COLOR` (non-empty), `NODE_DISABLE_COLORS` and
 * `TERM=dumb` (tty.WriteStream#getColorDepth). Colour never carries meaning alone: the words
 * say the same thing.
 */
import { WriteStream } from 'node:tty';

/** What is read of a stream: whether it is a terminal, and its colour depth when it has one. */
export interface ColorStream {
  readonly isTTY?: boolean;
  getColorDepth?(env?: NodeJS.ProcessEnv): number;
}

const depthOf = (env: NodeJS.ProcessEnv): number => WriteStream.prototype.getColorDepth.call(undefined, env);

/** True when text written to `stream` may be coloured (see the module comment). Pure apart from its defaults. */
export function shouldColorize(stream: ColorStream = process.stdout, env: NodeJS.ProcessEnv = process.env): boolean {
  if (env.FORCE_COLOR !== undefined) {
    // Node warns on stderr when NO_COLOR is set beside FORCE_COLOR: ask without it (FORCE_COLOR wins anyway).
    const { NO_COLOR: _n, NODE_DISABLE_COLORS: _d, ...rest } = env;
    return depthOf(rest) > 2;
  }
  if (!stream.isTTY) return false;
  return typeof stream.getColorDepth === 'function' ? stream.getColorDepth(env) > 2 : depthOf(env) > 2;
}
