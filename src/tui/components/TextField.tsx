/**
 * The app's one text field. {@link useTextField} keeps the live value and cursor in a ref, out
 * of React's render cycle, so two edits in one tick both apply and a submit handler reads what
 * was typed last ({@link TextFieldHandle.current}); {@link TextField} draws it and, while
 * mounted, is the field the input layer types into (contexts/KeymapContext.tsx `useTextSink`).
 * Editing keys: input/lineEdit.ts (ctrl-a/e, ctrl-b/f and arrows, alt-b/f, ctrl-u/k, ctrl-w and
 * alt-backspace, ctrl-d/delete, home/end). A paste is inserted whole, its line breaks never
 * submit; nothing typed or pasted is ever cut.
 */
import { useCallback, useMemo, useRef, useState } from 'react';
import { Box, Text } from 'ink';
import { useTextSink } from '../contexts/KeymapContext.js';
import type { KeyEvent } from '../input/keyEvents.js';
import { editLine, insertText, lineAtEnd, type LineState } from '../input/lineEdit.js';
import { placeholderText, theme } from '../theme.js';

/** Options of {@link useTextField}. */
export interface UseTextFieldOptions {
  /** Called after each edit that changes the value, with the new value. */
  readonly onChange?: (value: string) => void;
  /**
   * Decides what a paste does: a value that replaces the whole field (cursor at its end), or
   * undefined to insert the pasted text at the cursor (the default).
   */
  readonly onPaste?: (text: string, current: string) => string | undefined;
}

/** A text field's state and edits. */
export interface TextFieldHandle extends LineState {
  /** The live value, including edits of this tick not rendered yet. */
  readonly current: () => string;
  /** Replaces the value (cursor at the end). */
  readonly set: (value: string) => void;
  /** Applies a typing or editing key (ignores others). */
  readonly key: (event: KeyEvent) => void;
  /** Inserts pasted text at the cursor. */
  readonly paste: (text: string) => void;
}

/** State for one text field, starting with `initial` (cursor at its end). */
export function useTextField(initial = '', options: UseTextFieldOptions = {}): TextFieldHandle {
  const live = useRef<LineState | undefined>(undefined);
  live.current ??= lineAtEnd(initial);
  const [shown, setShown] = useState<LineState>(live.current);
  const optionsRef = useRef(options);
  optionsRef.current = options;

  const commit = useCallback((next: LineState) => {
    const before = live.current!;
    const state = next;
    if (state.value === before.value && state.cursor === before.cursor) return;
    live.current = state;
    setShown(state);
    if (state.value !== before.value) optionsRef.current.onChange?.(state.value);
  }, []);

  return useMemo(
    () => ({
      value: shown.value,
      cursor: shown.cursor,
      current: () => live.current!.value,
      set: (value: string) => commit(lineAtEnd(value)),
      key: (event: KeyEvent) => {
        const next = editLine(live.current!, event);
        if (next) commit(next);
      },
      paste: (text: string) => {
        const replace = optionsRef.current.onPaste?.(text, live.current!.value);
        commit(replace === undefined ? insertText(live.current!, text) : lineAtEnd(replace));
      },
    }),
    [shown, commit],
  );
}

/** Props of {@link TextField}. */
export interface TextFieldProps {
  readonly field: TextFieldHandle;
  /** Shown greyed while the field is empty (not under `NO_COLOR`, where it could pass for a value). */
  readonly placeholder?: string | undefined;
  /** Shown instead of each character (secrets). */
  readonly mask?: string | undefined;
  /** Default true: this field gets the keys and shows its cursor. */
  readonly focus?: boolean;
}

/**
 * Draws the field and takes the keyboard while focused. It fills the room its row leaves (the
 * label beside it keeps its width) and wraps there: a long value is never cut.
 */
export function TextField(props: TextFieldProps) {
  return (
    <Box flexGrow={1} flexShrink={1} flexBasis={0}>
      <FieldText {...props} />
    </Box>
  );
}

function FieldText({ field, placeholder, mask, focus = true }: TextFieldProps) {
  useTextSink(field, focus);
  const chars = [...field.value];
  if (chars.length === 0) {
    const hint = placeholder === undefined ? undefined : placeholderText(placeholder);
    if (!focus) return <Text color={theme.muted}>{hint ?? ''}</Text>;
    const [first = ' ', ...rest] = [...(hint ?? ' ')];
    return (
      <Text wrap="wrap">
        <Text inverse>{hint === undefined ? ' ' : first}</Text>
        {hint === undefined ? '' : <Text color={theme.muted}>{rest.join('')}</Text>}
      </Text>
    );
  }
  const shown = mask === undefined ? chars : chars.map(() => mask);
  if (!focus) return <Text wrap="wrap">{shown.join('')}</Text>;
  const cursor = Math.min(field.cursor, shown.length);
  return (
    <Text wrap="wrap">
      {shown.slice(0, cursor).join('')}
      <Text inverse>{shown[cursor] ?? ' '}</Text>
      {shown.slice(cursor + 1).join('')}
    </Text>
  );
}
