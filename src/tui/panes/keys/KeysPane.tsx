/**
 * The Keys pane (the consumption key's fields consumption keys): a table of the visible window of keys (name, type,
 * plan, status, expiry, created; with usage, spend columns: 24 h and 30 d at 80 columns, more
 * when wider), the details, limits and spend of the selected one, and the
 * actions create (`n`, balance checked first), rename (`e`), activate/deactivate (`space`;
 * deactivation confirmed), delete (`d`; the name typed). Each action reports its outcome and
 * the list is read back from the service. Pool subscriptions (./keyPledges.ts): a line
 * above the table names the subscriptions and pool pledges without a key, `n` then offers to
 * mint one's key first (../flows/pledge/PledgeMintFlow.tsx), and a pool key whose blocks are
 * known says in its row and details where it stands in its reserved hours.
 */
import { useCallback, useMemo, useState } from 'react';
import { Box, Text } from 'ink';
import { keyNameProblem, type ConsumptionKey } from '../../../api/schemas.js';
import { ConfirmDialog } from '../../components/ConfirmDialog.js';
import { ListTable, listEmptyText } from '../../components/ListTable.js';
import { KeyDetails, KEY_DETAILS_ROWS } from '../../components/KeyDetails.js';
import { NoticeDialog } from '../../components/NoticeDialog.js';
import { PromptDialog } from '../../components/PromptDialog.js';
import { TypeToConfirmDialog } from '../../components/TypeToConfirmDialog.js';
import { useAccountData } from '../../contexts/AccountDataContext.js';
import { useBalanceRefresh, useBalanceSelect } from '../../contexts/BalanceContext.js';
import { useKeymap } from '../../contexts/KeymapContext.js';
import { useServiceClock, useSession } from '../../contexts/SessionContext.js';
import { useKeysPaneClock } from './keyWords.js';
import { endedWords, keyStatus, paidTimeLost } from '../../../api/keyStatus.js';
import { creditKeyRefusal, reactivationRefusal } from '../../../billing/keyRefusals.js';
import { useFlash } from '../../contexts/StatusContext.js';
import { CreateKeyFlow } from '../../flows/delivery/CreateKeyFlow.js';
import { NameTakenDialog } from '../../components/NameTakenDialog.js';
import { keyNamed } from '../../../billing/keyNames.js';
import { PledgeMintFlow } from '../../flows/pledge/PledgeMintFlow.js';
import { PendingRotations, usePendingRotations } from '../../flows/rotate/PendingRotations.js';
import { RotateFlow } from '../../flows/rotate/RotateFlow.js';
import { useActionRunner } from '../../hooks/useActionRunner.js';
import { useWhenReady } from '../../hooks/useWhenReady.js';
import { guarded, useChangeGuard } from '../../hooks/useChangeGuard.js';
import { useListPane } from '../../hooks/useListPane.js';
import { useReloadWhenShown } from '../../hooks/useReloadWhenShown.js';
import { theme } from '../../theme.js';
import { KEY_SORTS, SORT_LABELS, expiredBy, keyColumns, nextSort, sortKeys, spendColumnsFor, statusEnds, type KeySort } from './keyRows.js';
import { keylessNotice, usePledges } from './keyPledges.js';
import { useKeySpend } from './keySpend.js';
import { useKeyBudgets } from './keyBudget.js';
import type { PaneProps } from '../registry.js';
import { formatUsd } from '../../../api/money.js';

/** Dialogs of the Keys pane. The `reveal` one holds the only copy of a new key's value. */
export type KeysDialog =
  /** `typed`: the name typed before (back from a taken name), in the field again. */
  | { kind: 'create'; initial: string; typed?: string }
  | { kind: 'zero-balance'; remaining: number }
  | { kind: 'createFlow'; name: string }
  | { kind: 'mint' }
  | { kind: 'rotate'; key: ConsumptionKey }
  | { kind: 'pending' }
  | { kind: 'rename'; key: ConsumptionKey }
  | { kind: 'deactivate'; key: ConsumptionKey }
  | { kind: 'delete'; key: ConsumptionKey }
  /** The name asked for is another key's: create (or rename `renaming`) anyway, or go back. */
  | { kind: 'nameTaken'; name: string; taken: ConsumptionKey; renaming?: ConsumptionKey };

/** A default name for a new credit key: `credit-YYYYMMDD-HHMM` (UTC). */
export function defaultCreditKeyName(now: number, keys: readonly ConsumptionKey[] = []): string {
  const iso = new Date(now).toISOString();
  const base = `credit-${iso.slice(0, 10).replaceAll('-', '')}-${iso.slice(11, 16).replace(':', '')}`;
  // Never a name another key has: a second key in the same minute is numbered.
  let name = base;
  for (let n = 2; keyNamed(keys, name); n++) name = `${base}-${n}`;
  return name;
}

