/**
 * Creating a credit key from the Keys pane (issue 26), or minting the key of a subscription or
 * pool pledge (`subscription`, issue 23: `POST /api/keys/subscription`): where it goes is asked first
 * (./DestinationChooser.tsx). With a destination chosen, the key is created and delivered and
 * never shown: a notice lists the outcomes. Shown instead, it stays in the one-time reveal until
 * acknowledged, and `f` / `x` there deliver it too. When a destination fails after creation the
 * key is revealed so it is not lost, with the failures, and `D` deletes it: never an orphan
 * without a word.
 */
import { useEffect, useState } from 'react';
import { Text } from 'ink';
import type { CreatedConsumptionKey } from '../../../api/schemas.js';
import type { Destination } from '../../../delivery/destinations.js';
import { visible } from '../../../terminal/sanitize.js';
import { ConfirmDialog } from '../../components/ConfirmDialog.js';
import { Dialog } from '../../components/Dialog.js';
import { NoticeDialog } from '../../components/NoticeDialog.js';
import { RevealDialog } from '../../components/RevealDialog.js';
import { useSession } from '../../contexts/SessionContext.js';
import { useFlash } from '../../contexts/StatusContext.js';
import { describeFailure, errorCode } from '../../errors.js';
import { useActionRunner } from '../../hooks/useActionRunner.js';
import { DestinationChooser } from './DestinationChooser.js';
import { outcomeLines, useKeyDelivery } from './useKeyDelivery.js';

/** Props of {@link CreateKeyFlow}. */
export interface CreateKeyFlowProps {
  /** The new key's name (already checked). */
  readonly name: string;
  /** Mint the key of this subscription or pool pledge instead of a credit key (`label` names it for people). */
  readonly subscription?: { readonly id: string; readonly label: string };
  /** The flow is over; `id` of the key created, if one was (the pane selects it). */
  readonly onDone: (id?: string) => void;
  /** The service refused for a zero balance (the pane shows its notice). */
  readonly onZeroBalance: () => void;
  readonly columns: number;
  readonly rows: number;
}

type Step =
  | { kind: 'choose' }
  | { kind: 'working'; label: string }
  | { kind: 'reveal'; created: CreatedConsumptionKey; lines: string[]; failed: boolean }
  | { kind: 'revealDeliver'; created: CreatedConsumptionKey; lines: string[]; failed: boolean; mode: 'file' | 'command' }
  | { kind: 'confirmDelete'; created: CreatedConsumptionKey; lines: string[] }
  | { kind: 'delivered'; created: CreatedConsumptionKey; lines: string[] };

