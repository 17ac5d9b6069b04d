/**
 * A QR code drawn in the terminal (see qr.ts): black on white when colours are allowed, so it
 * scans on dark and light terminal themes alike; with NO_COLOR the light modules are drawn
 * (right on the usual dark background).
 */
import { Box, Text } from 'ink';
import { useMemo } from 'react';
import { colorsEnabled } from '../../theme.js';
import { qrLines } from './qr.js';

/** Props of {@link QrCode}. */
export interface QrCodeProps {
  /** The text encoded (an EIP-681 URI). */
  readonly value: string;
}

/** See the module comment. */
export function QrCode({ value }: QrCodeProps) {
  const colors = colorsEnabled();
  const lines = useMemo(() => qrLines(value, { lightDrawn: !colors }), [value, colors]);
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
