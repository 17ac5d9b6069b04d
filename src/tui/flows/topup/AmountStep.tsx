/**
 * Step 1 of the top-up walk-through: the amount in USD (at least 10, at most two decimals),
 * with the reason shown inline while it is refused; enter continues, esc cancels.
 */
import { useState } from 'react';
import { Box, Text } from 'ink';
import { MIN_TOP_UP_USD } from '../../../api/schemas.js';
import { Dialog } from '../../components/Dialog.js';
import { useKeymap } from '../../contexts/KeymapContext.js';
import { TextField, useTextField } from '../../components/TextField.js';
import { theme } from '../../theme.js';
import { parseUsdAmount } from '../../../billing/input.js';

/** Props of {@link AmountStep}. */
export interface AmountStepProps {
  readonly initial?: string | undefined;
  readonly onSubmit: (amount: number) => void;
  readonly onCancel: () => void;
  readonly columns: number;
  readonly rows: number;
}

/** See the module comment. */
export function AmountStep(props: AmountStepProps) {
  const field = useTextField(props.initial ?? '');
  const text = field.value;
  const [tried, setTried] = useState(false);
  const parsed = parseUsdAmount(text);
  useKeymap(
    'topup',
    {
      'topup.submit': () => {
        setTried(true);
        const live = parseUsdAmount(field.current());
        if (live.ok) props.onSubmit(live.amount);
      },
      'topup.cancel': props.onCancel,
    },
    { modal: true, textEntry: true },
  );
  const showProblem = !parsed.ok && (tried || text.trim() !== '');
  return (
    <Dialog title="Top up · 1/3 amount" columns={props.columns} rows={props.rows}>
      <Text wrap="wrap">{`How much to add to the credit balance, in USD (at least ${MIN_TOP_UP_USD}, whole cents).`}</Text>
      <Box>
        <Text>amount USD: </Text>
        <TextField field={field} placeholder="e.g. 25" />
      </Box>
      <Text color={showProblem ? theme.danger : theme.muted} wrap="wrap">
        {showProblem && !parsed.ok ? `✕ ${parsed.reason}` : 'enter continues · esc cancels'}
      </Text>
    </Dialog>
  );
}
