/**
 * Interrupted operations, found in the records at start (src/operations/queries.ts): rotations
 * and key creations of this profile and service. The Keys pane offers them once, when first shown, one after the other: where each
 * stopped, and `f` finish (./RotateFlow.tsx, or ../delivery/CreateKeyFlow.tsx, with the operation:
 * the same machines as `--finish`), `u` undo (asked first: files put back, the new key deleted
 * unless a command took it, an old key kept and reactivated if keydeck had deactivated it), esc
 * later (it stays recorded; the command line names it too).
 */
import { useEffect, useEffectEvent, useRef, useState } from 'react';
import { Text } from 'ink';
import {
  createKeyMachine,
  destinationsWords,
  drive,
  holdersOf,
  rotateKeyMachine,
  statusWords,
  unfinishedCreations,
  unfinishedRotations,
  unfinishedWords,
  type KeyOperation,
  type OperationEvent,
  type Rotation,
} from '../../../operations/index.js';
import { visible } from '../../../terminal/sanitize.js';
import { ConfirmDialog } from '../../components/ConfirmDialog.js';
import { Dialog } from '../../components/Dialog.js';
import { useKeymap } from '../../contexts/KeymapContext.js';
import { useServices } from '../../contexts/ServicesContext.js';
import { useFlash } from '../../contexts/StatusContext.js';
import { useActionRunner } from '../../hooks/useActionRunner.js';
import { theme } from '../../theme.js';
import { CreateKeyFlow } from '../delivery/CreateKeyFlow.js';
import { RotateFlow } from './RotateFlow.js';
import { useKeyOperations, type TuiOperations } from '../useKeyOperations.js';

/** One interrupted operation. */
type Pending = { readonly kind: 'rotation'; readonly rotation: Rotation } | { readonly kind: 'creation'; readonly op: KeyOperation };

/** The interrupted operations of the context's profile and service (rotations first; not those in progress elsewhere). */
async function readPending(ops: TuiOperations): Promise<Pending[]> {
  const scope = { profile: ops.profile, origin: ops.origin };
  // One that another keydeck drives now is in progress there, not interrupted.
  const rotations = await unfinishedRotations(ops.dataDir, scope, { drivers: ops.drivers });
  const creations = await unfinishedCreations(ops.dataDir, scope, { drivers: ops.drivers });
  return [...rotations.map((rotation) => ({ kind: 'rotation' as const, rotation })), ...creations.map((op) => ({ kind: 'creation' as const, op }))];
}

/**
 * Reads the records once a context exists, and calls `open` once when they hold an interrupted
 * operation of this profile and service and `canShow` is true.
 * @returns `available`: rotation is offered at all (a client and a data dir exist)
 */
export function usePendingRotations(canShow: boolean, open: () => void): { available: boolean } {
  const ctx = useKeyOperations();
  const { waitUntil } = useServices();
  const [found, setFound] = useState(false);
  const offered = useRef(false);
  useEffect(() => {
    if (!ctx || offered.current) return;
    // A look at another keydeck's lock opens its file: finished before the app ends, as all its work.
    void waitUntil(readPending(ctx)).then(
      (all) => setFound(all.length > 0),
      () => undefined,
    );
  }, [ctx, waitUntil]);
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
  const ctx = useKeyOperations();
  const flash = useFlash({ owned: false });
  const { busy, run } = useActionRunner();
  const [pending, setPending] = useState<Pending[] | undefined>(undefined);
  const [mode, setMode] = useState<'show' | 'finish' | 'undo'>('show');
  // A failed read is said and closes the dialog: an event, with the flash and onDone of that moment.
  const readFailed = useEffectEvent((err: unknown) => {
    flash(String((err as Error).message), 'error');
    props.onDone();
  });
  // Read once per context (a context that went away: its answer is dropped).
  const { waitUntil } = useServices();
  useEffect(() => {
    if (!ctx) return;
    let live = true;
    void waitUntil(readPending(ctx)).then(
      (all) => live && setPending(all),
      (err: unknown) => live && readFailed(err),
    );
    return () => {
      live = false;
    };
  }, [ctx, waitUntil]);
  const current = pending?.[0];
  useKeymap(
    'pending',
    { 'pending.finish': () => setMode('finish'), 'pending.undo': () => setMode('undo'), 'pending.later': () => props.onDone() },
    { modal: true, active: mode === 'show' && current !== undefined && !busy },
  );
  useEffect(() => {
    if (pending !== undefined && pending.length === 0) props.onDone();
  }, [pending, props]);
  const area = { columns: props.columns, rows: props.rows };
  if (!ctx || !current) return null;
  const next = () => {
    setMode('show');
    setPending((p) => p?.slice(1));
  };
  const held = destinationsWords(holdersOf(current.kind === 'rotation' ? current.rotation : current.op));
  const name = current.kind === 'rotation' ? current.rotation.old.name : current.op.name;
  if (mode === 'finish') {
    if (current.kind === 'rotation') return <RotateFlow {...area} start={{ rotation: current.rotation }} onDone={next} />;
    return <CreateKeyFlow {...area} name={current.op.name} resume={current.op} onDone={next} onZeroBalance={next} />;
  }
  if (mode === 'undo') {
    return (
      <ConfirmDialog
        {...area}
        title={current.kind === 'rotation' ? `Undo the rotation of "${visible(name)}"?` : `Undo the creation of "${visible(name)}"?`}
        message={[
          current.kind === 'rotation' ? 'Its successor is deleted and the old key kept (reactivated if keydeck had deactivated it).' : 'The new key is deleted.',
          ...(held !== '' ? [`${visible(held)} may hold the new key: a file gets back what it held before; a command cannot be undone (the key is then kept).`] : []),
        ]}
        actionLabel="Undo"
        dangerous
        onConfirm={() => {
          const said: OperationEvent[] = [];
          const emit = (e: OperationEvent) => said.push(e);
          void run('undoing', async () => {
            if (current.kind === 'rotation') await drive(rotateKeyMachine, { ...ctx.rotations, emit }, { op: current.rotation }, 'undo', {});
            else await drive(createKeyMachine, { ...ctx.creations, emit }, { op: current.op }, 'undo', {});
          }).then((r) => {
            if (r.ok) flash(visible(said.map(statusWords).join('; ')) || 'undone', 'ok', 10_000);
            next();
          });
        }}
        onCancel={() => setMode('show')}
      />
    );
  }
  return (
    <Dialog title={current.kind === 'rotation' ? 'A rotation was interrupted' : 'A key creation was interrupted'} {...area}>
      <Text wrap="wrap">{visible(unfinishedWords(current.kind === 'rotation' ? { kind: 'rotation', op: current.rotation } : { kind: 'creation', op: current.op }, 'tui'))}</Text>
      {['creating', 'created'].includes(current.kind === 'rotation' ? current.rotation.state : current.op.state) && (
        <Text wrap="wrap">
          Finishing reads its destinations first: a file that holds the new key gives it back; otherwise its value is gone (keydeck never stores a key), so a new one is made and delivered, and the
          unfinished one deleted after.
        </Text>
      )}
      {pending!.length > 1 && <Text color={theme.muted}>{`${pending!.length - 1} more after this one.`}</Text>}
      <Text color={theme.accent} wrap="wrap">
        {busy ? `${busy}…` : 'f finish it · u undo it · esc later'}
      </Text>
    </Dialog>
  );
}
