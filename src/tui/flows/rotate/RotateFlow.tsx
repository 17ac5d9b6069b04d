/**
 * `R` on the Keys pane (issue 26): rotating a credit key, by the machine of
 * src/operations/rotateKey.ts (the same as `keys rotate`). The successor's name is asked (default
 * the old key's own: it takes the name, and the old key becomes `NAME (rotated DATE)`), then where it goes
 * (./../delivery/DestinationChooser.tsx; shown once instead, it is put in place by the user, who
 * says so with `y`); it is created and delivered; then ./HandoverDialog.tsx hands over from the old
 * key. A failed destination reveals the successor (so it is not lost) with `D` to delete it; the
 * old key is untouched; `D` undoes the rotation (the files put back). A subscription key, or one
 * not active, is refused with what works instead. The same flow finishes an interrupted rotation
 * (`start.rotation`, src/operations/rotateRecovery.ts): the successor read back from a file that
 * holds it, or a new one, to the recorded destinations; else straight to the handover.
 */
import { useEffect, useRef, useState } from 'react';
import { Text } from 'ink';
import { keyNameProblem, type ConsumptionKey } from '../../../api/schemas.js';
import { keyStatus } from '../../../api/keyStatus.js';
import type { Destination } from '../../../delivery/destinations.js';
import { subscriptionRefusal } from '../../../delivery/rotation.js';
import { beginRotation, createSuccessor, deliverSuccessor, markDelivered, type Successor } from '../../../operations/rotateKey.js';
import { resumeRotation, undoRotation } from '../../../operations/rotateRecovery.js';
import type { Rotation } from '../../../delivery/rotationRecord.js';
import { visible } from '../../../terminal/sanitize.js';
import { ConfirmDialog } from '../../components/ConfirmDialog.js';
import { Dialog } from '../../components/Dialog.js';
import { NoticeDialog } from '../../components/NoticeDialog.js';
import { PromptDialog } from '../../components/PromptDialog.js';
import { RevealDialog } from '../../components/RevealDialog.js';
import { useAccountData } from '../../contexts/AccountDataContext.js';
import { useFlash } from '../../contexts/StatusContext.js';
import { useActionRunner } from '../../hooks/useActionRunner.js';
import { DestinationChooser } from '../delivery/DestinationChooser.js';
import { outcomeLines, useKeyDelivery } from '../delivery/useKeyDelivery.js';
import { HandoverDialog } from './HandoverDialog.js';
import { useRotationContext } from './useRotationContext.js';

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
  | { kind: 'reveal'; rotation: Rotation; created: Successor; lines: string[]; failed: boolean }
  | { kind: 'confirmDelete'; rotation: Rotation; created: Successor; lines: string[] }
  | { kind: 'handover'; rotation: Rotation; lines: string[] };

