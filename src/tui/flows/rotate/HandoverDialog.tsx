/**
 * The handover of a rotation in the TUI: the successor is in place; the old key's last use
 * (`lastUsedAt`, read every {@link IDLE_POLL_MS}) is shown live, and the user decides: `d`
 * deactivate it (asked again while it is still in use after the handover), `w` deactivate it once
 * it has been idle for a minute, `x` delete it (asked first), `k` keep it, esc later (the
 * rotation stays recorded and is offered again at the next start). The decision goes to the
 * machine (src/operations/rotateKey.ts), which handles the old key and ends the rotation.
 */
import { useEffect, useEffectEvent, useState } from 'react';
import { Text } from 'ink';
import { DEFAULT_IDLE_FOR_MS, describeLastUse, IDLE_POLL_MS, isIdle, lastUseOf, lastUseSentence, shortDuration, usedSince, type LastUse } from '../../../delivery/lastUse.js';
import { oldKeySpend } from '../../../delivery/oldKeySpend.js';
import { serviceNowOf } from '../../../delivery/rotation.js';
import { drive, oldName, rotateKeyMachine, sentence, statusWords, type OldKeyAction, type OperationEvent, type Rotation, type RotationContext } from '../../../operations/index.js';
import { visible } from '../../../terminal/sanitize.js';
import { ConfirmDialog } from '../../components/ConfirmDialog.js';
import { Dialog } from '../../components/Dialog.js';
import { useKeymap } from '../../contexts/KeymapContext.js';
import { useFlash } from '../../contexts/StatusContext.js';
import { useUsage } from '../../contexts/UsageContext.js';
import { useTimedTextCheck } from '../../hooks/useAge.js';
import { ageChangeAt } from '../../../billing/usageWords.js';
import { useActionRunner } from '../../hooks/useActionRunner.js';
import { theme } from '../../theme.js';

/** Props of {@link HandoverDialog}. */
export interface HandoverDialogProps {
  readonly ctx: RotationContext;
  /** A rotation at `delivered`. */
  readonly rotation: Rotation;
  /** Lines about the delivery, shown first. */
  readonly lines?: readonly string[];
  /** Done (the old key handled) or left for later. */
  readonly onDone: () => void;
  readonly columns: number;
  readonly rows: number;
}

