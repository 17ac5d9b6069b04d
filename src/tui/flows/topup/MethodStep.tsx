/**
 * Step 2 of the top-up walk-through: the method (the service's endpoints `method`): USDC on Base, card checkout, or
 * card direct. The arrows, j/k or a method's letter (u, c, d) select; only enter goes on (a card
 * direct charge is confirmed first by the dialog); esc goes back to the amount. No digits: they
 * switch panes elsewhere, so a habit of "3" must never pick a money action.
 */
import { Box, Text } from 'ink';
import type { TopUpMethod } from '../../../api/schemas.js';
import { Dialog } from '../../components/Dialog.js';
import { useKeymap } from '../../contexts/KeymapContext.js';
import { symbols, theme } from '../../theme.js';
import { METHODS, type FlowMessage } from './flowState.js';
import { FlowMessageView } from './FlowMessageView.js';
import { formatUsd } from '../../../api/money.js';

const DESCRIPTIONS: Record<TopUpMethod, [string, string]> = {
  usdc: ['USDC on Base', 'send USDC from a wallet, then verify the transfer'],
  card_checkout: ['Card checkout', 'pay on the card processor’s page in the browser'],
  card_direct: ['Card direct', 'charge the card on file (asks first)'],
};

/** The letter that selects each method. */
export const METHOD_LETTERS: Record<TopUpMethod, string> = { usdc: 'u', card_checkout: 'c', card_direct: 'd' };

/** Props of {@link MethodStep}. */
export interface MethodStepProps {
  readonly amount: number;
  readonly cursor: number;
  readonly message?: FlowMessage | undefined;
  /** A request is in flight: keys are held. */
  readonly busy?: string | undefined;
  readonly onMove: (delta: number) => void;
  /** Selects a method (its letter); nothing is requested. */
  readonly onSelect: (method: TopUpMethod) => void;
  readonly onChoose: (method: TopUpMethod) => void;
  readonly onBack: () => void;
  readonly columns: number;
  readonly rows: number;
}

/** Width of the label column: the longest label, its marker and number. */
const LABEL_WIDTH = Math.max(...METHODS.map((m) => DESCRIPTIONS[m][0].length)) + 4;

/** See the module comment. */
export function MethodStep(props: MethodStepProps) {
  const idle = props.busy === undefined;
  useKeymap(
    'topup',
    idle
      ? {
          'topup.methodDown': () => props.onMove(1),
          'topup.methodUp': () => props.onMove(-1),
          'topup.methodUsdc': () => props.onSelect('usdc'),
          'topup.methodCheckout': () => props.onSelect('card_checkout'),
          'topup.methodDirect': () => props.onSelect('card_direct'),
          'topup.choose': () => props.onChoose(METHODS[props.cursor] ?? 'usdc'),
          'topup.back': props.onBack,
        }
      : {},
    { modal: true },
  );
  return (
    <Dialog title={`Top up · 2/3 method · ${formatUsd(props.amount)}`} columns={props.columns} rows={props.rows}>
      {METHODS.map((method, i) => {
        const on = i === props.cursor;
        const [label, what] = DESCRIPTIONS[method];
        return (
          <Box key={method}>
            {/* The labels keep their width (aligned, never wrapped); the descriptions wrap (never cut). */}
            <Box flexShrink={0} width={LABEL_WIDTH}>
              <Text inverse={on} bold={on}>{`${on ? symbols.selected : ' '} ${METHOD_LETTERS[method]} ${label}`}</Text>
            </Box>
            <Box paddingLeft={2} flexShrink={1}>
              <Text color={theme.muted} wrap="wrap">
                {what}
              </Text>
            </Box>
          </Box>
        );
      })}
      <FlowMessageView message={props.message} />
      <Text color={idle ? theme.muted : theme.accent}>{idle ? '↑↓ or u/c/d select · enter goes on · esc back' : `… ${props.busy}`}</Text>
    </Dialog>
  );
}
