/**
 * A dialog that offers a few choices, one per line, the first selected: j/k or the arrows move,
 * enter chooses, esc cancels (scope `pick` of the key-action table). Used by the Keys pane's `n`
 * when a subscription or pool pledge has no key: mint its key, or a new credit key.
 */
import { useState } from 'react';
import { Box, Text } from 'ink';
import { useKeymap } from '../contexts/KeymapContext.js';
import { truncateTo } from '../format.js';
import { symbols } from '../theme.js';
import { Dialog, dialogWidth } from './Dialog.js';

/** Props of {@link ChoiceDialog}. */
export interface ChoiceDialogProps {
  readonly title: string;
  /** Lines above the choices. */
  readonly message?: readonly string[];
  /** The choices' labels (already sanitised). */
  readonly choices: readonly string[];
  /** Called with the index of the chosen label. */
  readonly onChoose: (index: number) => void;
  readonly onCancel: () => void;
  readonly columns: number;
  readonly rows: number;
}

/** See the module comment. */
export function ChoiceDialog(props: ChoiceDialogProps) {
  const [at, setAt] = useState(0);
  const last = props.choices.length - 1;
  useKeymap(
    'pick',
    {
      'pick.down': () => setAt((i) => Math.min(last, i + 1)),
      'pick.up': () => setAt((i) => Math.max(0, i - 1)),
      'pick.choose': () => props.onChoose(at),
      'pick.cancel': props.onCancel,
    },
    { modal: true },
  );
  const width = dialogWidth(props.columns) - 4;
  return (
    <Dialog title={props.title} columns={props.columns} rows={props.rows}>
      {(props.message ?? []).map((line, i) => (
        <Text key={`m${i}`} wrap="wrap">
          {line}
        </Text>
      ))}
      <Box flexDirection="column" marginTop={1}>
        {props.choices.map((label, i) => (
          <Text key={i} inverse={i === at} bold={i === at}>
            {truncateTo(`${i === at ? symbols.selected : ' '} ${label}`, width)}
          </Text>
        ))}
      </Box>
    </Dialog>
  );
}
