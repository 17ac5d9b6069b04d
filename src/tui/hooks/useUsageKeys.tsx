/**
 * The usage keys of the whole TUI, bound in the `global` scope: `u` spends a usage read
 * now (when one is left: else it says when the next is allowed; while one is under way, it says
 * so), `D` deactivates the key the runaway alert names (the confirm dialog, Cancel focused first;
 * after it the key's requests fail: 403 from the service), `X` hides the alert. Returns the dialog while it is open (the shell draws
 * it in place of the pane).
 */
import { useState, type ReactNode } from 'react';
import { paidTimeLost } from '../../api/keyStatus.js';
import { readsLeftWords, refreshWaitSentence } from '../../billing/usageWords.js';
import { ConfirmDialog } from '../components/ConfirmDialog.js';
import { useAccountData } from '../contexts/AccountDataContext.js';
import { useBalanceRefresh } from '../contexts/BalanceContext.js';
import { useKeymap } from '../contexts/KeymapContext.js';
import { useServiceClock, useSession } from '../contexts/SessionContext.js';
import { useFlash } from '../contexts/StatusContext.js';
import { useUsage, useUsageActions, type RunawayAlert } from '../contexts/UsageContext.js';
import { describeFailure } from '../errors.js';
import { useActionRunner } from './useActionRunner.js';
import { guarded, useChangeGuard } from './useChangeGuard.js';
import { TypeToConfirmDialog } from '../components/TypeToConfirmDialog.js';

/** See the module comment. `active`: no overlay or dialog of the shell is open. */
export function useUsageKeys(options: { readonly active: boolean; readonly columns: number; readonly rows: number }): ReactNode | undefined {
  const usage = useUsage();
  const { readNow, dismiss } = useUsageActions();
  const { client } = useSession();
  const { keys } = useAccountData();
  const refreshBalance = useBalanceRefresh();
  const clock = useServiceClock();
  const flash = useFlash();
  const { busy, run } = useActionRunner();
  const [confirming, setConfirming] = useState<RunawayAlert | undefined>(undefined);
  const alert = usage.alerts[usage.alerts.length - 1];
  // Read-only and protected profiles (src/config/profileMarks.ts).
  const guard = useChangeGuard();

  const read = async () => {
    const after = await readNow();
    const budget = after.budget;
    if (!budget) return;
    if (after.error !== undefined && after.declined === undefined) flash(`could not read the usage: ${describeFailure(after.error)}; the last figures stay on screen`, 'error');
    else if (after.declined !== undefined) flash(refreshWaitSentence(after.at, budget), 'warning', 10_000);
    else flash(`read the usage: ${readsLeftWords(budget)} in 12 hours`, 'ok');
  };

  const deactivate = async (target: RunawayAlert) => {
    setConfirming(undefined);
    if (!client || target.keyId === undefined) return;
    const r = await run(`deactivating "${target.keyName}"`, () => client.keys.update(target.keyId!, { isActive: false }));
    if (r.ok) {
      flash(`deactivated "${target.keyName}": its requests now fail (space on the Keys pane reactivates it)`, 'ok', 10_000);
      dismiss(target.id);
    }
    void keys.reload();
    refreshBalance();
  };

  useKeymap(
    'global',
    {
      // While a read is under way, a `u` typed ahead says so (it would spend nothing more).
      'usage.read': usage.available ? (usage.reading ? () => flash('a usage read is under way: its figures come with it', 'warning') : () => void read()) : undefined,
      'runaway.deactivate': guarded(guard, 'deactivate a key', alert?.keyId !== undefined && !busy ? () => setConfirming(alert) : undefined),
      'runaway.dismiss': alert ? () => dismiss(alert.id) : undefined,
    },
    { active: options.active && confirming === undefined },
  );

  if (!confirming) return undefined;
  const key = keys.data?.find((k) => k.id === confirming.keyId);
  const lost = key ? paidTimeLost(key, 'deactivate', clock()) : undefined;
  const message = [
    `${confirming.text}.`,
    'It is revoked at once: every request made with it fails until you reactivate it (space on the Keys pane).',
    ...(lost ? [`${lost[0]!.toUpperCase()}${lost.slice(1)}.`] : []),
  ];
  // A protected profile asks for the key's name typed.
  if (guard.protected) {
    return (
      <TypeToConfirmDialog
        columns={options.columns}
        rows={options.rows}
        title={`Deactivate "${confirming.keyName}"?`}
        message={message}
        expected={confirming.keyName ?? key?.name ?? ''}
        action="deactivates it"
        onConfirm={() => void deactivate(confirming)}
        onCancel={() => setConfirming(undefined)}
      />
    );
  }
  return (
    <ConfirmDialog
      columns={options.columns}
      rows={options.rows}
      title={`Deactivate "${confirming.keyName}"?`}
      message={message}
      actionLabel="Deactivate"
      dangerous
      onConfirm={() => void deactivate(confirming)}
      onCancel={() => setConfirming(undefined)}
    />
  );
}
