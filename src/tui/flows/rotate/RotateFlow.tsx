/**
 * `R` on the Keys pane: rotating a credit key by driving the machine of
 * src/operations/rotateKey.ts (the same as `keys rotate`). The successor's name is asked (default
 * the old key's own: it takes the name, and the old key becomes `NAME (rotated DATE)`), then where
 * it goes (../delivery/DestinationChooser.tsx; shown once instead, it is put in place by the user,
 * who says so with `y`); it is created and delivered; then ./HandoverDialog.tsx hands over from
 * the old key. A failed destination reveals the successor (so it is not lost) with `D` to delete
 * it; the old key is untouched; `D` undoes the rotation (the files put back). A subscription key,
 * or one not active, is refused with what works instead. The same flow finishes an interrupted
 * rotation (`start.rotation`): the machine reads the world first. The flow renders the machine's
 * events; it runs none of its steps.
 */
import { useEffect, useEffectEvent, useState } from 'react';
import { Text } from 'ink';
import { keyNameProblem, type ConsumptionKey } from '../../../api/schemas.js';
import type { Destination } from '../../../delivery/destinations.js';
import {
  drive,
  failureLine,
  rotateKeyMachine,
  rotationRefusal,
  sentence,
  statusWords,
  type NewKey,
  type OperationEvent,
  type Rotation,
  type RotateOutcome,
  type RotationPlan,
} from '../../../operations/index.js';
import { visible } from '../../../terminal/sanitize.js';
import { ConfirmDialog } from '../../components/ConfirmDialog.js';
import { Dialog } from '../../components/Dialog.js';
import { NoticeDialog } from '../../components/NoticeDialog.js';
import { PromptDialog } from '../../components/PromptDialog.js';
import { RevealDialog } from '../../components/RevealDialog.js';
import { useAccountData } from '../../contexts/AccountDataContext.js';
import { useFlash } from '../../contexts/StatusContext.js';
import { describeFailure } from '../../errors.js';
import { useActionRunner } from '../../hooks/useActionRunner.js';
import { DestinationChooser } from '../delivery/DestinationChooser.js';
import { useKeyDelivery } from '../delivery/useKeyDelivery.js';
import { eventLines } from '../eventLines.js';
import { useKeyOperations } from '../useKeyOperations.js';
import { HandoverDialog } from './HandoverDialog.js';

/** Props of {@link RotateFlow}. */
export interface RotateFlowProps {
  /** A key to rotate, or an interrupted rotation to finish. */
  readonly start: { readonly key: ConsumptionKey } | { readonly rotation: Rotation };
  /** The flow is over (`id`: the successor, for the pane to select). */
  readonly onDone: (id?: string) => void;
  readonly columns: number;
  readonly rows: number;
}

type Step =
  | { kind: 'refused'; message: string }
  | { kind: 'name' }
  | { kind: 'choose'; name: string; previous?: Destination[] }
  | { kind: 'working'; label: string }
  | { kind: 'reveal'; rotation: Rotation; created: NewKey; lines: string[]; failed: boolean }
  | { kind: 'confirmDelete'; rotation: Rotation; created: NewKey; lines: string[] }
  | { kind: 'handover'; rotation: Rotation; lines: string[] };