/** See the module comment. */
export function CreateKeyFlow(props: CreateKeyFlowProps) {
  const { client } = useSession();
  const flash = useFlash({ owned: false });
  const delivery = useKeyDelivery();
  const { run } = useActionRunner();
  const [step, setStep] = useState<Step>(delivery.dataDir ? { kind: 'choose' } : { kind: 'working', label: 'creating' });
  const area = { columns: props.columns, rows: props.rows };
  const label = (c: CreatedConsumptionKey) => `"${visible(c.name)}"`;
  const sub = props.subscription;
  const what = sub ? 'subscription key' : 'credit key';
  const What = sub ? 'Subscription key' : 'Credit key';

  const create = async (destinations: readonly Destination[] | 'show') => {
    if (!client) return props.onDone();
    setStep({ kind: 'working', label: `creating the ${what} "${props.name}"` });
    const r = await run(
      `creating the ${what} "${props.name}"`,
      async (): Promise<CreatedConsumptionKey> => {
        if (!sub) return client.keys.createCredit({ name: props.name });
        const made = await client.keys.createSubscription({ name: props.name, subscriptionId: sub.id });
        // The service's answer is not documented: what it leaves out is what was asked.
        return { ...made, name: made.name ?? props.name, keyType: made.keyType ?? 'subscription', isActive: made.isActive ?? true, createdAt: made.createdAt ?? new Date().toISOString() };
      },
      { quiet: true },
    );
    if (!r.ok) {
      if (!sub && errorCode(r.error) === 'insufficient_balance') return props.onZeroBalance();
      flash(describeFailure(r.error), 'error');
      return props.onDone();
    }
    const created = r.value;
    flash(`created the ${what} "${created.name}"`, 'ok');
    if (destinations === 'show') return setStep({ kind: 'reveal', created, lines: [], failed: false });
    setStep({ kind: 'working', label: 'delivering the key' });
    const outcomes = await delivery.deliver(created.apiKey, destinations);
    await delivery.remember(created.id, outcomes);
    const lines = outcomeLines(outcomes);
    if (outcomes.every((o) => o.ok)) setStep({ kind: 'delivered', created, lines });
    else setStep({ kind: 'reveal', created, lines, failed: true });
  };
  // Without a data dir nothing but the reveal is offered: create at once.
  useEffect(() => {
    if (!delivery.dataDir) void create('show');
    // Once, when the flow opens.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, []);

  switch (step.kind) {
    case 'choose':
      return (
        <DestinationChooser
          {...area}
          title={`Where should the new key "${visible(props.name)}" go?`}
          message={['Sent straight where it is used, the key never passes through the screen or the clipboard.']}
          allowShow
          check={delivery.check}
          onChoose={(d) => void create(d)}
          onCancel={() => props.onDone()}
        />
      );
    case 'working':
      return (
        <Dialog title={`New ${what}`} {...area}>
          <Text>{`${step.label}…`}</Text>
        </Dialog>
      );
    case 'delivered':
      return (
        <NoticeDialog
          {...area}
          title={`${What} ${label(step.created)} created and delivered`}
          message={[...step.lines, 'The full key was not shown: it went only where you sent it.']}
          onClose={() => props.onDone(step.created.id)}
        />
      );
    case 'revealDeliver': {
      const back = (lines: string[]) => setStep({ kind: 'reveal', created: step.created, lines, failed: step.failed });
      return (
        <DestinationChooser
          {...area}
          title={`Deliver ${label(step.created)}`}
          allowShow={false}
          initialMode={step.mode}
          check={delivery.check}
          onChoose={(d) => {
            if (d === 'show') return;
            void delivery.deliver(step.created.apiKey, d).then(async (outcomes) => {
              await delivery.remember(step.created.id, outcomes);
              back([...step.lines, ...outcomeLines(outcomes)]);
            });
          }}
          onCancel={() => back(step.lines)}
        />
      );
    }
    case 'confirmDelete':
      return (
        <ConfirmDialog
          {...area}
          title={`Delete ${label(step.created)}?`}
          message={['It was not delivered everywhere. Deleting it revokes it at once; whatever already holds it stops working.']}
          actionLabel="Delete"
          dangerous
          onConfirm={() => {
            void run(`deleting "${step.created.name}"`, () => client!.keys.delete(step.created.id)).then((r) => {
              if (r.ok) flash(`deleted "${step.created.name}": it was not delivered`, 'ok');
              props.onDone();
            });
          }}
          onCancel={() => setStep({ kind: 'reveal', created: step.created, lines: step.lines, failed: true })}
        />
      );
    case 'reveal':
      return (
        <RevealDialog
          {...area}
          title={`${What} ${label(step.created)} created`}
          secret={step.created.apiKey}
          message={[
            ...step.lines,
            step.failed
              ? 'Not delivered everywhere: so it is not lost, here it is. Deliver it again (f, x), keep it (y) or delete it (D).'
              : 'Store it where your application reads it (f, x send it there). keydeck keeps only its name.',
          ]}
          onToFile={delivery.dataDir ? () => setStep({ ...step, kind: 'revealDeliver', mode: 'file' }) : undefined}
          onToCommand={delivery.dataDir ? () => setStep({ ...step, kind: 'revealDeliver', mode: 'command' }) : undefined}
          {...(step.failed && { onDeleteKey: () => setStep({ kind: 'confirmDelete', created: step.created, lines: step.lines }) })}
          onAck={() => {
            flash('the full key is gone from the screen; the list shows its name only', 'ok');
            props.onDone(step.created.id);
          }}
        />
      );
  }
}
