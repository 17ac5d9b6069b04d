/**
 * Creating a credit key from the Keys pane (issue 26), or minting the key of a subscription or
 * pool pledge (`subscription`, issue 23: `POST /api/keys/subscription`), by the machine of
 * src/operations/createKey.ts (the same as `keys create`; recorded in the data dir, so a kill half
 * way is offered at the next start, ../rotate/PendingRotations.tsx, which opens this flow with
 * `resume`). Where it goes is asked first (./DestinationChooser.tsx). With a destination chosen,
 * the key is created and delivered and never shown: a notice lists the outcomes. Shown instead,
 * it stays in the one-time reveal until acknowledged, and `f` / `x` there deliver it too. When a
 * destination fails after creation the key is revealed so it is not lost, with the failures, `y`
 * keeps it (the creation stays recorded for its finish) and `D` undoes it (the files put back,
 * the key deleted): never an orphan without a word. Without a data dir the key is only shown.
 */
import { useEffect, useRef, useState } from 'react';
import { Text } from 'ink';
import type { Destination } from '../../../delivery/destinations.js';
import { beginCreate, createStep, deliverStep, endCreate, resumeCreate, undoCreate, type NewKey } from '../../../operations/createKey.js';
import type { KeyOperation } from '../../../operations/record.js';
import { visible } from '../../../terminal/sanitize.js';
import { ConfirmDialog } from '../../components/ConfirmDialog.js';
import { Dialog } from '../../components/Dialog.js';
import { NoticeDialog } from '../../components/NoticeDialog.js';
import { RevealDialog } from '../../components/RevealDialog.js';
import { useSession } from '../../contexts/SessionContext.js';
import { useFlash } from '../../contexts/StatusContext.js';
import { describeFailure, errorCode } from '../../errors.js';
import { useActionRunner } from '../../hooks/useActionRunner.js';
import { useRotationContext } from '../rotate/useRotationContext.js';
import { DestinationChooser } from './DestinationChooser.js';
import { outcomeLines, useKeyDelivery } from './useKeyDelivery.js';

