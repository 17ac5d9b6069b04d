/**
 * A yes/no confirmation whose Cancel button is focused first (docs/tui.md key conventions):
 * tab / ← → move between the buttons, enter presses the focused one, esc cancels.
 */
import { useState } from 'react';
import { Box, Text } from 'ink';
import { useKeymap } from '../contexts/KeymapContext.js';
import { symbols, theme } from '../theme.js';
import { Dialog } from './Dialog.js';

/** Props of {@link ConfirmDialog}. */
export interface ConfirmDialogProps {
  readonly title: string;
  /** Lines of explanation (what happens, and whether it can be undone). */
  readonly message: readonly string[];
  /** The action button's label, e.g. "Deactivate". */
  readonly actionLabel: string;
  readonly dangerous?: boolean;
  readonly onConfirm: () => void;
  readonly onCancel: () => void;
  readonly columns: number;
  readonly rows: number;
}

/** See the module comment. */
export function ConfirmDialog(props: ConfirmDialogProps) {
  const [focus, setFocus] = useState<'cancel' | 'action'>('cancel');
  const toggle = () => setFocus((f) => (f === 'cancel' ? 'action' : 'cancel'));
  useKeymap(
    'confirm',
    {
      'confirm.next': toggle,
      'confirm.prev': toggle,
      'confirm.activate': () => (focus === 'action' ? props.onConfirm() : props.onCancel()),
      'confirm.cancel': props.onCancel,
    },
    { modal: true },
  );
  const button = (id: 'cancel' | 'action', label: string) => {
    const on = focus === id;
    return (
      <Text inverse={on} bold={on} color={id === 'action' && props.dangerous ? theme.danger : undefined}>
        {`${on ? symbols.selected : ' '} ${label} `}
      </Text>
    );
  };
  return (
    <Dialog title={props.title} columns={props.columns} rows={props.rows} {...(props.dangerous !== undefined && { dangerous: props.dangerous })}>
      {props.message.map((line, i) => (
        <Text key={i} wrap="wrap">
          {line}
        </Text>
      ))}
      <Box marginTop={1} gap={2}>
        {button('cancel', 'Cancel')}
        {button('action', props.actionLabel)}
      </Box>
    </Dialog>
  );
}
