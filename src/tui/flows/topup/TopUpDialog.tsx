/**
 * The top-up walk-through on screen: the step of {@link TopUpFlow} drawn in the area it is
 * given, each step binding its own keys (modal, `billing` scope of the key-action table).
 */
import { useState } from 'react';
import { DEFAULT_CONFIRM_ABOVE_USD } from '../../../config/config.js';
import { useServices } from '../../contexts/ServicesContext.js';
import { CloseTopUpDialog } from './CloseTopUpDialog.js';
import { ConfirmChargeDialog } from './ConfirmChargeDialog.js';
import { cents, METHODS } from './flowState.js';
import { RetypeAmountStep } from './RetypeAmountStep.js';
import { Text } from 'ink';
import { Dialog } from '../../components/Dialog.js';
import { useKeymap } from '../../contexts/KeymapContext.js';
import { theme } from '../../theme.js';
import { methodLabel } from '../../../billing/journal.js';
import { checkoutUrlProblem } from '../../../api/baseUrl.js';
import { AmountStep } from './AmountStep.js';
import { CardStep } from './CardStep.js';
import { DirectStep } from './DirectStep.js';
import { DoneStep } from './DoneStep.js';
import { MethodStep } from './MethodStep.js';
import { UsdcStep } from './UsdcStep.js';
import type { TopUpFlow } from './useTopUpFlow.js';
import { formatUsd } from '../../../api/money.js';

/** Props of {@link TopUpDialog}. */
export interface TopUpDialogProps {
  readonly flow: TopUpFlow;
  /** The balance polled now (USD), for the last step. */
  readonly remaining?: number | undefined;
  /** `totalTopUp` polled now (USD): a rise since a card top-up started is shown as what it is. */
  readonly totalTopUp?: number | undefined;
  readonly columns: number;
  readonly rows: number;
}

/** See the module comment. Renders nothing when no walk-through is open. */
export function TopUpDialog({ flow, remaining, totalTopUp, columns, rows }: TopUpDialogProps) {
  const { view, entry } = flow;
  const area = { columns, rows };
  // `x` in any step asks first; the confirmation replaces the step until answered.
  const [closing, setClosing] = useState<string | undefined>(undefined);
  // Money is confirmed: an amount above the ceiling is typed again; a card-on-file
  // charge asks "Charge $X to the card on file?" with Cancel focused.
  const [retyping, setRetyping] = useState<number | undefined>(undefined);
  const [charging, setCharging] = useState<number | undefined>(undefined);
  /** The amount as typed, kept when esc goes back from typing it again. */
  const [draft, setDraft] = useState<string | undefined>(undefined);
  const ceilingUsd = useServices().profile.confirmAboveUsd ?? DEFAULT_CONFIRM_ABOVE_USD;
  if (!view || !flow.open) return null;
  if (view.kind === 'amount' && retyping !== undefined) {
    return (
      <RetypeAmountStep
        {...area}
        amount={retyping}
        ceilingUsd={ceilingUsd}
        onConfirm={() => {
          setRetyping(undefined);
          flow.submitAmount(retyping);
        }}
        onBack={() => {
          setDraft(String(retyping));
          setRetyping(undefined);
        }}
      />
    );
  }
  if (view.kind === 'method' && charging !== undefined && charging === view.amount) {
    return (
      <ConfirmChargeDialog
        {...area}
        amount={view.amount}
        onConfirm={() => {
          setCharging(undefined);
          flow.chooseMethod('card_direct');
        }}
        onCancel={() => setCharging(undefined)}
      />
    );
  }
  if (entry && closing === entry.id) {
    return (
      <CloseTopUpDialog
        {...area}
        entry={entry}
        onConfirm={() => {
          setClosing(undefined);
          flow.abandon();
        }}
        onCancel={() => setClosing(undefined)}
      />
    );
  }
  const askToClose = () => entry && setClosing(entry.id);
  switch (view.kind) {
    case 'amount':
      return (
        <AmountStep
          {...area}
          initial={draft ?? view.initial}
          onSubmit={(amount) => {
            setDraft(undefined);
            if (cents(amount) > cents(ceilingUsd)) setRetyping(amount);
            else flow.submitAmount(amount);
          }}
          onCancel={() => {
            setDraft(undefined);
            flow.cancel();
          }}
        />
      );
    case 'method':
      return (
        <MethodStep
          {...area}
          amount={view.amount}
          cursor={view.cursor}
          message={view.message}
          busy={flow.busy}
          onMove={flow.moveMethod}
          onSelect={(method) => flow.moveMethod(METHODS.indexOf(method) - view.cursor)}
          onChoose={(method) => (method === 'card_direct' ? setCharging(view.amount) : flow.chooseMethod(method))}
          onBack={flow.backToAmount}
        />
      );
    case 'requesting':
      return <Requesting {...area} text={flow.busy ?? `requesting a ${methodLabel(view.method)} top-up of ${formatUsd(view.amount)}`} />;
    default:
      break;
  }
  if (!entry) return <Requesting {...area} text="reading the top-up journal" />;
  switch (view.kind) {
    case 'card':
      return (
        <CardStep
          {...area}
          entry={entry}
          message={view.message}
          totalTopUp={totalTopUp}
          onOpen={flow.openCheckout}
          onCopy={() => entry.sessionUrl && checkoutUrlProblem(entry.sessionUrl) === undefined && flow.copy(entry.sessionUrl, 'checkout link')}
          onAbandon={askToClose}
          onLeave={flow.leave}
          onPayInSandbox={flow.canSimulate ? flow.simulate : undefined}
        />
      );
    case 'usdc':
      return (
        <UsdcStep
          {...area}
          entry={entry}
          mode={view.mode}
          hashDraft={view.hashDraft}
          message={view.message}
          busy={flow.busy}
          canSimulate={flow.canSimulate}
          onMode={flow.setUsdcMode}
          onCopy={flow.copy}
          onVerify={(hash) => flow.verify(hash)}
          chain={flow.chain}
          onSendAnyway={() => view.hashDraft !== undefined && flow.verify(view.hashDraft, { skipChecks: true })}
          onAmountSent={flow.setAmountSent}
          onSimulate={flow.simulate}
          onAbandon={askToClose}
          onLeave={flow.leave}
        />
      );
    case 'direct':
      return <DirectStep {...area} entry={entry} data={view.data} message={view.message} totalTopUp={totalTopUp} onAbandon={askToClose} onLeave={flow.leave} />;
    case 'done':
      return <DoneStep {...area} entry={entry} data={view.data} remaining={remaining} onClose={flow.close} />;
  }
}

/** A request in flight: holds every key but ctrl-c. */
function Requesting({ text, columns, rows }: { readonly text: string; readonly columns: number; readonly rows: number }) {
  useKeymap('topup', {}, { modal: true });
  return (
    <Dialog title="Top up" columns={columns} rows={rows}>
      <Text color={theme.accent}>{`… ${text}`}</Text>
    </Dialog>
  );
}
