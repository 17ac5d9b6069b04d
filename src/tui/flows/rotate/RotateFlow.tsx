/**
 * `R` on the Keys pane (issue 26): rotating a credit key, by the steps of
 * src/delivery/rotation.ts. The successor's name is asked (default `NAME-r2`), then where it goes
 * (./../delivery/DestinationChooser.tsx; shown once instead, it is put in place by the user, who
 * says so with `y`); it is created and delivered; then ./HandoverDialog.tsx hands over from the old
 * key. A failed destination reveals the successor (so it is not lost) with `D` to delete it; the
 * old key is untouched. A subscription key is refused with what works instead. The same flow
 * finishes an interrupted rotation (`start.rotation`): a new successor to the recorded
 * destinations when the first never reached them all, else straight to the handover.
 */
import { useEffect, useState } from 'react';
import { Text } from 'ink';
import { keyNameProblem, type ConsumptionKey, type CreatedConsumptionKey } from '../../../api/schemas.js';
import type { Destination } from '../../../delivery/destinations.js';
import { beginRotation, createSuccessor, deliverSuccessor, markDelivered, restartRotation, subscriptionRefusal, successorName } from '../../../delivery/rotation.js';
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
  | { kind: 'reveal'; rotation: Rotation; created: CreatedConsumptionKey; lines: string[]; failed: boolean }
  | { kind: 'confirmDelete'; rotation: Rotation; created: CreatedConsumptionKey; lines: string[] }
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
    return { kind: 'name' };
  };
  const [step, setStep] = useState<Step>(initial);
  const area = { columns: props.columns, rows: props.rows };
  const fail = (error: unknown) => {
    flash(error instanceof Error ? error.message : String(error), 'error', 10_000);
    props.onDone();
  };

  /** Steps 2–3 for a rotation at `creating`. */
  const createAndDeliver = async (rotation: Rotation) => {
    if (!ctx) return props.onDone();
    setStep({ kind: 'working', label: `creating the successor "${rotation.successor.name}"` });
    const made = await run('creating the successor', () => createSuccessor(ctx, rotation), { quiet: true });
    if (!made.ok) return fail(made.error);
    const { created } = made.value;
    if (made.value.rotation.destinations.length === 0) {
      return setStep({ kind: 'reveal', rotation: made.value.rotation, created, lines: [], failed: false });
    }
    setStep({ kind: 'working', label: 'delivering the successor' });
    const { rotation: next, outcomes } = await deliverSuccessor(ctx, made.value.rotation, created.apiKey);
    const lines = outcomeLines(outcomes);
    if (next.stage === 'delivered') setStep({ kind: 'handover', rotation: next, lines });
    else setStep({ kind: 'reveal', rotation: next, created, lines, failed: true });
  };

  const begin = async (name: string, destinations: readonly Destination[] | 'show') => {
    if (!ctx || !('key' in props.start)) return;
    try {
      const rotation = await beginRotation(ctx, {
        profile: ctx.profile,
        origin: ctx.origin,
        old: props.start.key,
        successorName: name,
        destinations: destinations === 'show' ? [] : destinations,
      });
      await createAndDeliver(rotation);
    } catch (err) {
      fail(err);
    }
  };

  useEffect(() => {
    if (!ctx || !('rotation' in props.start)) return;
    const rotation = props.start.rotation;
    if (rotation.stage === 'delivered') setStep({ kind: 'handover', rotation, lines: [] });
    else void restartRotation(ctx, rotation).then(createAndDeliver, fail);
    // Once, when the flow opens to finish a rotation.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, []);

  const old = 'key' in props.start ? props.start.key : undefined;
  switch (step.kind) {
    case 'refused':
      return <NoticeDialog {...area} title="Subscription keys cannot be rotated" message={[visible(step.message)]} onClose={() => props.onDone()} />;
    case 'name':
      return (
        <PromptDialog
          {...area}
          title={`Rotate "${visible(old!.name)}"`}
          message={['A successor is created and delivered first; the old key is handled only once it is in place.']}
          label="successor's name"
          defaultValue={successorName(old!.name, (keys.data ?? []).map((k) => k.name))}
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
          message={['Where the old key is used now: keydeck replaces it there.']}
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
          message={['The rotation is given up; the old key stays as it is. Whatever already holds the successor stops working.']}
          actionLabel="Delete"
          dangerous
          onConfirm={() =>
            void run('deleting the successor', async () => {
              await ctx!.client.keys.delete(step.created.id);
              await ctx!.record.remove(step.rotation.id);
            }).then((r) => {
              if (r.ok) flash(`deleted the successor "${step.created.name}"; "${step.rotation.old.name}" is as it was`, 'ok');
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
