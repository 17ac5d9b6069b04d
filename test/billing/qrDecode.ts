/** Decoding a terminal QR code back to its text (jsqr on a PNG drawn from the half-block glyphs): the EIP-681 tests. */
import jsQRModule from 'jsqr';
import { PNG } from 'pngjs';

/** jsqr is CommonJS with an ES-style `default` in its types: take the function whichever way it loads. */
type JsQr = (data: Uint8ClampedArray, width: number, height: number) => { data: string } | null;
const jsQR = ((jsQRModule as unknown as { default?: JsQr }).default ?? jsQRModule) as unknown as JsQr;

/** Reads half-block QR text back into a PNG (4 px per module) and decodes it. */
export function decodeQrText(lines: readonly string[], lightDrawn: boolean): string | undefined {
  const width = [...lines[0]!].length;
  const height = lines.length * 2;
  const scale = 4;
  const png = new PNG({ width: width * scale, height: height * scale });
  for (let r = 0; r < lines.length; r++) {
    const cells = [...lines[r]!];
    for (let c = 0; c < width; c++) {
      const ch = cells[c]!;
      const top = ch === '█' || ch === '▀';
      const bottom = ch === '█' || ch === '▄';
      for (const [half, drawn] of [
        [0, top],
        [1, bottom],
      ] as const) {
        const dark = lightDrawn ? !drawn : drawn;
        for (let y = 0; y < scale; y++) {
          for (let x = 0; x < scale; x++) {
            const i = (((r * 2 + half) * scale + y) * png.width + (c * scale + x)) * 4;
            const v = dark ? 0 : 255;
            png.data[i] = v;
            png.data[i + 1] = v;
            png.data[i + 2] = v;
            png.data[i + 3] = 255;
          }
        }
      }
    }
  }
  return jsQR(new Uint8ClampedArray(png.data), png.width, png.height)?.data;
}
