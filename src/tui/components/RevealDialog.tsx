/**
 * The one-time reveal of a new key (§2.1 `apiKey` / §2.2 `apiKey`, returned only at creation):
 * the full value, `c` to copy it (OSC 52, then the system clipboard), and an explicit `y` "I have
 * saved it". On `y` the caller drops the value from its state (`onAck`) and this dialog then
 * has the whole screen redrawn (`services.redraw`), so the key is gone from the screen, the
 * state and the scrollback, whoever opened the dialog. esc does not close it: it
 * reminds that the key cannot be shown again.
 */
import { Box, Text } from 'ink';
import { useKeymap } from '../contexts/KeymapContext.js';
import { useServices } from '../contexts/ServicesContext.js';
import { useFlash } from '../contexts/StatusContext.js';
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
  readonly columns: number;
  readonly rows: number;
}

/** Status-line sentence for a copy outcome. */
export function copyOutcomeText(outcome: 'clipboard' | 'osc52' | 'failed'): { text: string; tone: 'ok' | 'warning' } {
  if (outcome === 'clipboard') return { text: 'copied to the clipboard', tone: 'ok' };
  if (outcome === 'osc52') return { text: 'sent to the terminal clipboard (OSC 52); if nothing was copied: copy failed, select the text', tone: 'warning' };
  return { text: 'copy failed, select the text', tone: 'warning' };
}

/** See the module comment. */
export function RevealDialog(props: RevealDialogProps) {
  const { copy, redraw } = useServices();
  const flash = useFlash();
  useKeymap(
    'reveal',
    {
      'reveal.copy': () => {
        void copy(props.secret).then((outcome) => {
          const { text, tone } = copyOutcomeText(outcome);
          flash(text, tone);
        });
      },
      'reveal.use': props.onUse,
      'reveal.ack': () => {
        props.onAck();
        redraw();
      },
      'reveal.esc': () => flash('press y once you have saved the key: it cannot be shown again', 'warning'),
    },
    { modal: true },
  );
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
        {`c copy · ${props.onUse ? `u ${props.useLabel ?? 'use it'} · ` : ''}y I have saved it`}
      </Text>
    </Dialog>
  );
}
