/**
 * A setup step that asks for one value: a prompt, a text field (masked for secrets), the
 * reason a value is refused, and an optional hint. enter continues, esc goes back.
 */
import { useState } from 'react';
import { Box, Text } from 'ink';
import TextInput from 'ink-text-input';
import { useKeymap } from '../../contexts/KeymapContext.js';
import { placeholderText, theme } from '../../theme.js';

/** Props of {@link TextStep}. */
export interface TextStepProps {
  /** Lines explaining the step. */
  readonly lines: readonly string[];
  readonly label: string;
  readonly initial?: string;
  /** Shows `*` instead of the characters (tokens). */
  readonly masked?: boolean;
  readonly placeholder?: string;
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
  const [value, setValue] = useState(props.initial ?? '');
  const [problem, setProblem] = useState<string | undefined>(undefined);
  useKeymap(
    'setupInput',
    {
      'setup.submit': () => {
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
        <TextInput
          value={value}
          onChange={(v) => {
            setValue(v);
            setProblem(undefined);
          }}
          {...(props.masked && { mask: '*' })}
          {...(props.placeholder !== undefined && placeholderText(props.placeholder) !== undefined && { placeholder: placeholderText(props.placeholder)! })}
        />
      </Box>
      <Text color={shownError ? theme.danger : theme.muted} wrap="wrap">
        {shownError ? `✕ ${shownError}` : ' '}
      </Text>
    </Box>
  );
}
