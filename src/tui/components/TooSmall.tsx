/**
 * Shown instead of the app when the terminal is below 60×15: says what is needed; `q` and
 * ctrl-c still quit. The app stays mounted underneath (hidden), so nothing is lost on resize.
 */
import { Box, Text } from 'ink';
import { useKeymap, useQuit } from '../contexts/KeymapContext.js';
import { MIN_COLUMNS, MIN_ROWS } from '../layout.js';

/** The "terminal too small" notice for a `columns` × `rows` terminal. */
export function TooSmall({ columns, rows }: { readonly columns: number; readonly rows: number }) {
  const quit = useQuit();
  useKeymap('tooSmall', { 'small.quit': quit }, { modal: true });
  return (
    <Box width={columns} height={rows} flexDirection="column" justifyContent="center" alignItems="center">
      <Text wrap="wrap">{`terminal too small (need ${MIN_COLUMNS}×${MIN_ROWS}, have ${columns}×${rows})`}</Text>
      <Text wrap="wrap">enlarge it, or press q to quit</Text>
    </Box>
  );
}
