/**
 * The Management keys pane: name, key prefix, status, last used (relative), created; the
 * key keydeck itself uses is marked `◆`. `n` creates one (shown once, copy, and `u` to make it
 * the key keydeck uses, stored the same way as the current one); `d` deletes after the name is
 * typed; deleting the key in use warns first, then clears the stored credential and returns
 * to the guided setup.
 */
import { useMemo, useState } from 'react';
import { Box, Text } from 'ink';
import { keyNameProblem, type ManagementKey } from '../../../api/schemas.js';
import { managementKeyName } from '../../../credentials/keyName.js';
import { originTarget } from '../../../credentials/origin.js';
import { ListTable, listEmptyText } from '../../components/ListTable.js';
import { PromptDialog } from '../../components/PromptDialog.js';
import { RevealDialog } from '../../components/RevealDialog.js';
import { TypeToConfirmDialog } from '../../components/TypeToConfirmDialog.js';
import { useAccountData, useBackgroundReload } from '../../contexts/AccountDataContext.js';
import { useKeymap } from '../../contexts/KeymapContext.js';
import { useClock, useServices } from '../../contexts/ServicesContext.js';
import { useSession, useSessionActions, type ActiveCredential } from '../../contexts/SessionContext.js';
import { useFlash } from '../../contexts/StatusContext.js';
import { describeFailure } from '../../errors.js';
import { dateTime, displayWidth, relativeAgo, shortDate, truncateTo } from '../../format.js';
import { useActionRunner } from '../../hooks/useActionRunner.js';
import { guarded, useChangeGuard } from '../../hooks/useChangeGuard.js';
import { useListPane } from '../../hooks/useListPane.js';
import { useReloadWhenShown } from '../../hooks/useReloadWhenShown.js';
import { useResourceView } from '../../hooks/useResource.js';
import { symbols, theme } from '../../theme.js';
import { managementColumns, managementRow, sortManagementKeys } from './mgmtRows.js';
import type { PaneProps } from '../registry.js';

/** Dialogs of the pane. `reveal` holds the only copy of a new key's value. */
export type ManagementDialog = { kind: 'create'; initial: string } | { kind: 'reveal'; name: string; apiKey: string; used: boolean } | { kind: 'delete'; key: ManagementKey; inUse: boolean };

const EMPTY: ManagementKey[] = [];
/** Lines under the table: the selected key's timestamps, and the legend. */
const FOOTER_ROWS = 2;

