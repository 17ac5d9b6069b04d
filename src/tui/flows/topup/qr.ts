/**
 * A QR code as terminal text (the `qrcode` package builds the symbol; this draws its modules
 * with half-block characters, two module rows per text row, so each module is about square in
 * a terminal cell). Pure.
 */
// The symbol builder only: the package's main entry also loads its PNG (pngjs), SVG and
// terminal renderers, on the TUI's first-frame path.
import { create } from 'qrcode/lib/core/qrcode.js';

/** Options of {@link qrLines}. */
export interface QrTextOptions {
  /** Quiet zone around the symbol, in modules (even). Default 2. */
  readonly margin?: number;
  /**
   * `false` (default): dark modules are drawn with the glyphs (`█▀▄`), for a dark-on-light
   * rendering (the component sets black on white). `true`: light modules are drawn, which
   * reads right on a dark terminal background with no colours (NO_COLOR).
   */
  readonly lightDrawn?: boolean;
}

/**
 * The QR code of `text` (error correction L, byte mode) as rows of equal width. Row `r`
 * holds module rows `2r` (upper half) and `2r + 1` (lower half) of the symbol with its quiet zone.
 */
export function qrLines(text: string, options: QrTextOptions = {}): string[] {
  const margin = options.margin ?? 2;
  const qr = create(text, { errorCorrectionLevel: 'L' });
  const size = qr.modules.size;
  const full = size + margin * 2;
  const dark = (r: number, c: number): boolean => {
    const y = r - margin;
    const x = c - margin;
    if (y < 0 || x < 0 || y >= size || x >= size) return false;
    return Boolean(qr.modules.get(y, x));
  };
  const lines: string[] = [];
  for (let r = 0; r < full; r += 2) {
    let line = '';
    for (let c = 0; c < full; c++) {
      let top = dark(r, c);
      let bottom = r + 1 < full ? dark(r + 1, c) : false;
      if (options.lightDrawn) {
        top = !top;
        bottom = r + 1 < full ? !bottom : false;
      }
      line += top && bottom ? '█' : top ? '▀' : bottom ? '▄' : ' ';
    }
    lines.push(line);
  }
  return lines;
}
