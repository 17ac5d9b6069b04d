/**
 * A one-field prompt (a key name, say): the value is validated as it is typed and the reason
 * shown inline; enter submits a valid value, esc cancels.
 */
import { useState } from 'react';
import { Box, Text } from 'ink';
import { useKeymap } from '../contexts/KeymapContext.js';
import { theme } from '../theme.js';
import { Dialog } from './Dialog.js';
import { TextField, useTextField } from './TextField.js';

/** Props of {@link PromptDialog}. */
export interface PromptDialogProps {
  readonly title: string;
  readonly label: string;
  readonly initial?: string;
  /**
   * A default: shown as the field's placeholder while it is empty, and submitted when
   * enter is pressed on an empty field; the first key typed starts a new value (never appends).
   */
  readonly defaultValue?: string;
  /** Lines shown above the field. */
  readonly message?: readonly string[];
  /** Why `value` is refused, or undefined when it is fine. */
  readonly validate?: (value: string) => string | undefined;
  readonly onSubmit: (value: string) => void;
  readonly onCancel: () => void;
  readonly columns: number;
  readonly rows: number;
}

/** See the module comment. */
export function PromptDialog(props: PromptDialogProps) {
  const field = useTextField(props.initial ?? '');
  const value = field.value;
  const [tried, setTried] = useState(false);
  const effective = (v: string) => (v.trim() === '' && props.defaultValue !== undefined ? props.defaultValue : v);
  const problem = props.validate?.(effective(value));
  useKeymap(
    'prompt',
    {
      'prompt.submit': () => {
        setTried(true);
        const live = effective(field.current());
        if (!props.validate?.(live)) props.onSubmit(live.trim());
      },
      'prompt.cancel': props.onCancel,
    },
    { modal: true, textEntry: true },
  );
  return (
    <Dialog title={props.title} columns={props.columns} rows={props.rows}>
      {(props.message ?? []).map((line, i) => (
        <Text key={i} wrap="wrap">
          {line}
        </Text>
      ))}
      <Box>
        <Text>{`${props.label}: `}</Text>
        <TextField field={field} {...(props.defaultValue !== undefined && { placeholder: props.defaultValue })} />
      </Box>
      <Text color={problem ? theme.danger : theme.muted} wrap="wrap">
        {problem && (tried || value !== (props.initial ?? ''))
          ? `✕ ${problem}`
          : props.defaultValue !== undefined && value.trim() === ''
            ? `enter saves "${props.defaultValue}" (or type another name) · esc cancels`
            : 'enter saves · esc cancels'}
      </Text>
    </Dialog>
  );
}
