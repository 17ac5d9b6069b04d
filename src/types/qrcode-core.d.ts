/**
 * The core of the `qrcode` package (the symbol builder without its PNG, SVG, canvas and
 * terminal renderers, which keydeck does not use): the part of `QRCode.create` keydeck calls.
 */
declare module 'qrcode/lib/core/qrcode.js' {
  import type { QRCode, QRCodeCreateOptions } from 'qrcode';
  export function create(text: string, options?: QRCodeCreateOptions): QRCode;
}
