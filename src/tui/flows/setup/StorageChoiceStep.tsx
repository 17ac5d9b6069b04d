/**
 * Setup when the OS keychain is unavailable: says why (the credential store's sentence) and
 * offers three ways on: a plaintext file (mode 0600, warned in the header afterwards), this
 * session only (kept in memory, never written), or quit and set KEYDECK_TOKEN.
 */
import { useState } from 'react';
import { Box, Text } from 'ink';
import { useKeymap } from '../../contexts/KeymapContext.js';
import { wrapAll } from '../../format.js';
import { symbols, theme } from '../../theme.js';

/** The three ways on, in display order. */
export type StorageChoice = 'file' | 'session' | 'quit';

/** Choices with their explanations. */
export const STORAGE_CHOICES: ReadonlyArray<{ id: StorageChoice; key: string; label: string; detail: string }> = [
  { id: 'file', key: '1', label: 'Store it in a plaintext file', detail: 'mode 0600 in the config dir; anyone who can read your files can read it; the header warns while it is used' },
  { id: 'session', key: '2', label: 'Use it for this session only', detail: 'kept in memory, never written; gone when keydeck exits (run setup again next time)' },
  { id: 'quit', key: '3', label: 'Quit, and set KEYDECK_TOKEN myself', detail: 'a session token or a management key: keydeck reads it from that variable on every run and never stores it' },
];

/** Props of {@link StorageChoiceStep}. */
export interface StorageChoiceStepProps {
  /** Why the keychain cannot be used (one sentence from the store). */
  readonly reason: string;
  /** The choice focused first (`file` with --insecure-storage). */
  readonly initial: StorageChoice;
  readonly onChoose: (choice: StorageChoice) => void;
  /** Compact layout: the reason is cut to two lines and the choices' details are left out. */
  readonly compact?: boolean;
  /** Width of the step, cells (the details are wrapped to it). */
  readonly columns: number;
}

/** See the module comment. */
export function StorageChoiceStep({ reason, initial, onChoose, compact = false, columns }: StorageChoiceStepProps) {
  const [index, setIndex] = useState(
    Math.max(
      0,
      STORAGE_CHOICES.findIndex((c) => c.id === initial),
    ),
  );
  const n = STORAGE_CHOICES.length;
  useKeymap(
    'setupChoice',
    {
      'choice.down': () => setIndex((i) => (i + 1) % n),
      'choice.up': () => setIndex((i) => (i - 1 + n) % n),
      'choice.pick': () => onChoose(STORAGE_CHOICES[index]!.id),
      'choice.file': () => onChoose('file'),
      'choice.session': () => onChoose('session'),
      'choice.quit': () => onChoose('quit'),
    },
    { modal: true },
  );
  return (
    <Box flexDirection="column">
      <Text color={theme.warning} wrap="wrap">{`${symbols.warning} The OS keychain is unavailable, so the key cannot be stored safely.`}</Text>
      <Box flexDirection="column" {...(compact && { height: 2 })} overflow="hidden" flexShrink={0}>
        <Text wrap="wrap" color={theme.muted}>
          {reason}
        </Text>
      </Box>
      <Box flexDirection="column" marginTop={compact ? 0 : 1} flexShrink={0}>
        {STORAGE_CHOICES.map((c, i) => {
          const on = i === index;
          return (
            <Box key={c.id} flexDirection="column">
              <Text inverse={on} bold={on}>{`${on ? symbols.selected : ' '} ${c.key}  ${c.label}`}</Text>
              {/* Indented, each wrapped line under the first: wrapped here, so no line starts with the space it was broken at. */}
              {compact
                ? null
                : wrapAll(c.detail, Math.max(20, columns - 5)).map((line, j) => (
                    <Text key={j} color={theme.muted} wrap="truncate">
                      {`     ${line}`}
                    </Text>
                  ))}
            </Box>
          );
        })}
      </Box>
    </Box>
  );
}
