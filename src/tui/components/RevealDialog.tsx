/**
 * The one-time reveal of a new key (the consumption key's fields `apiKey` / the management key's fields `apiKey`, returned only at creation):
 * the full value, `c` to copy it (OSC 52, then the system clipboard), and an explicit `y` "I have
 * saved it". On `y` the caller drops the value from its state (`onAck`) and this dialog then
 * has the whole screen redrawn (`services.redraw`), so the key is gone from the screen, the
 * state and the scrollback, whoever opened the dialog; a copied key is cleared from the clipboard
 * where keydeck put it (`services.clearCopied`), and the status line says so or that it may stay. esc does not close it: it
 * reminds that the key cannot be shown again. ctrl-c quits (exit 130) at once once the key was
 * copied to the clipboard; before that it asks first (`y` or ctrl-c again quits and loses the
 * key, esc or `n` goes back to it).
 */
import { useRef, useState } from 'react';
import { Box, Text } from 'ink';
import { useInterrupt, useKeymap } from '../contexts/KeymapContext.js';
import { useServices } from '../contexts/ServicesContext.js';
import { useFlash, useLastingFlash } from '../contexts/StatusContext.js';
import { multiplexerOf } from '../../terminal/osc.js';
import type { ClearOutcome } from '../services.js';
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
  /** Optional: `f` delivers the key into a dotenv file, `x` to a command; the key stays until `y`. */
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

/** Status-line sentence once a copied key is acknowledged: where it was cleared, or that it may stay. */
export function clearOutcomeText(outcome: ClearOutcome | 'not_cleared'): { text: string; tone: 'ok' | 'warning' } {
  switch (outcome) {
    case 'cleared':
      return { text: 'the full key is gone from the screen and was cleared from the clipboard', tone: 'ok' };
    case 'changed':
      return { text: 'the full key is gone from the screen; the clipboard holds something else now: left as it is (a clipboard manager may keep the key in its history)', tone: 'ok' };
    case 'osc52':
      return {
        text: 'the full key is gone from the screen; the terminal was asked to clear its clipboard (OSC 52), which keydeck cannot confirm: copy something else over the key to be sure',
        tone: 'warning',
      };
    default:
      return { text: 'the full key is gone from the screen, but may still be in the clipboard: copy something else over it', tone: 'warning' };
  }
}

/** See the module comment. */
export function RevealDialog(props: RevealDialogProps) {
  const { copy, clearCopied, redraw } = useServices();
  const flash = useFlash();
  /** The clipboard's clearing ends after the dialog closed: its message is posted all the same. */
  const lastingFlash = useLastingFlash();
  const interrupt = useInterrupt();
  /** The clipboard took the key (confirmed): ctrl-c may quit at once. */
  const [copied, setCopied] = useState(false);
  /** ctrl-c was pressed before the key was copied: asking whether to lose it. */
  const [asking, setAsking] = useState(false);
  /** Where the key was copied to (the last copy that reached anything), to clear it on `y`. */
  const copiedVia = useRef<'clipboard' | 'osc52' | undefined>(undefined);
  const copyKey = () => {
    void copy(props.secret).then((outcome) => {
      if (outcome === 'clipboard') setCopied(true);
      if (outcome !== 'failed') copiedVia.current = copiedVia.current === 'clipboard' ? 'clipboard' : outcome;
      const { text, tone } = copyOutcomeText(outcome);
      flash(text, tone);
    });
  };
  /** Clears the key from where it was copied, and says so on the status line (after the dialog is gone). */
  const clearClipboard = () => {
    const via = copiedVia.current;
    if (via === undefined) return;
    const secret = props.secret;
    if (!clearCopied) {
      const { text, tone } = clearOutcomeText('not_cleared');
      lastingFlash(text, tone);
      return;
    }
    void clearCopied(secret, via).then((outcome) => {
      const { text, tone } = clearOutcomeText(outcome);
      lastingFlash(text, tone);
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
            clearClipboard();
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