/** The sentences shown when the balance is 0 and a credit key is asked for. */
export function zeroBalanceMessage(remaining: number): string[] {
  return [
    `Your credit balance is ${formatUsd(remaining)}. A credit key can only be created while the balance is above $0, so keydeck did not send the request.`,
    'Top up first: press 3 for the Billing pane, then t. Credit keys created afterwards share the balance.',
  ];
}

/**
 * Why an expired subscription key is not switched back on (the service refuses it; keydeck
 * does not send the request).
 */
export function expiredKeyMessage(key: Pick<ConsumptionKey, 'name' | 'keyType' | 'keyPlan'>): string {
  const ended = endedWords(key);
  return `"${key.name}" is an expired subscription key: it cannot be reactivated (its paid period has ended). ${ended[0]!.toUpperCase()}${ended.slice(1)}. Nothing was sent.`;
}

/** See the module comment. */
export function KeysPane({ size, active, goTo }: PaneProps) {
  // Subscription time is reckoned by the service's clock (its HTTP Date): a key's state
  // and its relative times come from the same clock.
  const clock = useServiceClock();
  const now = clock();
  const { client } = useSession();
  const { keys, plans, billingStatus } = useAccountData();
  const pledges = usePledges();
  const notice = keylessNotice(pledges.keyless);
  useReloadWhenShown(keys, active);
  const refreshBalance = useBalanceRefresh();
  // Only whether the balance is spent shows here (the empty list's hint): no render per poll.
  const balanceSpent = useBalanceSelect((poll) => poll.data !== undefined && poll.data.remaining <= 0);
  const flash = useFlash();
  const { busy, run } = useActionRunner();
  const [sort, setSort] = useState<KeySort>(KEY_SORTS[0]);
  const [dialog, setDialog] = useState<KeysDialog | undefined>(undefined);
  const compact = size.mode === 'compact';
  // Read-only and protected profiles (src/config/profileMarks.ts): each change asks first.
  const guard = useChangeGuard();
  // An interrupted rotation in the record is offered once, when the pane is first shown (not on a read-only profile: it could only be refused).
  const rotation = usePendingRotations(active && !dialog && guard.readOnly === undefined, () => setDialog({ kind: 'pending' }));

  const spend = useKeySpend();
  const budgets = useKeyBudgets();
  // The spend only re-sorts while sorting by it: a new usage answer costs the other sorts nothing.
  const spendOf = sort === 'spend' ? spend.spendOf : undefined;
  // Sorted by status, the order changes as keys expire by the clock: sorted again at each, as of
  // the last end passed (the statuses are those of now). No other sort reads the time.
  const ends = useMemo(() => statusEnds(keys.data), [keys.data]);
  const sortedAt = sort === 'status' ? (ends[expiredBy(ends, now).count - 1] ?? 0) : 0;
  const sorted = useMemo(() => (keys.data ? sortKeys(keys.data, sort, sortedAt, spendOf) : EMPTY), [keys.data, sort, sortedAt, spendOf]);
  const detailsRows = (compact ? 1 : KEY_DETAILS_ROWS) + (notice ? 1 : 0);
  const list = useListPane({ items: sorted, bodyRows: size.rows - detailsRows, active: active && !dialog && !busy });
  const selected = list.selected;
  const spendPeriods = spendColumnsFor(size.columns, compact, spend.periods);

  // The rows and details at a time, drawn again when their words that move with the clock change (./keyWords.ts).
  const { rowAt, detailsAt } = useKeysPaneClock({
    shown: active,
    dialog,
    rows: list.window,
    selected,
    compact,
    spend,
    pledges,
    budgets,
    plans: plans.data,
    width: size.columns - 4,
    statusEnds: sort === 'status' ? ends : undefined,
    drawnAt: now,
  });

  const reloadAll = useCallback(() => {
    void keys.reload();
    void billingStatus.reload();
    refreshBalance();
  }, [keys, billingStatus, refreshBalance]);

  // `n`: a subscription or pool pledge without a key is offered first. Pressed while the
  // stored key is still being read (no client yet), it is said, and acted on once there is one.
  const askCredit = useWhenReady(
    client !== undefined,
    () => void startCredit(),
    () => flash('connecting: the new key opens once connected', 'info', 60_000),
  );
  const startCreate = () => (pledges.keyless.length > 0 ? setDialog({ kind: 'mint' }) : askCredit());

  const startCredit = async () => {
    if (!client) return;
    const r = await run('checking the balance', () => client.billing.credits());
    if (!r.ok) return;
    const refused = creditKeyRefusal(r.value);
    if (refused) {
      setDialog({ kind: 'zero-balance', remaining: refused.remaining });
      return;
    }
    setDialog({ kind: 'create', initial: defaultCreditKeyName(clock(), keys.data ?? EMPTY) });
  };

  const created = (id?: string) => {
    setDialog(undefined);
    if (id !== undefined) list.selectId(id);
    reloadAll();
  };

  const rename = async (key: ConsumptionKey, name: string) => {
    if (!client) return;
    setDialog(undefined);
    if (name === key.name) return;
    const r = await run(`renaming "${key.name}"`, () => client.keys.update(key.id, { name }));
    if (r.ok) flash(`renamed "${key.name}" to "${name}"`, 'ok');
    reloadAll();
  };

  const setActive = async (key: ConsumptionKey, isActive: boolean) => {
    if (!client) return;
    setDialog(undefined);
    const r = await run(`${isActive ? 'reactivating' : 'deactivating'} "${key.name}"`, () => client.keys.update(key.id, { isActive }));
    if (r.ok) flash(isActive ? `reactivated "${key.name}": it works again` : `deactivated "${key.name}": requests with it now fail (space reactivates it)`, 'ok');
    reloadAll();
  };

  const remove = async (key: ConsumptionKey) => {
    if (!client) return;
    setDialog(undefined);
    const r = await run(`deleting "${key.name}"`, () => client.keys.delete(key.id));
    if (r.ok) flash(`deleted "${key.name}" for good`, 'ok');
    reloadAll();
  };

  // An ended subscription cannot be switched back on (src/billing/keyRefusals.ts).
  const ended = selected ? reactivationRefusal(selected, now) : undefined;
  useKeymap(
    'keys',
    {
      'keys.create': guarded(guard, 'create a key', startCreate),
      'keys.rename': guarded(guard, 'rename a key', selected ? () => setDialog({ kind: 'rename', key: selected }) : undefined),
      // An ended subscription cannot be switched back on (the service refuses it): on/off is not
      // offered (not in the hint bar); space still says why (keys.toggleExpired).
      'keys.toggle': guarded(
        guard,
        selected?.isActive ? 'deactivate a key' : 'reactivate a key',
        selected && !ended ? () => (selected.isActive ? setDialog({ kind: 'deactivate', key: selected }) : void setActive(selected, true)) : undefined,
      ),
      'keys.toggleExpired': selected && ended ? () => flash(expiredKeyMessage(selected), 'warning', 10_000) : undefined,
      'keys.delete': guarded(guard, 'delete a key', selected ? () => setDialog({ kind: 'delete', key: selected }) : undefined),
      'keys.rotate': guarded(guard, 'rotate a key', selected && rotation.available ? () => setDialog({ kind: 'rotate', key: selected }) : undefined),
      'keys.sort': () => {
        const s = nextSort(sort);
        setSort(s);
        flash(`sorted ${SORT_LABELS[s]}`);
      },
    },
    { active: active && !dialog && !busy && !list.filtering },
  );

  if (dialog) {
    const area = { columns: size.columns, rows: size.rows };
    switch (dialog.kind) {
      case 'create':
        return (
          <PromptDialog
            {...area}
            title="New credit key"
            message={['A credit key draws on the shared USD balance; its full value is shown once.']}
            label="name"
            defaultValue={dialog.initial}
            {...(dialog.typed !== undefined && { initial: dialog.typed })}
            validate={keyNameProblem}
            onSubmit={(name) => {
              const taken = keyNamed(keys.data ?? EMPTY, name);
              setDialog(taken ? { kind: 'nameTaken', name, taken } : { kind: 'createFlow', name });
            }}
            onCancel={() => setDialog(undefined)}
          />
        );
      case 'nameTaken': {
        const { name, renaming } = dialog;
        return (
          <NameTakenDialog
            {...area}
            name={name}
            taken={dialog.taken}
            action={renaming ? 'rename' : 'create'}
            onConfirm={() => (renaming ? void rename(renaming, name) : setDialog({ kind: 'createFlow', name }))}
            onCancel={() => setDialog(renaming ? { kind: 'rename', key: renaming } : { kind: 'create', initial: defaultCreditKeyName(clock(), keys.data ?? EMPTY), typed: name })}
          />
        );
      }
      case 'zero-balance':
        return (
          <NoticeDialog
            {...area}
            title="A top-up is needed first"
            message={zeroBalanceMessage(dialog.remaining)}
            onClose={() => setDialog(undefined)}
            onGoToBilling={() => {
              setDialog(undefined);
              goTo('billing');
            }}
          />
        );
      case 'createFlow':
        return (
          <CreateKeyFlow
            {...area}
            name={dialog.name}
            onDone={created}
            onZeroBalance={() => {
              setDialog({ kind: 'zero-balance', remaining: 0 });
              reloadAll();
            }}
          />
        );
      case 'mint':
        return (
          <PledgeMintFlow
            {...area}
            keyless={pledges.keyless}
            takenBy={(name) => keyNamed(keys.data ?? EMPTY, name)}
            refusal={pledges.freshRefusal}
            onCredit={() => {
              setDialog(undefined);
              void startCredit();
            }}
            onDone={created}
          />
        );
      case 'rotate':
        return <RotateFlow {...area} start={{ key: dialog.key }} onDone={created} />;
      case 'pending':
        return <PendingRotations {...area} onDone={created} />;
      case 'rename':
        return (
          <PromptDialog
            {...area}
            title={`Rename "${dialog.key.name}"`}
            label="new name"
            initial={dialog.key.name}
            validate={keyNameProblem}
            onSubmit={(name) => {
              const taken = keyNamed(keys.data ?? EMPTY, name, dialog.key.id);
              if (taken) setDialog({ kind: 'nameTaken', name, taken, renaming: dialog.key });
              else void rename(dialog.key, name);
            }}
            onCancel={() => setDialog(undefined)}
          />
        );
      case 'deactivate':
        // A protected profile asks for the name typed, as a delete does.
        if (guard.protected) {
          return (
            <TypeToConfirmDialog
              {...area}
              title={`Deactivate "${dialog.key.name}"?`}
              message={[
                'The profile is protected. The key is revoked at once: every request made with it fails until you reactivate it (space).',
                ...withPaidTime(paidTimeLost(dialog.key, 'deactivate', clock())),
              ]}
              expected={dialog.key.name}
              action="deactivates it"
              onConfirm={() => void setActive(dialog.key, false)}
              onCancel={() => setDialog(undefined)}
            />
          );
        }
        return (
          <ConfirmDialog
            {...area}
            title={`Deactivate "${dialog.key.name}"?`}
            message={['It is revoked at once: every request made with it fails until you reactivate it (space).', ...withPaidTime(paidTimeLost(dialog.key, 'deactivate', clock()))]}
            actionLabel="Deactivate"
            dangerous
            onConfirm={() => void setActive(dialog.key, false)}
            onCancel={() => setDialog(undefined)}
          />
        );
      case 'delete':
        return (
          <TypeToConfirmDialog
            {...area}
            title={`Delete "${dialog.key.name}"?`}
            message={['Deleting is permanent: the key is revoked and cannot be restored.', ...withPaidTime(paidTimeLost(dialog.key, 'delete', clock()))]}
            expected={dialog.key.name}
            onConfirm={() => void remove(dialog.key)}
            onCancel={() => setDialog(undefined)}
          />
        );
    }
  }

  return (
    <Box flexDirection="column" width={size.columns} height={size.rows}>
      {notice ? (
        <Text color={theme.warning} wrap="truncate">
          {notice}
        </Text>
      ) : null}
      <ListTable
        list={list}
        total={sorted.length}
        columns={keyColumns(size.columns, compact, sort, spendPeriods, budgets.any)}
        width={size.columns}
        rowOf={(k, isSelected) => rowAt(k, isSelected, now)}
        statusColor={(k) => STATUS_COLORS[keyStatus(k, now)]}
        emptyText={listEmptyText(keys, 'the keys', balanceSpent ? 'no keys yet; balance $0: top up first (3, then t), then press n' : 'no keys yet: press n to create a credit key')}
      />
      <KeyDetails item={selected} columns={size.columns} compact={compact} now={now} {...detailsAt(selected, now)} plans={plans.data} />
    </Box>
  );
}

/** The paid-time clause as a dialog line (`29 days of paid time are lost …`), or nothing. */
function withPaidTime(clause: string | undefined): string[] {
  return clause ? [`${clause[0]!.toUpperCase()}${clause.slice(1)}.`] : [];
}

/**
 * Colour of the status cell: only what needs attention is coloured (the word and symbol carry the
 * meaning); the usual state, active, is plain, which also spares each redrawn row two style changes.
 */
const STATUS_COLORS = { active: undefined, inactive: theme.warning, expired: theme.danger } as const;

const EMPTY: ConsumptionKey[] = [];
