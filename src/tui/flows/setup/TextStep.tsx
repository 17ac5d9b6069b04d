/**
 * A setup step that asks for one value: a prompt, a text field (masked for secrets), the
 * reason a value is refused, and an optional hint. enter continues, esc goes back.
 */
import { useState } from 'react';
import { Box, Text } from 'ink';
import { useKeymap } from '../../contexts/KeymapContext.js';
import { TextField, useTextField } from '../../components/TextField.js';
import { theme } from '../../theme.js';

/** Props of {@link TextStep}. */
export interface TextStepProps {
  /** Lines explaining the step. */
  readonly lines: readonly string[];
  readonly label: string;
  readonly initial?: string;
  /** Shows `*` instead of the characters (tokens). */
  readonly masked?: boolean;
  readonly placeholder?: string;
  /** A default: the placeholder while the field is empty, and the value enter submits then. */
  readonly defaultValue?: string;
  /** An error from the last attempt (e.g. the service rejected the token). */
  readonly error?: string | undefined;
  /** Checked on enter: why the value is refused, or undefined. */
  readonly validate?: (value: string) => string | undefined;
  readonly onSubmit: (value: string) => void;
  /** Back to the previous step; undefined on the first step. */
  readonly onBack?: (() => void) | undefined;
}

/** See the module comment. */
export function TextStep(props: TextStepProps) {
  const [problem, setProblem] = useState<string | undefined>(undefined);
  const field = useTextField(props.initial ?? '', { onChange: () => setProblem(undefined) });
  useKeymap(
    'setupInput',
    {
      'setup.submit': () => {
        const typed = field.current();
        const value = typed.trim() === '' && props.defaultValue !== undefined ? props.defaultValue : typed;
        const p = props.validate?.(value);
        setProblem(p);
        if (!p) props.onSubmit(value);
      },
      'setup.back': props.onBack,
    },
    { modal: true, textEntry: true },
  );
  const shownError = problem ?? props.error;
  return (
    <Box flexDirection="column">
      {props.lines.map((l, i) => (
        <Text key={i} wrap="wrap">
          {l}
        </Text>
      ))}
      <Box marginTop={1}>
        <Text bold>{`${props.label}: `}</Text>
        <TextField field={field} mask={props.masked ? '*' : undefined} placeholder={props.placeholder ?? props.defaultValue} />
      </Box>
      <Text color={shownError ? theme.danger : theme.muted} wrap="wrap">
        {shownError ? `✕ ${shownError}` : props.defaultValue !== undefined && field.value.trim() === '' ? `enter keeps "${props.defaultValue}" (or type another)` : ' '}
      </Text>
    </Box>
  );
}
