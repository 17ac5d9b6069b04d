/**
 * Creating a credit key from the Keys pane, or minting the key of a subscription or pool pledge
 * (`subscription`: `POST /api/keys/subscription`), by driving the machine of
 * src/operations/createKey.ts (the same as `keys create`; recorded in the data dir, so a kill half
 * way is offered at the next start, ../rotate/PendingRotations.tsx, which opens this flow with
 * `resume`). Where it goes is asked first (./DestinationChooser.tsx). With a destination chosen,
 * the key is created and delivered and never shown: a notice lists the outcomes. Shown instead,
 * it stays in the one-time reveal until acknowledged (then the machine ends the operation), and
 * `f` / `x` there deliver it too. When a destination fails after creation the key is revealed so
 * it is not lost, with the failures, `y` keeps it (the creation stays recorded for its finish)
 * and `D` undoes it (the files put back, the key deleted): never an orphan without a word. The
 * flow renders the machine's events; it runs none of its steps.
 */
import { useEffect, useEffectEvent, useState } from 'react';
import { Text } from 'ink';
import type { Destination } from '../../../delivery/destinations.js';
import { createKeyMachine, drive, statusWords, type CreateOutcome, type CreatePlan, type KeyOperation, type NewKey, type OperationEvent } from '../../../operations/index.js';
import { visible } from '../../../terminal/sanitize.js';
import { ConfirmDialog } from '../../components/ConfirmDialog.js';
import { Dialog } from '../../components/Dialog.js';
import { NoticeDialog } from '../../components/NoticeDialog.js';
import { RevealDialog } from '../../components/RevealDialog.js';
import { useFlash } from '../../contexts/StatusContext.js';
import { describeFailure, errorCode } from '../../errors.js';
import { useActionRunner } from '../../hooks/useActionRunner.js';
import { eventLines } from '../eventLines.js';
import { useKeyOperations } from '../useKeyOperations.js';
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
  | { kind: 'reveal'; created: NewKey; op: KeyOperation; lines: string[]; failed: boolean }
  | { kind: 'revealDeliver'; created: NewKey; op: KeyOperation; lines: string[]; failed: boolean; mode: 'file' | 'command' }
  | { kind: 'confirmDelete'; created: NewKey; op: KeyOperation; lines: string[] }
  | { kind: 'delivered'; created: NewKey; lines: string[] };

