/**
 * A QR code drawn in the terminal (see qr.ts): black on white when colours are allowed, so it
 * scans on dark and light terminal themes alike; with NO_COLOR the light modules are drawn
 * (right on the usual dark background).
 */
import { Box, Text } from 'ink';
import { COLORS_ENABLED } from '../../theme.js';
import { qrLines } from './qr.js';

/** The rows of the QR code of `value` as this terminal draws it (light modules drawn under NO_COLOR). */
export function qrCodeLines(value: string): string[] {
  return qrLines(value, { lightDrawn: !COLORS_ENABLED });
}

/** Props of {@link QrCode}. */
export interface QrCodeProps {
  /** The rows from {@link qrCodeLines} (computed once by the caller, which also needs the size). */
  readonly lines: readonly string[];
}

/** See the module comment. */
export function QrCode({ lines }: QrCodeProps) {
  const colors = COLORS_ENABLED;
  return (
    <Box flexDirection="column" flexShrink={0}>
      {lines.map((line, i) =>
        colors ? (
          <Text key={i} color="black" backgroundColor="white">
            {line}
          </Text>
        ) : (
          <Text key={i}>{line}</Text>
        ),
      )}
    </Box>
  );
}
