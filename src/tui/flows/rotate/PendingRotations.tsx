/**
 * An interrupted rotation, found in the record at start (issue 26): the Keys pane offers it once,
 * when first shown: where it stopped, and `f` finish (./RotateFlow.tsx with the rotation), `u` undo
 * (asked first: the successor is deleted, the old key kept, reactivated if keydeck had
 * deactivated it), esc later (it stays recorded; the command line names it too).
 */
import { useEffect, useRef, useState } from 'react';
import { Text } from 'ink';
import { undoRotation } from '../../../delivery/rotation.js';
import { stageWords, type Rotation } from '../../../delivery/rotationRecord.js';
import { describeDestination } from '../../../delivery/destinations.js';
import { visible } from '../../../terminal/sanitize.js';
import { ConfirmDialog } from '../../components/ConfirmDialog.js';
import { Dialog } from '../../components/Dialog.js';
import { useKeymap } from '../../contexts/KeymapContext.js';
import { useFlash } from '../../contexts/StatusContext.js';
import { useActionRunner } from '../../hooks/useActionRunner.js';
import { theme } from '../../theme.js';
import { RotateFlow } from './RotateFlow.js';
import { useRotationContext } from './useRotationContext.js';

/**
 * Reads the record once a rotation context exists, and calls `open` once when it holds an
 * unfinished consumption-key rotation of this profile and service and `canShow` is true.
 * @returns `available`: rotation is offered at all (a client and a data dir exist)
 */
export function usePendingRotations(canShow: boolean, open: () => void): { available: boolean } {
  const ctx = useRotationContext();
  const [found, setFound] = useState(false);
  const offered = useRef(false);
  useEffect(() => {
    if (!ctx || offered.current) return;
    void ctx.record.list({ profile: ctx.profile, origin: ctx.origin }).then(
      (all) => setFound(all.some((r) => r.kind === 'consumption')),
      () => undefined,
    );
  }, [ctx]);
  useEffect(() => {
    if (found && canShow && !offered.current) {
      offered.current = true;
      open();
    }
  }, [found, canShow, open]);
  return { available: ctx !== undefined };
}

/** Props of {@link PendingRotations}. */
export interface PendingRotationsProps {
  readonly onDone: (id?: string) => void;
  readonly columns: number;
  readonly rows: number;
}

/** See the module comment. */
export function PendingRotations(props: PendingRotationsProps) {
  const ctx = useRotationContext();
  const flash = useFlash({ owned: false });
  const { busy, run } = useActionRunner();
  const [pending, setPending] = useState<Rotation[] | undefined>(undefined);
  const [mode, setMode] = useState<'show' | 'finish' | 'undo'>('show');
  useEffect(() => {
    if (!ctx) return;
    void ctx.record.list({ profile: ctx.profile, origin: ctx.origin }).then(
      (all) => setPending(all.filter((r) => r.kind === 'consumption')),
      (err: unknown) => {
        flash(String((err as Error).message), 'error');
        props.onDone();
      },
    );
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [ctx]);
  const rotation = pending?.[0];
  useKeymap(
    'pending',
    { 'pending.finish': () => setMode('finish'), 'pending.undo': () => setMode('undo'), 'pending.later': () => props.onDone() },
    { modal: true, active: mode === 'show' && rotation !== undefined && !busy },
  );
  useEffect(() => {
    if (pending !== undefined && pending.length === 0) props.onDone();
  }, [pending, props]);
  const area = { columns: props.columns, rows: props.rows };
  if (!ctx || !rotation) return null;
  const next = () => {
    setMode('show');
    setPending((p) => p?.slice(1));
  };
  if (mode === 'finish') return <RotateFlow {...area} start={{ rotation }} onDone={next} />;
  const held = rotation.delivered.map((i) => rotation.destinations[i]).filter((d) => d !== undefined).map(describeDestination);
  if (mode === 'undo') {
    return (
      <ConfirmDialog
        {...area}
        title={`Undo the rotation of "${visible(rotation.old.name)}"?`}
        message={[
          'Its successor is deleted and the old key kept (reactivated if keydeck had deactivated it).',
          ...(held.length > 0 ? [`${held.join(', ')} hold the successor: whatever reads them stops working.`] : []),
        ]}
        actionLabel="Undo"
        dangerous
        onConfirm={() =>
          void run('undoing the rotation', () => undoRotation(ctx, rotation)).then((r) => {
            if (r.ok) flash(r.value.join('; '), 'ok', 10_000);
            next();
          })
        }
        onCancel={() => setMode('show')}
      />
    );
  }
  return (
    <Dialog title="A rotation was interrupted" {...area}>
      <Text wrap="wrap">{`The rotation of "${visible(rotation.old.name)}" (successor "${visible(rotation.successor.name)}") stopped ${stageWords(rotation)}, on ${rotation.startedAt.slice(0, 16).replace('T', ' ')} UTC.`}</Text>
      {rotation.stage !== 'delivered' && (
        <Text wrap="wrap">Its successor's value is gone (keydeck never stores a key): finishing makes a new one and delivers it; the unfinished one is deleted after.</Text>
      )}
      {(pending?.length ?? 0) > 1 && <Text color={theme.muted}>{`${pending!.length - 1} more after this one.`}</Text>}
      <Text color={theme.accent} wrap="wrap">
        {busy ? `${busy}…` : 'f finish it · u undo it · esc later'}
      </Text>
    </Dialog>
  );
}