/** See the module comment. */
export function HandoverDialog(props: HandoverDialogProps) {
  const { ctx, rotation } = props;
  const flash = useFlash({ owned: false });
  const { busy, run } = useActionRunner();
  const [use, setUse] = useState<LastUse | undefined>(undefined);
  /** The old key is no longer listed (deleted elsewhere). */
  const [gone, setGone] = useState(false);
  const [waiting, setWaiting] = useState(false);
  const [confirm, setConfirm] = useState<OldKeyAction | undefined>(undefined);
  const deliveredAt = rotation.deliveredAt ? Date.parse(rotation.deliveredAt) : Date.now();
  // The spend figures as the app last read them (src/delivery/oldKeySpend.ts): no read is spent for the handover.
  const usage = useUsage();
  const figuresAt = usage.available && usage.snapshot.report ? usage.snapshot.at : undefined;
  const spendAt = (t: number) =>
    figuresAt === undefined ? undefined : oldKeySpend({ periods: usage.byId.get(rotation.old.id)?.periods, samples: usage.samplesOf(rotation.old.id), at: figuresAt, now: t, deliveredAt });
  const now = serviceNowOf(ctx.client);
  const spend = spendAt(now);
  // The figures' age is said ("usage figures of 14 min ago"): drawn again when it changes (on the
  // rotation's client's clock, which its reads of the old key correct every couple of seconds),
  // the words drawn being those of `now`.
  useTimedTextCheck(
    (t) => spendAt(t)?.line,
    (t) => (figuresAt === undefined ? undefined : ageChangeAt(figuresAt, t)),
    () => serviceNowOf(ctx.client),
    now,
  );
  const inUse = use !== undefined && (use.known ? usedSince(use, deliveredAt) && !isIdle(use, DEFAULT_IDLE_FOR_MS) : spend?.spending === true);

  const act = async (action: OldKeyAction) => {
    setConfirm(undefined);
    setWaiting(false);
    const said: OperationEvent[] = [];
    const r = await run(`${action === 'keep' ? 'keeping' : action === 'delete' ? 'deleting' : 'deactivating'} the old key`, () =>
      drive(rotateKeyMachine, { ...ctx, emit: (e) => said.push(e) }, { op: rotation }, 'finish', { handOver: action }),
    );
    if (r.ok) {
      // The old key was no longer listed (deleted elsewhere): the rotation is done all the same.
      flash(said.map((e) => statusWords(e.type === 'old_handled' ? { ...e, gone: e.gone || gone } : e)).join('; '), 'ok', 10_000);
      props.onDone();
    }
  };

  useEffect(() => {
    let stopped = false;
    const read = async () => {
      try {
        const key = (await ctx.client.keys.list()).find((k) => k.id === rotation.old.id);
        if (stopped) return;
        setGone(key === undefined);
        setUse(key ? lastUseOf(key, serviceNowOf(ctx.client)) : { known: false });
      } catch {
        // The next read tries again; the last known use stays on screen.
      }
    };
    void read();
    const timer = setInterval(() => void read(), IDLE_POLL_MS);
    return () => {
      stopped = true;
      clearInterval(timer);
    };
  }, [ctx, rotation.old.id]);

  // Waiting: deactivate as soon as the old key has been idle long enough (the action an event: it
  // reads what is on screen then, whether the old key is still listed).
  const deactivateIdle = useEffectEvent(() => void act('deactivate'));
  useEffect(() => {
    if (waiting && use !== undefined && isIdle(use, DEFAULT_IDLE_FOR_MS) && !busy) deactivateIdle();
  }, [waiting, use, busy]);

  useKeymap(
    'handover',
    {
      'handover.deactivate': () => (inUse ? setConfirm('deactivate') : void act('deactivate')),
      'handover.wait': use?.known ? () => setWaiting(true) : undefined,
      'handover.delete': () => setConfirm('delete'),
      'handover.keep': () => void act('keep'),
      'handover.later': () => {
        if (waiting) return setWaiting(false);
        flash(`the rotation of "${rotation.old.name}" stays recorded: it is offered again at the next start`, 'info', 10_000);
        props.onDone();
      },
    },
    { modal: true, active: confirm === undefined && !busy },
  );

  const area = { columns: props.columns, rows: props.rows };
  if (confirm) {
    return (
      <ConfirmDialog
        {...area}
        title={confirm === 'delete' ? `Delete the old key "${visible(oldName(rotation))}" for good?` : `Deactivate "${visible(oldName(rotation))}" while it is in use?`}
        message={[
          ...(use && inUse ? [`${use.known ? `It was ${describeLastUse(use)}` : 'Its usage figures show spend'}, after its successor was delivered: whatever still uses it fails from now on.`] : []),
          confirm === 'delete' ? 'Deleting is permanent: it cannot be restored.' : 'Deactivating is reversible (space on the Keys pane).',
        ]}
        actionLabel={confirm === 'delete' ? 'Delete' : 'Deactivate'}
        dangerous
        onConfirm={() => void act(confirm)}
        onCancel={() => setConfirm(undefined)}
      />
    );
  }
  const useLine = gone
    ? `The old key "${visible(oldName(rotation))}" no longer exists (deleted elsewhere): k ends the rotation.`
    : use === undefined
      ? 'Reading when the old key was last used…'
      : sentence(
          `${lastUseSentence(`the old key "${visible(oldName(rotation))}"`, use)}${inUse ? ': after the handover, so something still uses it' : use.known ? '' : ', so keydeck cannot tell when it goes idle'}`,
        );
  return (
    <Dialog title={`Rotating "${visible(rotation.old.name)}": the successor is in place`} {...area}>
      {(props.lines ?? []).map((line, i) => (
        <Text key={i} wrap="wrap">
          {line}
        </Text>
      ))}
      <Text color={inUse ? theme.warning : undefined} wrap="wrap">
        {useLine}
      </Text>
      {spend && <Text wrap="wrap">{sentence(`${spend.line}${spend.spending ? ': it spent after the handover' : ''}`)}</Text>}
      {waiting && <Text color={theme.accent} wrap="wrap">{`Deactivating it once it has not been used for ${shortDuration(DEFAULT_IDLE_FOR_MS)}… (esc stops waiting)`}</Text>}
      <Text color={theme.accent} wrap="wrap">
        {busy ? `${busy}…` : `d deactivate it · ${use?.known ? 'w when idle · ' : ''}x delete it · k keep it · esc later`}
      </Text>
    </Dialog>
  );
}
