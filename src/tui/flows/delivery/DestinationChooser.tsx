/**
 * Where a new key goes, asked before it is created (or from the one-time reveal):
 * `enter` shows it once here as before, `f` writes it into a dotenv file (`PATH[:VAR]`), `x` gives
 * it to a command on its standard input (no shell). The typed destination is parsed as it is
 * typed and checked before anything is created (the file's and directory's trust, the program on
 * PATH); a refusal is shown under the field and nothing happens.
 */
import { useState } from 'react';
import { Text } from 'ink';
import { DeliveryError, describeDestination, parseCommandDestination, parseFileDestination, type Destination } from '../../../delivery/destinations.js';
import { visible } from '../../../terminal/sanitize.js';
import { Dialog } from '../../components/Dialog.js';
import { PromptDialog } from '../../components/PromptDialog.js';
import { useKeymap } from '../../contexts/KeymapContext.js';
import { theme } from '../../theme.js';

/** Props of {@link DestinationChooser}. */
export interface DestinationChooserProps {
  readonly title: string;
  readonly message?: readonly string[];
  /** Offer to show the key once on screen (no destination): `enter`, or `s` when {@link previous} is given. */
  readonly allowShow: boolean;
  /** Where the old key was delivered (a rotation): `enter` sends the new one to the same places. */
  readonly previous?: readonly Destination[];
  /** Start at the prompt for a file or a command (from the reveal's `f` / `x`); esc then cancels. */
  readonly initialMode?: 'file' | 'command';
  /** Checks a destination before use (src/delivery/deliver.ts `checkDestinations`). */
  readonly check: (d: Destination) => Promise<void>;
  readonly onChoose: (d: readonly Destination[] | 'show') => void;
  readonly onCancel: () => void;
  readonly columns: number;
  readonly rows: number;
}

/** Why a destination cannot be used, in the dialog's words: the parser names the command line's flag first (`--to-file …`), which the dialog asks for itself. */
function problemOf(err: unknown): string {
  return err instanceof DeliveryError ? err.message.replace(/^--to-(file|command):? /, '') : String(err);
}

/** The destination typed, or why it cannot be used. */
function parsed(mode: 'file' | 'command', text: string): { d?: Destination; problem?: string } {
  try {
    return { d: mode === 'file' ? parseFileDestination(text) : parseCommandDestination(text) };
  } catch (err) {
    return { problem: problemOf(err) };
  }
}

/** See the module comment. */
export function DestinationChooser(props: DestinationChooserProps) {
  const [mode, setMode] = useState<'choose' | 'file' | 'command'>(props.initialMode ?? 'choose');
  const [refusal, setRefusal] = useState<string | undefined>(undefined);
  const [checking, setChecking] = useState(false);
  useKeymap(
    'deliver',
    {
      'deliver.same': props.previous ? () => props.onChoose(props.previous!) : undefined,
      'deliver.show': props.allowShow && !props.previous ? () => props.onChoose('show') : undefined,
      'deliver.showOnce': props.allowShow && props.previous ? () => props.onChoose('show') : undefined,
      'deliver.file': () => setMode('file'),
      'deliver.command': () => setMode('command'),
      'deliver.cancel': props.onCancel,
    },
    { modal: true, active: mode === 'choose' },
  );
  const area = { columns: props.columns, rows: props.rows };
  if (mode === 'choose') {
    return (
      <Dialog title={props.title} {...area}>
        {(props.message ?? []).map((line, i) => (
          <Text key={i} wrap="wrap">
            {line}
          </Text>
        ))}
        {props.previous && <Text wrap="wrap">{`enter  the same places as before: ${props.previous.map((d) => visible(describeDestination(d))).join(', ')}`}</Text>}
        {props.allowShow && <Text>{`${props.previous ? 's    ' : 'enter'}  show it once here, to copy it yourself`}</Text>}
        <Text>f write it into a dotenv file (PATH[:VAR]); it is not shown</Text>
        <Text>x give it to a command on its standard input; it is not shown</Text>
        <Text color={theme.muted}>esc cancel</Text>
      </Dialog>
    );
  }
  const submit = (text: string) => {
    const { d } = parsed(mode, text);
    if (!d || checking) return;
    setChecking(true);
    setRefusal(undefined);
    props.check(d).then(
      () => {
        setChecking(false);
        props.onChoose([d]);
      },
      (err: unknown) => {
        setChecking(false);
        setRefusal(problemOf(err));
      },
    );
  };
  return (
    <PromptDialog
      key={mode}
      {...area}
      title={props.title}
      label={mode === 'file' ? 'dotenv file' : 'command'}
      message={[
        mode === 'file'
          ? 'PATH or PATH:VARIABLE (default KEYDECK_API_KEY). A new file is made 0600; in an existing one only that line is replaced.'
          : 'The key goes to its standard input only (no shell), e.g. gh secret set OPENAI_API_KEY',
        ...(checking ? ['checking…'] : []),
        ...(refusal ? [`✕ ${visible(refusal)}`] : []),
      ]}
      validate={(text) => (text.trim() === '' ? 'type a destination' : parsed(mode, text).problem)}
      onSubmit={submit}
      onCancel={() => (props.initialMode ? props.onCancel() : (setMode('choose'), setRefusal(undefined)))}
    />
  );
}
