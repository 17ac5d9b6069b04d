/** The filter line of a list pane: the field while typing (`/`), a reminder while a filter is set. */
import { Box, Text } from 'ink';
import TextInput from 'ink-text-input';
import { truncateTo } from '../format.js';
import { placeholderText, theme } from '../theme.js';

/** Props of {@link FilterLine}. */
export interface FilterLineProps {
  readonly filter: string;
  readonly filtering: boolean;
  readonly onChange: (value: string) => void;
  /** Rows matching / total. */
  readonly shown: number;
  readonly total: number;
  readonly columns: number;
}

/** One line, or nothing when no filter is set or being typed. */
export function FilterLine({ filter, filtering, onChange, shown, total, columns }: FilterLineProps) {
  if (filtering) {
    return (
      <Box width={columns}>
        <Text color={theme.accent}>/ </Text>
        <TextInput value={filter} onChange={onChange} {...(placeholderText('type to filter by name') && { placeholder: placeholderText('type to filter by name')! })} />
        <Text color={theme.muted}>{`  ${shown} of ${total} · enter keeps · esc clears`}</Text>
      </Box>
    );
  }
  if (filter === '') return null;
  return <Text color={theme.muted}>{truncateTo(`filter "${filter}": ${shown} of ${total} · esc clears`, columns)}</Text>;
}
