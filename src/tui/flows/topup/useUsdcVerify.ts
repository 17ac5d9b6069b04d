/**
 * The USDC step's verify in the top-up walk-through (./useTopUpFlow.ts): the typed hash checked,
 * then what the chain shows of it (./chainVerify.ts: a mismatch is asked about, `y` sends anyway,
 * and what the chain showed is kept on the record all the same), then one `verifyUsdc` of the
 * operation (src/operations/verify.ts: on record as verifying, with its baseline, before it is
 * sent), its outcome said in the words the commands use (src/billing/verifyWords.ts). Sent once per
 * user request, never retried by itself; one money action at a time (`lock`).
 */
import { useCallback, useRef, type MutableRefObject } from 'react';
import { formatUsd } from '../../../api/money.js';
import { normalizeTxHash, txHashProblem } from '../../../billing/input.js';
import type { JournalEntry } from '../../../billing/journal.js';
import { verifyOutcomeLines, type VerifyOutcome } from '../../../billing/topups.js';
import { verifyUsdc, type VerifyPorts } from '../../../operations/index.js';
import { useBalanceRefresh } from '../../contexts/BalanceContext.js';
import { useServices } from '../../contexts/ServicesContext.js';
import { useSession, useSessionActions } from '../../contexts/SessionContext.js';
import { useFlash } from '../../contexts/StatusContext.js';
import { isUnauthorized } from '../../errors.js';
import { chainCheckFor } from './chainVerify.js';
import { entryIdOf, type FlowMessage, type FlowView } from './flowState.js';

/** What {@link useUsdcVerify} works with (the walk-through's own state, ./useTopUpFlow.ts). */
export interface UsdcVerifyInputs {
  readonly viewRef: MutableRefObject<FlowView | undefined>;
  readonly entriesRef: MutableRefObject<readonly JournalEntry[]>;
  /** The record and the client of this service and profile; undefined without a session. */
  readonly ports: VerifyPorts | undefined;
  /** One money action at a time. */
  readonly lock: MutableRefObject<boolean>;
  readonly mounted: MutableRefObject<boolean>;
  /** Says what is being sent (undefined: nothing). */
  readonly setBusy: (label: string | undefined) => void;
  /** Changes the USDC step (nothing when another step is shown). */
  readonly setUsdc: (patch: Partial<Extract<FlowView, { kind: 'usdc' }>>) => void;
  readonly setView: (view: FlowView | undefined) => void;
  /** Shows a record the verify wrote. */
  readonly remember: (entry: JournalEntry) => void;
  /** Notes a failure that says the record cannot be trusted (./useTopUpRecord.ts). */
  readonly noteDamage: (error: unknown) => void;
}

/** `verify(hashText, { skipChecks })`: see the module comment; `skipChecks` is the user's "send anyway". */
export function useUsdcVerify(inputs: UsdcVerifyInputs): (hashText: string, options?: { readonly skipChecks?: boolean }) => void {
  const { viewRef, entriesRef, ports, lock, mounted, setBusy, setUsdc, setView, remember, noteDamage } = inputs;
  const services = useServices();
  const baseUrl = useSession().baseUrl;
  const { markRejected } = useSessionActions();
  const refreshBalance = useBalanceRefresh();
  const flash = useFlash();
  /** The hash whose chain check found a problem, and what the chain showed of it. */
  const mismatch = useRef<{ readonly txHash: string; readonly evidence?: JournalEntry['chainEvidence'] }>(undefined);
  return useCallback(
    (hashText: string, verifyOptions?: { readonly skipChecks?: boolean }) => {
      const v = viewRef.current;
      const current = entriesRef.current.find((e) => e.id === entryIdOf(v));
      if (v?.kind !== 'usdc' || !current || !ports || lock.current) return;
      const problem = txHashProblem(hashText);
      if (problem) {
        setUsdc({ mode: 'hash', hashDraft: hashText, message: { tone: 'error', lines: [`Not a transaction hash: ${problem}.`] } });
        return;
      }
      const txHash = normalizeTxHash(hashText);
      const amount = current.amountSent ?? current.amount;
      lock.current = true;
      setUsdc({ mode: 'main', hashDraft: txHash, message: undefined });
      void (async () => {
        try {
          // The chain's word first: a mismatch is asked about; it never credits by itself.
          const settingsOf = services.chainSettings;
          let chainLine: string | undefined;
          // Sent anyway: what the chain showed of this hash is kept on the record all the same.
          let chainEvidence = verifyOptions?.skipChecks && mismatch.current?.txHash === txHash ? mismatch.current.evidence : undefined;
          if (settingsOf && baseUrl && !verifyOptions?.skipChecks) {
            setBusy('reading the transfer on chain');
            const check = await chainCheckFor(settingsOf, baseUrl, ports, { entryId: current.id, txHash, amount, ...(current.address !== undefined && { depositAddress: current.address }) });
            if (!mounted.current) return;
            if (check.kind === 'problem') {
              mismatch.current = { txHash, ...(check.evidence && { evidence: check.evidence }) };
              setBusy(undefined);
              setUsdc({
                mode: 'chainConfirm',
                hashDraft: txHash,
                message: { tone: 'warning', lines: [`The chain: ${check.sentence}.`, 'y sends the verify anyway (the service may know better) · n does not'] },
              });
              return;
            }
            if (check.kind === 'passed' || check.kind === 'unavailable') chainLine = `The chain: ${check.sentence}.`;
            if (check.kind === 'passed') chainEvidence = check.evidence;
          }
          setBusy(`verifying the transfer for ${formatUsd(amount)}`); // on record as verifying, with its baseline, before it is sent
          // A stop at one of its steps (the kit's `crashed`: crash walks only) is said as nothing sent.
          const outcome: VerifyOutcome = await verifyUsdc(ports, { entryId: current.id, txHash, amount, ...(chainEvidence && { chainEvidence }) })
            .catch((error: unknown) => ({ kind: 'not_sent', error }) as const)
            .finally(() => {
              if (mounted.current) setBusy(undefined);
            });
          if ('error' in outcome && isUnauthorized(outcome.error)) markRejected();
          if ('error' in outcome) noteDamage(outcome.error);
          if (!mounted.current) return;
          if (outcome.entry) remember(outcome.entry);
          refreshBalance();
          const lines = [...verifyOutcomeLines(outcome, amount, { amountSent: 'press e and verify with the amount you actually sent', again: 'h, then enter' }), ...(chainLine ? [chainLine] : [])];
          if (outcome.kind === 'credited') {
            flash(lines[0]!.replace(/^Credited/, 'credited').replace(/\.$/, ''), 'ok');
            setView({ kind: 'done', entryId: current.id });
            return;
          }
          const tone: FlowMessage['tone'] =
            outcome.kind === 'unknown' || outcome.kind === 'used_unconfirmed' || outcome.kind === 'not_found' || outcome.kind === 'already_credited' ? 'warning' : 'error';
          setUsdc({ mode: 'main', hashDraft: txHash, message: { tone, lines } });
        } finally {
          lock.current = false;
        }
      })();
    },
    [ports, viewRef, entriesRef, lock, mounted, setBusy, setView, remember, refreshBalance, flash, setUsdc, markRejected, services.chainSettings, baseUrl, noteDamage],
  );
}
