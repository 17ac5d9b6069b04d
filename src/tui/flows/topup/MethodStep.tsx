/**
 * Step 2 of the top-up walk-through: the method (§4 `method`): USDC on Base, card checkout, or
 * card direct. j/k (or 1–3) select, enter requests the top-up, esc goes back to the amount.
 */
import { Box, Text } from 'ink';
import type { TopUpMethod } from '../../../api/schemas.js';
import { Dialog } from '../../components/Dialog.js';
import { useKeymap } from '../../contexts/KeymapContext.js';
import { formatUsd } from '../../format.js';
import { symbols, theme } from '../../theme.js';
import { METHODS, type FlowMessage } from './flowState.js';
import { FlowMessageView } from './FlowMessageView.js';

const DESCRIPTIONS: Record<TopUpMethod, [string, string]> = {
  usdc: ['USDC on Base', 'send USDC to a deposit address from a wallet, then verify the transaction'],
  card_checkout: ['Card checkout', 'pay on the card processor’s page in the browser'],
  card_direct: ['Card direct', 'charge the card on file at once'],
};

/** Props of {@link MethodStep}. */
export interface MethodStepProps {
  readonly amount: number;
  readonly cursor: number;
  readonly message?: FlowMessage | undefined;
  /** A request is in flight: keys are held. */
  readonly busy?: string | undefined;
  readonly onMove: (delta: number) => void;
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
          'topup.method1': () => props.onChoose('usdc'),
          'topup.method2': () => props.onChoose('card_checkout'),
          'topup.method3': () => props.onChoose('card_direct'),
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
            {/* The labels keep their width (aligned, never wrapped); the descriptions are truncated. */}
            <Box flexShrink={0} width={LABEL_WIDTH}>
              <Text inverse={on} bold={on}>{`${on ? symbols.selected : ' '} ${i + 1} ${label}`}</Text>
            </Box>
            <Text color={theme.muted} wrap="truncate">{`  ${what}`}</Text>
          </Box>
        );
      })}
      <FlowMessageView message={props.message} />
      <Text color={idle ? theme.muted : theme.accent}>{idle ? 'enter requests the top-up · esc back' : `… ${props.busy}`}</Text>
    </Dialog>
  );
}
