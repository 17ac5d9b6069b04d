/**
 * Confirmation for what cannot be undone (and, on a protected profile, a deactivation): the user
 * types the name as shown (its visible form,
 * src/terminal/sanitize.ts, so a name of invisible or control characters can be typed too);
 * enter then goes ahead (and does nothing while the text differs); esc cancels.
 */
import { Box, Text } from 'ink';
import { useKeymap } from '../contexts/KeymapContext.js';
import { confirmsName, visible } from '../../terminal/sanitize.js';
import { theme } from '../theme.js';
import { Dialog } from './Dialog.js';
import { TextField, useTextField } from './TextField.js';

/** Props of {@link TypeToConfirmDialog}. */
export interface TypeToConfirmDialogProps {
  readonly title: string;
  readonly message: readonly string[];
  /** The text to type (a key's name). */
  readonly expected: string;
  /**
   * What tells this item apart from others of the same name, shown beside the name (a management
   * key's prefix, created and last used).
   */
  readonly details?: readonly string[];
  /** What enter does once the name matches, after "enter ": default `deletes it for good`. */
  readonly action?: string;
  readonly onConfirm: () => void;
  readonly onCancel: () => void;
  readonly columns: number;
  readonly rows: number;
}

/** See the module comment. */
export function TypeToConfirmDialog(props: TypeToConfirmDialogProps) {
  const field = useTextField('');
  const matches = confirmsName(field.value, props.expected);
  useKeymap(
    'typeToConfirm',
    {
      'typed.submit': () => {
        if (confirmsName(field.current(), props.expected)) props.onConfirm();
      },
      'typed.cancel': props.onCancel,
    },
    { modal: true, textEntry: true },
  );
  return (
    <Dialog title={props.title} columns={props.columns} rows={props.rows} dangerous>
      {props.message.map((line, i) => (
        <Text key={i} wrap="wrap">
          {line}
        </Text>
      ))}
      {props.details && props.details.length > 0 ? (
        <Text color={theme.muted} wrap="wrap">
          {props.details.join(' · ')}
        </Text>
      ) : null}
      <Text wrap="wrap">{`Type the name to confirm: ${visible(props.expected)}`}</Text>
      <Box>
        <Text>{'> '}</Text>
        <TextField field={field} />
      </Box>
      <Text color={matches ? theme.danger : theme.muted} wrap="wrap">
        {matches ? `enter ${props.action ?? 'deletes it for good'} · esc cancels` : 'the name does not match yet · esc cancels'}
      </Text>
    </Dialog>
  );
}
