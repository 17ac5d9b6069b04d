/**
 * Step 3, card checkout: the hosted page's `sessionUrl` (shown, opened with `o` and
 * copied with `c` only when the link rule of src/api/baseUrl.ts accepts it); then the wait: the
 * top-up is credited only when the service's billing status names this session paid. A rise of
 * the total of top-ups that nothing names is shown as what it is. esc leaves the walk-through
 * while the wait goes on (enter on the Billing pane resumes it); `x` closes a top-up that will not
 * be paid.
 *
 * The link comes out whole: it is drawn below the dialog's box, on a line of its own
 * with no border or padding (a mouse selection takes nothing else), as an OSC 8 hyperlink where
 * the terminal supports one; when `o` finds no browser the link is shown alone.
 */
import { useState } from 'react';
import { Box, Text } from 'ink';
import { checkoutUrlProblem } from '../../../api/baseUrl.js';
import { unexplainedRise } from '../../../billing/evidence.js';
import type { JournalEntry } from '../../../billing/journal.js';
import { Dialog } from '../../components/Dialog.js';
import { useKeymap } from '../../contexts/KeymapContext.js';
import { displayWidth } from '../../format.js';
import { hyperlink, supportsHyperlinks } from '../../hyperlink.js';
import { symbols, theme } from '../../theme.js';
import { visible } from '../../../terminal/sanitize.js';
import { CARD_WATCH_INTERVAL_MS } from './useTopUpFlow.js';
import { FlowMessageView } from './FlowMessageView.js';
import type { FlowMessage } from './flowState.js';
import { formatUsd } from '../../../api/money.js';

/** Props of {@link CardStep}. */
export interface CardStepProps {
  readonly entry: JournalEntry;
  readonly message?: FlowMessage | undefined;
  /** `totalTopUp` polled now (USD). */
  readonly totalTopUp?: number | undefined;
  /** Opens the link; the callback runs when no browser could be opened. */
  readonly onOpen: (onNoBrowser?: () => void) => void;
  readonly onCopy: () => void;
  readonly onAbandon: () => void;
  readonly onLeave: () => void;
  /** A sandbox: `s` pays the session as its checkout page would. */
  readonly onPayInSandbox?: (() => void) | undefined;
  readonly columns: number;
  readonly rows: number;
}

/** See the module comment. */
export function CardStep({ entry, message, totalTopUp, onOpen, onCopy, onAbandon, onLeave, onPayInSandbox, columns, rows }: CardStepProps) {
  const given = entry.sessionUrl;
  const problem = given === undefined ? undefined : checkoutUrlProblem(given);
  const url = problem === undefined ? given : undefined;
  /** The link alone on screen (no browser here). */
  const [alone, setAlone] = useState(false);
  const payable = onPayInSandbox !== undefined && entry.sessionId !== undefined && entry.state === 'awaiting_payment';
  useKeymap(
    'topup',
    alone
      ? { 'topup.copyUrl': url ? onCopy : undefined, 'topup.leave': () => setAlone(false) }
      : {
          'topup.open': url ? () => onOpen(() => setAlone(true)) : undefined,
          'topup.copyUrl': url ? onCopy : undefined,
          'topup.payInSandbox': payable ? onPayInSandbox : undefined,
          'topup.abandon': onAbandon,
          'topup.leave': onLeave,
        },
    { modal: true },
  );
  const shown = url !== undefined ? visible(url) : undefined;
  const link =
    shown !== undefined ? (
      <Text color={theme.accent} wrap="wrap">
        {hyperlink(url!, shown, supportsHyperlinks())}
      </Text>
    ) : null;
  const linkRows = shown !== undefined ? Math.max(1, Math.ceil(displayWidth(shown) / Math.max(1, columns))) : 0;
  if (alone && link) {
    return (
      <Box flexDirection="column" width={columns} height={rows}>
        <Text wrap="wrap">No browser could be opened here. Select the link below and open it where you can pay:</Text>
        <Text> </Text>
        {link}
        <Text> </Text>
        <Text color={theme.muted} wrap="wrap">
          c copies it · esc goes back
        </Text>
      </Box>
    );
  }
  const rise = unexplainedRise('card_checkout', entry.baselineTotalTopUp, totalTopUp);
  const refused = problem ?? (entry.reasonCode === 'checkout_url_refused' ? `${entry.reason ?? 'The checkout link from the service was refused'}.` : undefined);
  return (
    <Box flexDirection="column" width={columns} height={rows}>
      <Dialog title={`Top up · 3/3 pay · card checkout · ${formatUsd(entry.amount)} · ${entry.state.replace('_', ' ')}`} columns={columns} rows={Math.max(3, rows - linkRows)}>
        {refused !== undefined ? (
          <Text color={theme.danger} wrap="wrap">{`✕ ${refused}`}</Text>
        ) : url === undefined ? (
          <Text color={theme.accent} wrap="wrap">{`(session ${visible(entry.sessionId ?? '?')}: no page address was given)`}</Text>
        ) : (
          <Text wrap="wrap">Pay on the card processor’s checkout page: its link is below this box, on a line of its own.</Text>
        )}
        {url ? <Text wrap="wrap">o opens it in the browser · c copies the link</Text> : null}
        {payable ? (
          <Text color={theme.accent} wrap="wrap">
            This is the sandbox: s pays it as its checkout page would, with no browser and no card.
          </Text>
        ) : null}
        <Text> </Text>
        <Text wrap="wrap">
          {`… waiting for the payment: credited once the service’s billing status names session ${visible(entry.sessionId ?? '?')} paid (checked when the total of top-ups changes; the balance is read every ${CARD_WATCH_INTERVAL_MS / 1000} s).`}
        </Text>
        {rise !== undefined ? <Text color={theme.warning} wrap="wrap">{`${symbols.warning} ${rise}`}</Text> : null}
        <FlowMessageView message={message} />
        <Text color={theme.muted} wrap="wrap">
          esc leaves (the wait goes on; enter on the Billing pane resumes) · x closes it if you will not pay
        </Text>
      </Dialog>
      {link}
    </Box>
  );
}
