/**
 * The one-time reveal of a new key (§2.1 `apiKey` / §2.2 `apiKey`, returned only at creation):
 * the full value, `c` to copy it (OSC 52, then the system clipboard), and an explicit `y` "I have
 * saved it". On `y` the caller drops the value from its state (`onAck`) and this dialog then
 * has the whole screen redrawn (`services.redraw`), so the key is gone from the screen, the
 * state and the scrollback, whoever opened the dialog. esc does not close it: it
 * reminds that the key cannot be shown again. ctrl-c quits (exit 130) at once once the key was
 * copied to the clipboard; before that it asks first (`y` or ctrl-c again quits and loses the
 * key, esc or `n` goes back to it).
 */
import { useState } from 'react';
import { Box, Text } from 'ink';
import { useInterrupt, useKeymap } from '../contexts/KeymapContext.js';
import { useServices } from '../contexts/ServicesContext.js';
import { useFlash } from '../contexts/StatusContext.js';
import { multiplexerOf } from '../../terminal/osc.js';
import { theme } from '../theme.js';
import { Dialog } from './Dialog.js';

/** Props of {@link RevealDialog}. */
export interface RevealDialogProps {
  readonly title: string;
  /** The full key. Secret: shown here once, never anywhere else. */
  readonly secret: string;
  /** Lines under the key (what it is for, what happens next). */
  readonly message?: readonly string[];
  /** "I have saved it". */
  readonly onAck: () => void;
  /** Optional extra action bound to `u` (e.g. "use this key for keydeck"). */
  readonly onUse?: () => void;
  readonly useLabel?: string;
  /** Optional: `f` delivers the key into a dotenv file, `x` to a command (issue 26); the key stays until `y`. */
  readonly onToFile?: () => void;
  readonly onToCommand?: () => void;
  /** Optional, after a failed delivery: `D` deletes the new key instead of keeping it. */
  readonly onDeleteKey?: () => void;
  readonly columns: number;
  readonly rows: number;
}

/**
 * Status-line sentence for a copy outcome. An OSC 52 copy cannot be confirmed: it says so, and
 * inside tmux names the setting it needs.
 */
export function copyOutcomeText(outcome: 'clipboard' | 'osc52' | 'failed', env: NodeJS.ProcessEnv = process.env): { text: string; tone: 'ok' | 'warning' } {
  if (outcome === 'clipboard') return { text: 'copied to the clipboard', tone: 'ok' };
  if (outcome === 'osc52') {
    const tmux = multiplexerOf(env) === 'tmux' ? ' (tmux needs: set -g allow-passthrough on)' : '';
    return { text: `sent to the terminal’s clipboard (OSC 52)${tmux}; keydeck cannot confirm it: paste to check, or select the text`, tone: 'warning' };
  }
  return { text: 'copy failed, select the text', tone: 'warning' };
}

/** See the module comment. */
export function RevealDialog(props: RevealDialogProps) {
  const { copy, redraw } = useServices();
  const flash = useFlash();
  const interrupt = useInterrupt();
  /** The clipboard took the key (confirmed): ctrl-c may quit at once. */
  const [copied, setCopied] = useState(false);
  /** ctrl-c was pressed before the key was copied: asking whether to lose it. */
  const [asking, setAsking] = useState(false);
  const copyKey = () => {
    void copy(props.secret).then((outcome) => {
      if (outcome === 'clipboard') setCopied(true);
      const { text, tone } = copyOutcomeText(outcome);
      flash(text, tone);
    });
  };
  useKeymap(
    'reveal',
    asking
      ? {
          'reveal.copy': copyKey,
          'reveal.quitYes': interrupt,
          'reveal.quitNo': () => setAsking(false),
        }
      : {
          'reveal.copy': copyKey,
          'reveal.use': props.onUse,
          'reveal.toFile': props.onToFile,
          'reveal.toCommand': props.onToCommand,
          'reveal.deleteKey': props.onDeleteKey,
          'reveal.ack': () => {
            props.onAck();
            redraw();
          },
          'reveal.esc': () => flash('press y once you have saved the key: it cannot be shown again', 'warning'),
          'reveal.interrupt': () => (copied ? interrupt() : setAsking(true)),
        },
    { modal: true },
  );
  if (asking) {
    return (
      <Dialog title={props.title} columns={props.columns} rows={props.rows}>
        <Text color={theme.warning} wrap="wrap">
          The new key was never copied, and it cannot be shown again: quitting now loses it.
        </Text>
        <Text> </Text>
        <Text color={theme.accent} wrap="wrap">
          y or ctrl-c quit and lose the key · esc back to the key · c copy it
        </Text>
      </Dialog>
    );
  }
  return (
    <Dialog title={props.title} columns={props.columns} rows={props.rows}>
      <Text>This is the only time the full key is shown:</Text>
      <Box marginY={1}>
        <Text bold color={theme.ok} wrap="wrap">
          {props.secret}
        </Text>
      </Box>
      {(props.message ?? []).map((line, i) => (
        <Text key={i} wrap="wrap">
          {line}
        </Text>
      ))}
      <Text color={theme.accent} wrap="wrap">
        {`c copy · ${props.onUse ? `u ${props.useLabel ?? 'use it'} · ` : ''}${props.onToFile ? 'f to a file · x to a command · ' : ''}${props.onDeleteKey ? 'D delete it · ' : ''}y I have saved it`}
      </Text>
    </Dialog>
  );
}