/** See the module comment. */
export function CreateKeyFlow(props: CreateKeyFlowProps) {
  const ops = useKeyOperations();
  const flash = useFlash({ owned: false });
  const delivery = useKeyDelivery();
  const { run } = useActionRunner();
  const [step, setStep] = useState<Step>(props.resume ? { kind: 'working', label: 'finishing' } : { kind: 'choose' });
  const area = { columns: props.columns, rows: props.rows };
  const label = (c: NewKey) => `"${visible(c.name)}"`;
  const sub = props.subscription ?? (props.resume?.subscriptionId !== undefined ? { id: props.resume.subscriptionId, label: props.resume.subscriptionId } : undefined);
  const what = sub ? 'subscription key' : 'credit key';
  const What = sub ? 'Subscription key' : 'Credit key';

  /** A failure: the zero-balance notice, or the failure's words. */
  const failed = (error: unknown) => {
    if (!sub && errorCode(error) === 'insufficient_balance') return props.onZeroBalance();
    flash(describeFailure(error), 'error', 10_000);
    return props.onDone();
  };

  /** Drives the machine, its events as the dialog's lines (a new key said on the status line). */
  const driveWith = async (labelWords: string, start: { op: KeyOperation } | { plan: CreatePlan }, mode: 'run' | 'finish', lines: string[]) => {
    const emit = (e: OperationEvent) => {
      if (e.type === 'minted') flash(statusWords(e), 'ok');
      else lines.push(...eventLines(e));
    };
    return run(labelWords, () => drive(createKeyMachine, { ...ops!.creations, emit }, start, mode, {}), { quiet: true });
  };

  /** What the flow shows once the machine stopped. */
  const settle = (outcome: CreateOutcome, lines: string[]) => {
    switch (outcome.kind) {
      case 'reveal':
        return setStep({ kind: 'reveal', created: outcome.key, op: outcome.op, lines, failed: false });
      case 'undelivered':
        return setStep({ kind: 'reveal', created: outcome.key, op: outcome.op, lines, failed: true });
      case 'done':
        if (outcome.key && outcome.outcomes.length > 0) return setStep({ kind: 'delivered', created: outcome.key, lines });
        return setStep({ kind: 'notice', lines });
      case 'already_done':
        return setStep({
          kind: 'notice',
          lines: [...lines, `The key "${visible(props.name)}" (id ${visible(outcome.id)}) was created and delivered to these destinations already: nothing was created.`],
        });
      case 'undone':
        return props.onDone();
    }
  };

  const create = async (destinations: readonly Destination[] | 'show') => {
    if (!ops) return props.onDone();
    setStep({ kind: 'working', label: `creating the ${what} "${props.name}"` });
    const lines: string[] = [];
    const plan: CreatePlan = { kind: sub ? 'pledge' : 'create', name: props.name, subscriptionId: sub?.id, destinations: destinations === 'show' ? [] : destinations };
    const r = await driveWith(`creating the ${what} "${props.name}"`, { plan }, 'run', lines);
    if (!r.ok) return failed(r.error);
    settle(r.value, lines);
  };

  /** Finishing an interrupted creation: the machine reads the world first. */
  const resume = async (op: KeyOperation) => {
    const lines: string[] = [];
    const r = await driveWith('finishing the key creation', { op }, 'finish', lines);
    if (!r.ok) return failed(r.error);
    settle(r.value, lines);
  };

  // An interrupted creation is finished once, when the flow opens (an event of the opening, with the props as they are then).
  const finishOnOpen = useEffectEvent(() => {
    if (props.resume && ops) void resume(props.resume);
  });
  useEffect(() => {
    finishOnOpen();
  }, []);

  /** The reveal acknowledged: a shown key's operation ends; a failed one stays recorded. */
  const acknowledged = (s: Extract<Step, { kind: 'reveal' }>) => {
    if (s.failed) {
      flash(`the creation of "${s.created.name}" stays recorded: finish or undo it at the next start`, 'warning', 10_000);
      return props.onDone(s.created.id);
    }
    flash('the full key is gone from the screen; the list shows its name only', 'ok');
    // The flow closes now and the drive ends the operation after it: the operation stays locked
    // until the drive has settled (the flow's let-go waits for it), and the app's end waits for it.
    if (ops) {
      void drive(createKeyMachine, ops.creations, { op: s.op }, 'run', { shown: true })
        // The key is with the user: a failure to clear the record leaves it `showing`, named at the next start.
        .catch(() => undefined);
    }
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
      const back = (lines: string[]) => setStep({ kind: 'reveal', created: step.created, op: step.op, lines, failed: step.failed });
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
            const said: OperationEvent[] = [];
            void run(`deleting "${step.created.name}"`, () => drive(createKeyMachine, { ...ops!.creations, emit: (e) => said.push(e) }, { op: step.op }, 'undo', {})).then((r) => {
              if (r.ok) flash(said.map(statusWords).join('; '), 'ok', 10_000);
              props.onDone();
            });
          }}
          onCancel={() => setStep({ kind: 'reveal', created: step.created, op: step.op, lines: step.lines, failed: true })}
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
          onToFile={() => setStep({ ...step, kind: 'revealDeliver', mode: 'file' })}
          onToCommand={() => setStep({ ...step, kind: 'revealDeliver', mode: 'command' })}
          {...(step.failed && step.created.id !== undefined && { onDeleteKey: () => setStep({ kind: 'confirmDelete', created: step.created, op: step.op, lines: step.lines }) })}
          onAck={() => acknowledged(step)}
        />
      );
  }
}