/** See the module comment. */
export function ManagementKeysPane({ size, active }: PaneProps) {
  const clock = useClock();
  const now = clock();
  const services = useServices();
  const session = useSession();
  const { signIn, startSetup, markRejected } = useSessionActions();
  // Re-rendered by the list's answers only while shown; shown, it reads the list as it is then.
  const managementKeysStore = useAccountData().managementKeys;
  const managementKeys = useResourceView(managementKeysStore, active);
  useReloadWhenShown(managementKeysStore, active);
  // Read in the background only while shown (contexts/AccountDataContext.tsx says why).
  useBackgroundReload(active, managementKeysStore);
  const flash = useFlash();
  const { busy, run } = useActionRunner();
  const [dialog, setDialog] = useState<ManagementDialog | undefined>(undefined);
  const compact = size.mode === 'compact';
  const client = session.client;
  const inUsePrefix = session.info?.keyPrefix;

  const sorted = useMemo(() => (managementKeys.data ? sortManagementKeys(managementKeys.data) : EMPTY), [managementKeys.data]);
  const footer = compact ? 1 : FOOTER_ROWS;
  const list = useListPane({ items: sorted, bodyRows: size.rows - footer, active: active && !dialog && !busy });
  const selected = list.selected;
  const isInUse = (k: ManagementKey) => inUsePrefix !== undefined && k.keyPrefix === inUsePrefix;

  const create = async (name: string) => {
    if (!client) return;
    setDialog(undefined);
    const r = await run(`creating the management key "${name}"`, () => client.managementKeys.create({ name }));
    if (r.ok) {
      setDialog({ kind: 'reveal', name: r.value.name, apiKey: r.value.apiKey, used: false });
      flash(`created the management key "${r.value.name}" (${r.value.keyPrefix})`, 'ok');
      list.selectId(r.value.id);
    }
    void managementKeys.reload();
  };

  /** Makes the revealed key the one keydeck uses, stored the way the current one is. */
  const adoptForKeydeck = async (d: Extract<ManagementDialog, { kind: 'reveal' }>) => {
    const origin = session.info?.origin;
    if (!session.baseUrl || !origin) return;
    if (origin === 'env') {
      flash('keydeck takes its key from KEYDECK_TOKEN: set KEYDECK_TOKEN to the new key to use it', 'warning');
      return;
    }
    let credential: ActiveCredential = { token: d.apiKey, origin: 'memory' };
    // The demo token is stored nowhere by keydeck: a key used in its place is kept for this session.
    if (origin !== 'memory' && origin !== 'sandbox') {
      const target = originTarget(session.baseUrl, services.profile.savedBaseUrl);
      const r = await run('storing the new key', () => services.store.set(services.profile.name, d.apiKey, { ...target, insecureStorage: origin === 'file' }));
      if (!r.ok) return;
      credential = { token: d.apiKey, origin: r.value.source, ...(r.value.path !== undefined && { path: r.value.path }) };
    }
    setDialog({ ...d, used: true });
    signIn(session.baseUrl, credential);
    flash(`keydeck now uses "${d.name}" (${credential.origin === 'memory' ? 'this session only' : credential.origin})`, 'ok');
  };

  const acknowledge = () => {
    setDialog(undefined);
    flash('the full key is gone from the screen; the list shows its prefix only', 'ok');
  };

  const remove = async (key: ManagementKey, inUse: boolean) => {
    if (!client) return;
    setDialog(undefined);
    const r = await run(`deleting "${key.name}"`, () => client.managementKeys.delete(key.id));
    if (!r.ok) {
      void managementKeys.reload();
      return;
    }
    if (!inUse) {
      flash(`deleted the management key "${key.name}"`, 'ok');
      void managementKeys.reload();
      return;
    }
    const origin = session.info?.origin;
    if (origin === 'env') {
      // No setup: KEYDECK_TOKEN would override whatever it stored at the next start (
      // req. 3). The session is marked rejected, and its banner says to unset the variable.
      markRejected();
      flash(
        `deleted the management key KEYDECK_TOKEN holds ("${key.name}", ${key.keyPrefix}): unset KEYDECK_TOKEN to use the key stored for this profile, or set it to a valid key`,
        'warning',
        30_000,
      );
      return;
    }
    let note = `signed out: the management key keydeck used ("${key.name}", ${key.keyPrefix}) was deleted`;
    if ((origin === 'keychain' || origin === 'file') && session.baseUrl) {
      try {
        await services.store.delete(services.profile.name, originTarget(session.baseUrl, services.profile.savedBaseUrl));
        note += ', and its stored copy was cleared.';
      } catch (error) {
        note += `; its stored copy could not be cleared: ${describeFailure(error)}`;
      }
    } else {
      note += '.';
    }
    startSetup(note);
  };

  // Read-only profiles (src/config/profileMarks.ts): each change asks first. (A delete asks for the name typed on every profile.)
  const guard = useChangeGuard();
  useKeymap(
    'mgmt',
    {
      'mgmt.create': guarded(
        guard,
        'create a management key',
        client
          ? () =>
              setDialog({
                kind: 'create',
                initial: managementKeyName(
                  { host: services.hostname, profile: services.profile.name, now: clock() },
                  (managementKeys.data ?? []).map((k) => k.name),
                ),
              })
          : undefined,
      ),
      'mgmt.delete': guarded(guard, 'delete a management key', selected ? () => setDialog({ kind: 'delete', key: selected, inUse: isInUse(selected) }) : undefined),
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
            title="New management key"
            message={['A management key (mk_…) manages the account through /api/*; its full value is shown once.']}
            label="name"
            defaultValue={dialog.initial}
            validate={keyNameProblem}
            onSubmit={(name) => void create(name)}
            onCancel={() => setDialog(undefined)}
          />
        );
      case 'reveal':
        return (
          <RevealDialog
            {...area}
            title={`Management key "${dialog.name}" created`}
            secret={dialog.apiKey}
            message={[dialog.used ? 'keydeck now uses this key.' : 'Press u to make it the key keydeck uses (stored the same way as the current one).']}
            {...(!dialog.used && { onUse: () => void adoptForKeydeck(dialog), useLabel: 'use it for keydeck' })}
            onAck={acknowledge}
          />
        );
      case 'delete':
        return (
          <TypeToConfirmDialog
            {...area}
            title={`Delete the management key "${dialog.key.name}"?`}
            message={
              dialog.inUse
                ? [`${symbols.warning} This is the key keydeck is using. keydeck will be signed out, its stored copy cleared, and the guided setup shown again.`, 'Deleting is permanent.']
                : ['Deleting is permanent: anything using this key loses access to the account at once.']
            }
            details={[
              `prefix ${dialog.key.keyPrefix}`,
              `created ${dateTime(dialog.key.createdAt)}`,
              `last used ${dialog.key.lastUsedAt ? `${dateTime(dialog.key.lastUsedAt)} (${relativeAgo(dialog.key.lastUsedAt, now)})` : 'never'}`,
            ]}
            expected={dialog.key.name}
            onConfirm={() => void remove(dialog.key, dialog.inUse)}
            onCancel={() => setDialog(undefined)}
          />
        );
    }
  }

  const legend = session.info?.kind === 'management-key' ? `${symbols.inUse} = the key keydeck is using (${session.info.keyPrefix ?? ''})` : 'keydeck is using a session token, not a management key';
  // Whole at every width (only names are cut): the dates shorter, then the creation left out.
  const used = selected?.lastUsedAt ? relativeAgo(selected.lastUsedAt, now) : 'never';
  const detail = selected
    ? ([
        `${selected.keyPrefix} · created ${dateTime(selected.createdAt)} · last used ${selected.lastUsedAt ? `${dateTime(selected.lastUsedAt)} (${used})` : 'never'}`,
        `${selected.keyPrefix} · created ${shortDate(selected.createdAt)} · last used ${used}`,
      ].find((line) => displayWidth(line) <= size.columns) ?? `${selected.keyPrefix} · last used ${used}`)
    : ' ';
  return (
    <Box flexDirection="column" width={size.columns} height={size.rows}>
      <ListTable
        list={list}
        total={sorted.length}
        columns={managementColumns(size.columns, compact)}
        width={size.columns}
        rowOf={(k, isSelected) => managementRow(k, isSelected, isInUse(k), now)}
        statusColor={(k) => (k.isActive ? undefined : theme.warning)}
        emptyText={listEmptyText(managementKeys, 'the management keys', 'no management keys: press n to create one')}
      />
      {compact ? null : <Text>{truncateTo(detail, size.columns)}</Text>}
      <Text color={theme.muted}>{truncateTo(legend, size.columns)}</Text>
    </Box>
  );
}