/** See the module comment. */
export function RotateFlow(props: RotateFlowProps) {
  const ctx = useRotationContext();
  const { keys } = useAccountData();
  const flash = useFlash({ owned: false });
  const delivery = useKeyDelivery();
  const { run } = useActionRunner();
  const initial = (): Step => {
    if ('rotation' in props.start) return { kind: 'working', label: 'finishing the rotation' };
    if (props.start.key.keyType === 'subscription') return { kind: 'refused', message: `${subscriptionRefusal(props.start.key, 'tui')}.` };
    if (keyStatus(props.start.key) !== 'active') return { kind: 'refused', message: `"${props.start.key.name}" is not active: a rotation replaces a key in use, and nothing uses this one. Rotate the active key of its lineage.` };
    return { kind: 'name' };
  };
  const [step, setStep] = useState<Step>(initial);
  // The rotation this flow drives: let go when the flow closes (unfinished, it is interrupted then).
  const driven = useRef<string | undefined>('rotation' in props.start ? props.start.rotation.id : undefined);
  useEffect(() => () => {
    if (driven.current !== undefined) ctx?.drivers.release(driven.current);
  }, [ctx]);
  const area = { columns: props.columns, rows: props.rows };
  const fail = (error: unknown) => {
    flash(error instanceof Error ? error.message : String(error), 'error', 10_000);
    props.onDone();
  };

  /** Delivers `created` (a rotation at `created`), or reveals it without destinations. */
  const deliver = async (rotation: Rotation, created: Successor, before: string[] = []) => {
    if (!ctx) return props.onDone();
    if (rotation.destinations.length === 0) return setStep({ kind: 'reveal', rotation, created, lines: before, failed: false });
    setStep({ kind: 'working', label: 'delivering the successor' });
    const { rotation: next, outcomes } = await deliverSuccessor(ctx, rotation, created.apiKey);
    const lines = [...before, ...outcomeLines(outcomes)];
    if (next.stage === 'delivered') setStep({ kind: 'handover', rotation: next, lines });
    else setStep({ kind: 'reveal', rotation: next, created, lines, failed: true });
  };

  /** Steps from `creating`: create, then deliver. */
  const createAndDeliver = async (rotation: Rotation, before: string[] = []) => {
    if (!ctx) return props.onDone();
    setStep({ kind: 'working', label: `creating the successor "${rotation.successor.name}"` });
    const made = await run('creating the successor', () => createSuccessor(ctx, rotation), { quiet: true });
    if (!made.ok) return fail(made.error);
    await deliver(made.value.rotation, made.value.created, [...before, ...made.value.warnings.map((w) => `! ${visible(w)}`)]);
  };

  const begin = async (name: string, destinations: readonly Destination[] | 'show') => {
    if (!ctx || !('key' in props.start)) return;
    try {
      const rotation = await beginRotation(ctx, {
        profile: ctx.profile,
        origin: ctx.origin,
        old: props.start.key,
        successorName: name,
        taken: (keys.data ?? []).map((k) => k.name),
        destinations: destinations === 'show' ? [] : destinations,
      });
      driven.current = rotation.id;
      await createAndDeliver(rotation);
    } catch (err) {
      fail(err);
    }
  };

  useEffect(() => {
    if (!ctx || !('rotation' in props.start)) return;
    // Finishing an interrupted rotation: the world read first (src/operations/rotateRecovery.ts).
    void resumeRotation(ctx, props.start.rotation).then(async ({ rotation, key, said }) => {
      const lines = said.map((s) => visible(`${s[0]!.toUpperCase()}${s.slice(1)}.`));
      if (rotation.stage === 'delivered') return setStep({ kind: 'handover', rotation, lines });
      if (key) return deliver(rotation, key, lines);
      return createAndDeliver(rotation, lines);
    }, fail);
    // Once, when the flow opens to finish a rotation.
    // eslint-disable-next-line react-hooks/exhaustive-deps
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
          message={['A successor is created and delivered first; the old key is handled only once it is in place. Keeping the name, the successor takes it and the old key is renamed "(rotated DATE)".']}
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
          onChoose={(d) => void begin(step.name, d)}
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
          onConfirm={() =>
            void run('undoing the rotation', () => undoRotation(ctx!, step.rotation)).then((r) => {
              if (r.ok) flash(r.value.join('; '), 'ok', 10_000);
              props.onDone();
            })
          }
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
              ? `Not delivered everywhere, so "${step.rotation.old.name}" is untouched. So that it is not lost, here it is: y keeps it (the rotation stays recorded), D deletes it.`
              : `Put it where "${step.rotation.old.name}" is used now, then press y: the old key is handled next.`,
          ]}
          {...(step.failed && { onDeleteKey: () => setStep({ kind: 'confirmDelete', rotation: step.rotation, created: step.created, lines: step.lines }) })}
          onAck={() => {
            if (step.failed) {
              flash(`the rotation of "${step.rotation.old.name}" stays recorded: finish or undo it at the next start`, 'warning', 10_000);
              return props.onDone(step.created.id);
            }
            void markDelivered(ctx!, step.rotation).then((rotation) => setStep({ kind: 'handover', rotation, lines: [] }), fail);
          }}
        />
      );
    case 'handover':
      return <HandoverDialog {...area} ctx={ctx!} rotation={step.rotation} lines={step.lines} onDone={() => props.onDone(step.rotation.successor.id)} />;
  }
}