/** See the module comment. */
export function RotateFlow(props: RotateFlowProps) {
  const ops = useKeyOperations();
  const { keys } = useAccountData();
  const flash = useFlash({ owned: false });
  const delivery = useKeyDelivery();
  const { run } = useActionRunner();
  const initial = (): Step => {
    if ('rotation' in props.start) return { kind: 'working', label: 'finishing the rotation' };
    const refusal = rotationRefusal(props.start.key);
    return refusal ? { kind: 'refused', message: sentence(failureLine(refusal, 'tui')) } : { kind: 'name' };
  };
  const [step, setStep] = useState<Step>(initial);
  const area = { columns: props.columns, rows: props.rows };
  const fail = (error: unknown) => {
    flash(describeFailure(error), 'error', 10_000);
    props.onDone();
  };

  /** Drives the machine, its events as the dialog's lines; then shows where it stopped. */
  const driveFrom = async (labelWords: string, start: { op: Rotation } | { plan: RotationPlan }, mode: 'run' | 'finish', input: { shown?: boolean }, before: string[] = []) => {
    if (!ops) return props.onDone();
    setStep({ kind: 'working', label: labelWords });
    const lines = [...before];
    const emit = (e: OperationEvent) => lines.push(...eventLines(e));
    const r = await run(labelWords, () => drive(rotateKeyMachine, { ...ops.rotations, emit }, start, mode, input), { quiet: true });
    if (!r.ok) return fail(r.error);
    settle(r.value, lines);
  };

  const settle = (outcome: RotateOutcome, lines: string[]) => {
    switch (outcome.kind) {
      case 'reveal':
      case 'undelivered':
        return setStep({ kind: 'reveal', rotation: outcome.op, created: outcome.key, lines, failed: outcome.kind === 'undelivered' });
      case 'handover':
        return setStep({ kind: 'handover', rotation: outcome.op, lines });
      default:
        return props.onDone();
    }
  };

  const begin = (name: string, destinations: readonly Destination[] | 'show') => {
    if (!('key' in props.start)) return;
    void driveFrom(
      `creating the successor "${name}"`,
      { plan: { old: props.start.key, successorName: name, taken: (keys.data ?? []).map((k) => k.name), destinations: destinations === 'show' ? [] : destinations } },
      'run',
      {},
    );
  };

  // Finishing an interrupted rotation, once, when the flow opens (an event of the opening): the machine reads the world first.
  const finishOnOpen = useEffectEvent(() => {
    if ('rotation' in props.start) void driveFrom('finishing the rotation', { op: props.start.rotation }, 'finish', {});
  });
  useEffect(() => {
    finishOnOpen();
  }, []);

  const old = 'key' in props.start ? props.start.key : undefined;
  switch (step.kind) {
    case 'refused':
      return <NoticeDialog {...area} title="This key cannot be rotated" message={[visible(step.message)]} onClose={() => props.onDone()} />;
    case 'name':
      return (
        <PromptDialog
          {...area}
          title={`Rotate "${visible(old!.name)}"`}
          message={[
            'A successor is created and delivered first; the old key is handled only once it is in place. Keeping the name, the successor takes it and the old key is renamed "(rotated DATE)".',
          ]}
          label="successor's name"
          defaultValue={old!.name}
          validate={keyNameProblem}
          onSubmit={(name) => void delivery.recall(old!.id).then((previous) => setStep({ kind: 'choose', name, ...(previous && { previous }) }))}
          onCancel={() => props.onDone()}
        />
      );
    case 'choose':
      return (
        <DestinationChooser
          {...area}
          title={`Where does the successor "${visible(step.name)}" go?`}
          message={[
            step.previous
              ? 'Where keydeck delivered the old key: the successor replaces it there.'
              : 'keydeck never delivered the old key, so it does not know where it is used: choose where the successor goes, or show it once and put it in place yourself.',
          ]}
          allowShow
          {...(step.previous && { previous: step.previous })}
          check={delivery.check}
          onChoose={(d) => begin(step.name, d)}
          onCancel={() => props.onDone()}
        />
      );
    case 'working':
      return (
        <Dialog title="Rotating a key" {...area}>
          <Text>{`${step.label}…`}</Text>
        </Dialog>
      );
    case 'confirmDelete':
      return (
        <ConfirmDialog
          {...area}
          title={`Delete the successor "${visible(step.created.name)}"?`}
          message={['The rotation is undone: the files that took the successor get back what they held, the successor is deleted (unless a command took it), the old key stays as it is.']}
          actionLabel="Delete"
          dangerous
          onConfirm={() => {
            const said: OperationEvent[] = [];
            void run('undoing the rotation', () => drive(rotateKeyMachine, { ...ops!.rotations, emit: (e) => said.push(e) }, { op: step.rotation }, 'undo', {})).then((r) => {
              if (r.ok) flash(said.map(statusWords).join('; '), 'ok', 10_000);
              props.onDone();
            });
          }}
          onCancel={() => setStep({ kind: 'reveal', rotation: step.rotation, created: step.created, lines: step.lines, failed: true })}
        />
      );
    case 'reveal':
      return (
        <RevealDialog
          {...area}
          title={`Successor "${visible(step.created.name)}" created`}
          secret={step.created.apiKey}
          message={[
            ...step.lines,
            step.failed
              ? `Not delivered everywhere, so "${visible(step.rotation.old.name)}" is untouched. So that it is not lost, here it is: y keeps it (the rotation stays recorded), D deletes it.`
              : `Put it where "${visible(step.rotation.old.name)}" is used now, then press y: the old key is handled next.`,
          ]}
          {...(step.failed && { onDeleteKey: () => setStep({ kind: 'confirmDelete', rotation: step.rotation, created: step.created, lines: step.lines }) })}
          onAck={() => {
            if (step.failed) {
              flash(`the rotation of "${step.rotation.old.name}" stays recorded: finish or undo it at the next start`, 'warning', 10_000);
              return props.onDone(step.created.id);
            }
            void driveFrom('the successor is in place', { op: step.rotation }, 'run', { shown: true });
          }}
        />
      );
    case 'handover':
      return <HandoverDialog {...area} ctx={ops!.rotations} rotation={step.rotation} lines={step.lines} onDone={() => props.onDone(step.rotation.successor.id)} />;
  }
}