/** Props of {@link CreateKeyFlow}. */
export interface CreateKeyFlowProps {
  /** The new key's name (already checked). */
  readonly name: string;
  /** Mint the key of this subscription or pool pledge instead of a credit key (`label` names it for people). */
  readonly subscription?: { readonly id: string; readonly label: string };
  /** Finish this interrupted creation instead of starting one. */
  readonly resume?: KeyOperation;
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
  | { kind: 'notice'; lines: string[] }
  | { kind: 'reveal'; created: NewKey; op?: KeyOperation; lines: string[]; failed: boolean }
  | { kind: 'revealDeliver'; created: NewKey; op?: KeyOperation; lines: string[]; failed: boolean; mode: 'file' | 'command' }
  | { kind: 'confirmDelete'; created: NewKey; op?: KeyOperation; lines: string[] }
  | { kind: 'delivered'; created: NewKey; lines: string[] };

/** See the module comment. */
export function CreateKeyFlow(props: CreateKeyFlowProps) {
  const { client } = useSession();
  const ctx = useRotationContext()?.creations;
  const flash = useFlash({ owned: false });
  const delivery = useKeyDelivery();
  const { run } = useActionRunner();
  const [step, setStep] = useState<Step>(delivery.dataDir && !props.resume ? { kind: 'choose' } : { kind: 'working', label: props.resume ? 'finishing' : 'creating' });
  // The operation this flow drives: let go when the flow closes (unfinished, it is interrupted then).
  const driven = useRef<string | undefined>(props.resume?.id);
  useEffect(() => () => {
    if (driven.current !== undefined) ctx?.drivers?.release(driven.current);
  }, [ctx]);
  const area = { columns: props.columns, rows: props.rows };
  const label = (c: NewKey) => `"${visible(c.name)}"`;
  const sub = props.subscription ?? (props.resume?.subscriptionId !== undefined ? { id: props.resume.subscriptionId, label: props.resume.subscriptionId } : undefined);
  const what = sub ? 'subscription key' : 'credit key';
  const What = sub ? 'Subscription key' : 'Credit key';

  /** A failure of the create: the zero-balance notice, or the service's words. */
  const failed = (error: unknown) => {
    if (!sub && errorCode(error) === 'insufficient_balance') return props.onZeroBalance();
    flash(describeFailure(error), 'error', 10_000);
    return props.onDone();
  };

  /** Delivers (or reveals) a key whose operation is at `created` / `showing`. */
  const deliver = async (op: KeyOperation, created: NewKey, before: string[]) => {
    if (op.destinations.length === 0) return setStep({ kind: 'reveal', created, op, lines: before, failed: false });
    setStep({ kind: 'working', label: 'delivering the key' });
    const r = await run('delivering the key', () => deliverStep(ctx!, op, created), { quiet: true });
    if (!r.ok) return failed(r.error);
    const lines = [...before, ...outcomeLines(r.value.outcomes)];
    if (r.value.op === undefined) setStep({ kind: 'delivered', created, lines });
    else setStep({ kind: 'reveal', created, op: r.value.op, lines, failed: true });
  };

  /** Creates the key of an operation at `creating`, then delivers or reveals it. */
  const createFrom = async (op: KeyOperation, before: string[]) => {
    setStep({ kind: 'working', label: `creating the ${what} "${op.name}"` });
    const r = await run(`creating the ${what} "${op.name}"`, () => createStep(ctx!, op), { quiet: true });
    if (!r.ok) return failed(r.error);
    flash(`created the ${what} "${r.value.key.name}"`, 'ok');
    await deliver(r.value.op, r.value.key, [...before, ...r.value.warnings.map((w) => `! ${visible(w)}`)]);
  };

  const create = async (destinations: readonly Destination[] | 'show') => {
    if (!client) return props.onDone();
    if (!ctx) {
      // No data dir: no record, no delivery; the key is only shown.
      setStep({ kind: 'working', label: `creating the ${what} "${props.name}"` });
      const r = await run(
        `creating the ${what} "${props.name}"`,
        async (): Promise<NewKey> => {
          const made = sub ? await client.keys.createSubscription({ name: props.name, subscriptionId: sub.id }) : await client.keys.createCredit({ name: props.name });
          const { apiKey, ...answer } = made;
          return { id: made.id, name: typeof made.name === 'string' ? made.name : props.name, apiKey, answer };
        },
        { quiet: true },
      );
      if (!r.ok) return failed(r.error);
      return setStep({ kind: 'reveal', created: r.value, lines: [], failed: false });
    }
    let op: KeyOperation;
    try {
      op = await beginCreate(ctx, { kind: sub ? 'pledge' : 'create', name: props.name, ...(sub && { subscriptionId: sub.id }), destinations: destinations === 'show' ? [] : destinations });
    } catch (err) {
      return failed(err);
    }
    driven.current = op.id;
    await createFrom(op, []);
  };

  /** Finishing an interrupted creation: the world read first (src/operations/createKey.ts). */
  const resume = async (op: KeyOperation) => {
    const r = await run('finishing the key creation', () => resumeCreate(ctx!, op), { quiet: true });
    if (!r.ok) return failed(r.error);
    const lines = r.value.said.map((s) => visible(`${s[0]!.toUpperCase()}${s.slice(1)}.`));
    if (r.value.ended) return setStep({ kind: 'notice', lines });
    if (r.value.key) return deliver(r.value.op, r.value.key, lines);
    await createFrom(r.value.op, lines);
  };

  useEffect(() => {
    if (props.resume && ctx) void resume(props.resume);
    // Without a data dir nothing but the reveal is offered: create at once.
    else if (!delivery.dataDir) void create('show');
    // Once, when the flow opens.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, []);

  /** The reveal acknowledged: a shown key's operation ends; a failed one stays recorded. */
  const acknowledged = (s: Extract<Step, { kind: 'reveal' }>) => {
    if (s.failed) {
      flash(`the creation of "${s.created.name}" stays recorded: finish or undo it at the next start (or keydeck keys create --finish)`, 'warning', 10_000);
      return props.onDone(s.created.id);
    }
    flash('the full key is gone from the screen; the list shows its name only', 'ok');
    if (s.op && ctx) void endCreate(ctx, s.op).catch(() => undefined);
    props.onDone(s.created.id);
  };

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
    case 'notice':
      return <NoticeDialog {...area} title="An interrupted key creation" message={step.lines} onClose={() => props.onDone()} />;
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
      const back = (lines: string[]) => setStep({ kind: 'reveal', created: step.created, ...(step.op && { op: step.op }), lines, failed: step.failed });
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
              if (step.created.id !== undefined) await delivery.remember(step.created.id, outcomes);
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
          message={['It was not delivered everywhere. The files that took it get back what they held; the key is deleted (unless a command took it).']}
          actionLabel="Delete"
          dangerous
          onConfirm={() => {
            const { op, created } = step;
            const undo = async (): Promise<string[]> => {
              if (op && ctx) return undoCreate(ctx, op);
              await client!.keys.delete(created.id!);
              return [`deleted "${created.name}": it was not delivered`];
            };
            void run(`deleting "${created.name}"`, undo).then((r) => {
              if (r.ok) flash(r.value.join('; '), 'ok', 10_000);
              props.onDone();
            });
          }}
          onCancel={() => setStep({ kind: 'reveal', created: step.created, ...(step.op && { op: step.op }), lines: step.lines, failed: true })}
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
          {...(step.failed && step.created.id !== undefined && { onDeleteKey: () => setStep({ kind: 'confirmDelete', created: step.created, ...(step.op && { op: step.op }), lines: step.lines }) })}
          onAck={() => acknowledged(step)}
        />
      );
  }
}
