/**
 * Cancelling a renewal from the Billing pane (`c` in its status view, or in the pools view for the
 * selected pool's pledges), as `keydeck billing cancel` does (src/billing/renewals.ts): the billing
 * status is read afresh, the subscriptions and pool pledges that still renew are offered (a choice
 * when there are several; none: said, nothing sent), the question is asked with Cancel focused,
 * `POST /api/billing/cancel` is sent once, and the status read again says whether it took: "stays
 * active until …". The caller checks the read-only mark before opening it.
 */
import { useEffect, useEffectEvent, useState } from 'react';
import { summarizeBillingStatus } from '../../api/reader.js';
import { cancelOutcome, cancellableRenewals, cancelQuestion, findRenewal, renewalWords, type Renewal } from '../../billing/renewals.js';
import { ChoiceDialog } from '../components/ChoiceDialog.js';
import { ConfirmDialog } from '../components/ConfirmDialog.js';
import { useSession } from '../contexts/SessionContext.js';
import { useFlash } from '../contexts/StatusContext.js';
import { dateTime } from '../format.js';
import { describeFailure } from '../errors.js';
import { useActionRunner } from '../hooks/useActionRunner.js';

/** Props of {@link CancelRenewalFlow}. */
export interface CancelRenewalFlowProps {
  readonly columns: number;
  readonly rows: number;
  /** Only this pool's pledges (its slug or id): from the pools view. */
  readonly pool?: string | undefined;
  /** Closed: after the outcome was said, or cancelled. `changed`: the cancel was sent. */
  readonly onClose: (changed: boolean) => void;
}

/** When a period ends, as the pane writes times (`2026-03-05 10:00 UTC`). */
const when = (iso: string): string => dateTime(iso);

/** See the module comment. */
export function CancelRenewalFlow({ columns, rows, pool, onClose }: CancelRenewalFlowProps) {
  const { client } = useSession();
  const flash = useFlash({ owned: false });
  const { run } = useActionRunner();
  const [choices, setChoices] = useState<Renewal[] | undefined>(undefined);
  const [chosen, setChosen] = useState<Renewal | undefined>(undefined);

  // The status is read once, when the flow opens: the read is an event of the opening, with the
  // session and callbacks as they are then (`live`: the flow is still open).
  const readRenewals = useEffectEvent(async (live: () => boolean) => {
    if (!client) return onClose(false);
    const r = await run('reading the billing status', () => client.billing.status(), { quiet: true });
    if (!live()) return;
    // Said by this flow's lasting flash: the runner's own message would go with the flow.
    if (!r.ok) {
      flash(describeFailure(r.error), 'error');
      return onClose(false);
    }
    const summary = summarizeBillingStatus(r.value);
    const open = summary ? cancellableRenewals(summary, pool) : [];
    if (open.length === 0) {
      flash(
        summary
          ? `no ${pool !== undefined ? `pledge of the pool ${pool}` : 'subscription or pool pledge'} renews: nothing to cancel, nothing was sent`
          : 'the billing status is not in a shape keydeck reads, so it cannot say what renews: nothing was sent (keydeck billing cancel ID sends it by id)',
        'warning',
        10_000,
      );
      return onClose(false);
    }
    if (open.length === 1) setChosen(open[0]);
    else setChoices(open);
  });
  useEffect(() => {
    let live = true;
    void readRenewals(() => live);
    return () => {
      live = false;
    };
  }, []);

  const send = async (renewal: Renewal) => {
    setChosen(undefined);
    if (!client) return onClose(false);
    const r = await run(`cancelling the renewal of the ${renewalWords(renewal, renewal.id)}`, () => client.billing.cancel(renewal.id), { quiet: true });
    if (!r.ok) {
      flash(describeFailure(r.error), 'error');
      return onClose(true);
    }
    const after = await client.billing.status().then(
      (status) => {
        const summary = summarizeBillingStatus(status);
        return summary ? findRenewal(summary, renewal.id) : undefined;
      },
      () => undefined,
    );
    const outcome = cancelOutcome(after);
    const until = after?.summary.currentPeriodEnd ?? renewal.summary.currentPeriodEnd;
    if (outcome === 'confirmed')
      flash(`cancelled the renewal of the ${renewalWords(after, renewal.id)}: it stays active until ${until ? when(until) : 'the end of its period'}, then ends`, 'ok', 10_000);
    else if (outcome === 'disagrees')
      flash(`the service accepted the cancel, but its billing status still says the ${renewalWords(after, renewal.id)} renews: check it (s) before relying on it`, 'error');
    else flash(`the service accepted the cancel of the ${renewalWords(renewal, renewal.id)}; its billing status does not say it yet`, 'warning', 10_000);
    onClose(true);
  };

  if (chosen) {
    return (
      <ConfirmDialog
        columns={columns}
        rows={rows}
        title="Cancel the renewal?"
        message={[cancelQuestion(chosen, chosen.id, when)]}
        actionLabel="Cancel the renewal"
        dangerous
        onConfirm={() => void send(chosen)}
        onCancel={() => onClose(false)}
      />
    );
  }
  if (choices) {
    return (
      <ChoiceDialog
        columns={columns}
        rows={rows}
        title="Cancel which renewal?"
        message={['These renew at the end of their period. The one chosen stays active until then, and is not renewed.']}
        choices={choices.map((c) => renewalWords(c, c.id))}
        onChoose={(i) => {
          setChoices(undefined);
          setChosen(choices[i]);
        }}
        onCancel={() => onClose(false)}
      />
    );
  }
  return null;
}
