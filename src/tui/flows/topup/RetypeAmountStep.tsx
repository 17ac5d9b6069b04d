/**
 * Between the amount and the method: an amount above the profile's ceiling
 * (`confirmAboveUsd`, default $500) must be typed again, so a slip of the finger (an extra zero)
 * never reaches a payment. enter continues once the two match; esc goes back to the amount.
 */
import { useState } from 'react';
import { Box, Text } from 'ink';
import { Dialog } from '../../components/Dialog.js';
import { TextField, useTextField } from '../../components/TextField.js';
import { useKeymap } from '../../contexts/KeymapContext.js';
import { theme } from '../../theme.js';
import { cents } from './flowState.js';
import { parseUsdAmount } from '../../../billing/input.js';
import { formatUsd } from '../../../api/money.js';

/** Props of {@link RetypeAmountStep}. */
export interface RetypeAmountStepProps {
  /** The amount typed first, USD. */
  readonly amount: number;
  /** The profile's ceiling, USD. */
  readonly ceilingUsd: number;
  readonly onConfirm: () => void;
  readonly onBack: () => void;
  readonly columns: number;
  readonly rows: number;
}

/** True when `text` is the same amount as `amount` (whole cents). */
export function sameAmount(text: string, amount: number): boolean {
  const parsed = parseUsdAmount(text.replace(/,/g, ''));
  return parsed.ok && cents(parsed.amount) === cents(amount);
}

/** See the module comment. */
export function RetypeAmountStep(props: RetypeAmountStepProps) {
  const field = useTextField('');
  const [tried, setTried] = useState(false);
  const matches = sameAmount(field.value, props.amount);
  useKeymap(
    'topup',
    {
      'topup.submit': () => {
        setTried(true);
        if (sameAmount(field.current(), props.amount)) props.onConfirm();
      },
      'topup.cancel': props.onBack,
    },
    { modal: true, textEntry: true },
  );
  return (
    <Dialog title={`Top up · confirm ${formatUsd(props.amount)}`} columns={props.columns} rows={props.rows} dangerous>
      <Text wrap="wrap">{`${formatUsd(props.amount)} is above this profile’s ceiling of ${formatUsd(props.ceilingUsd)}. Type the amount again to confirm it.`}</Text>
      <Box>
        <Text>amount again: </Text>
        <TextField field={field} />
      </Box>
      <Text color={tried && !matches ? theme.danger : theme.muted} wrap="wrap">
        {tried && !matches ? `✕ not the same amount as ${formatUsd(props.amount)}` : 'enter continues · esc back to the amount'}
      </Text>
    </Dialog>
  );
}
