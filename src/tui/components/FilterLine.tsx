/** The filter line of a list pane: the field while typing (`/`), a reminder while a filter is set. */
import { Box, Text } from 'ink';
import { truncateTo } from '../format.js';
import { theme } from '../theme.js';
import { TextField, type TextFieldHandle } from './TextField.js';

/** Props of {@link FilterLine}. */
export interface FilterLineProps {
  /** The filter's field (its value is the filter). */
  readonly field: TextFieldHandle;
  readonly filtering: boolean;
  /** Rows matching / total. */
  readonly shown: number;
  readonly total: number;
  readonly columns: number;
}

/** One line, or nothing when no filter is set or being typed. */
export function FilterLine({ field, filtering, shown, total, columns }: FilterLineProps) {
  if (filtering) {
    return (
      <Box width={columns}>
        <Text color={theme.accent}>/ </Text>
        <TextField field={field} placeholder="type to filter by name" />
        <Text color={theme.muted}>{`  ${shown} of ${total} · enter keeps · esc clears`}</Text>
      </Box>
    );
  }
  if (field.value === '') return null;
  return <Text color={theme.muted}>{truncateTo(`filter "${field.value}": ${shown} of ${total} · esc clears`, columns)}</Text>;
}
