/**
 * The guided first-time setup (shown when the profile has no credential, after `S`, or after
 * the key in use was deleted):
 * 1. where is the service (skipped with --sandbox);
 * 2. a session token or an existing mk_ key (masked; with --sandbox, enter takes the demo token);
 * 3. verified against the service; with a session token, where the key can be stored is decided
 *    first (the keychain is probed with a write; when it is unavailable: the plaintext file, this
 *    session only, or quit and set KEYDECK_TOKEN), then a management key is named (default
 *    `keydeck@<hostname> <profile> <date>`, unique), created, shown once (copy; "I have saved it"), and stored for this
 *    service's origin (src/credentials/origin.ts). "This session only" creates no key (the session
 *    token is used in memory); a key created but then not stored is deleted again on the service;
 * 4. the Keys pane. The session token is never stored anywhere; the base URL set up against is
 *    saved in the profile (not with --sandbox). A key already stored for this service is named
 *    on the token step before anything is replaced.
 */
import { tokenKind } from '../../credentials/token.js';
import { insecureHttpProblem, normalizeBaseUrl } from '../../api/baseUrl.js';
import { originTarget } from '../../credentials/origin.js';
import { managementKeyName } from '../../credentials/keyName.js';
import { useEffect, useRef, useState } from 'react';
import { Box, Text } from 'ink';
import { keyNameProblem } from '../../api/schemas.js';
import { keyPrefixOf } from '../../api/errors.js';
import { CredentialStoreError } from '../../credentials/store.js';
import { HintBar } from '../components/HintBar.js';
import { RevealDialog } from '../components/RevealDialog.js';
import { StatusLine } from '../components/StatusLine.js';
import { hostLabel } from '../components/HeaderView.js';
import { useServices } from '../contexts/ServicesContext.js';
import { useSession, useSessionActions, type ActiveCredential } from '../contexts/SessionContext.js';
import { useFlash } from '../contexts/StatusContext.js';
import { describeFailure, isUnauthorized } from '../errors.js';
import type { LayoutMode } from '../layout.js';
import { symbols, theme } from '../theme.js';
import { StorageChoiceStep, type StorageChoice } from './setup/StorageChoiceStep.js';
import { TextStep } from './setup/TextStep.js';
import { useSaveAddress } from './setup/useSaveAddress.js';
import { baseUrlProblem, tokenProblem, type SetupStep } from './setupSteps.js';

/** Props of {@link SetupFlow}. */
export interface SetupFlowProps {
  readonly columns: number;
  readonly rows: number;
  readonly mode: Exclude<LayoutMode, 'too-small'>;
}

const STEP_TITLES: Record<SetupStep['step'], string> = {
  where: 'Where is the service?',
  token: 'Your token',
  verifying: 'Checking the token',
  name: 'Name the management key',
  creating: 'Creating the management key',
  reveal: 'Your new management key',
  storing: 'Storing the key',
  'storage-choice': 'Where to keep the key',
  finishing: 'Done',
};

/** See the module comment. */
export function SetupFlow({ columns, rows, mode }: SetupFlowProps) {
  const services = useServices();
  const session = useSession();
  const { signIn } = useSessionActions();
  const flash = useFlash({ owned: false });
  const sandbox = services.target === 'sandbox';
  const initialUrl = session.baseUrl ?? services.profile.baseUrl;
  const [baseUrl, setBaseUrl] = useState<string | undefined>(initialUrl);
  const [step, setStep] = useState<SetupStep>(sandbox && initialUrl ? { step: 'token' } : { step: 'where' });
  /** The session token (or pasted mk_) being used for setup: memory only, never stored. */
  const sessionToken = useRef<string | undefined>(undefined);
  /** The management key to store (created or pasted). */
  const managementKey = useRef<string | undefined>(undefined);
  /** The default name of the key to create (`keydeck@host profile date`, unique), set once the token works. */
  const defaultName = useRef<string | undefined>(undefined);
  /** The key created in this setup (id for deleting it again when it cannot be stored). */
  const createdKey = useRef<{ id: string; name: string; keyPrefix: string } | undefined>(undefined);
  /** Where the key will go, decided before one is created: the keychain, the plaintext file (consented), or memory. */
  const plan = useRef<'keychain' | 'file' | 'session'>('keychain');
  /** `mk_` prefix of the key already stored for this service (setup replaces it), when there is one. */
  const [previousPrefix, setPreviousPrefix] = useState<string | undefined>(undefined);
  const targetOf = (url: string) => originTarget(url, services.profile.savedBaseUrl);

  useEffect(() => {
    if (!baseUrl) return;
    let cancelled = false;
    services.store.get(services.profile.name, { ...originTarget(baseUrl, services.profile.savedBaseUrl), ignoreEnv: true }).then(
      (stored) => !cancelled && setPreviousPrefix(stored ? keyPrefixOf(stored.token) : undefined),
      () => undefined,
    );
    return () => {
      cancelled = true;
    };
  }, [baseUrl, services]);

  const clientFor = (token: string) => services.createClient(baseUrl!, token);

  const submitWhere = async (value: string) => {
    const url = normalizeBaseUrl(value);
    const insecure = insecureHttpProblem(url, services.allowInsecureHttp === true);
    if (insecure !== undefined) return setStep({ step: 'where', error: insecure });
    setBaseUrl(url);
    setStep({ step: 'token' });
  };

  const { saveUrl, saveUrlQuietly } = useSaveAddress(flash);

  const submitToken = async (value: string) => {
    const token = value.trim() === '' && services.demoToken ? services.demoToken : value.trim();
    services.registerSecret?.(token);
    setStep({ step: 'verifying' });
    try {
      await clientFor(token).billing.credits();
    } catch (error) {
      const why = isUnauthorized(error) ? 'the service rejected this token (unauthorized): check it and paste it again' : describeFailure(error);
      setStep({ step: 'token', error: why });
      return;
    }
    if (tokenKind(token) === 'management') {
      sessionToken.current = undefined;
      managementKey.current = token;
      void store();
      return;
    }
    sessionToken.current = token;
    // The new key's default name: meaningful and unique among the account's keys.
    const taken = await clientFor(token)
      .managementKeys.list()
      .then(
        (list) => list.map((k) => k.name),
        () => [] as string[],
      );
    defaultName.current = managementKeyName({ host: services.hostname, profile: services.profile.name, now: (services.now ?? Date.now)() }, taken);
    // Where the key will go is known before one is created: a key nobody can keep is never made.
    const status = await services.store.keychainStatus({ write: true });
    if (status.available) {
      plan.current = 'keychain';
      setStep({ step: 'name' });
    } else {
      const why = (status.reason ?? 'the keychain did not answer').replace(/\.$/, '');
      setStep({
        step: 'storage-choice',
        reason: `${why}. Nothing has been created yet: choose where the key will go first (--insecure-storage pre-selects the file; KEYDECK_TOKEN needs no storage).`,
        beforeCreate: true,
      });
    }
  };

  const submitName = async (name: string) => {
    const token = sessionToken.current;
    if (!token) return setStep({ step: 'token' });
    setStep({ step: 'creating' });
    try {
      const created = await clientFor(token).managementKeys.create({ name: name.trim() });
      managementKey.current = created.apiKey;
      createdKey.current = { id: created.id, name: created.name, keyPrefix: created.keyPrefix ?? keyPrefixOf(created.apiKey) };
      setStep({ step: 'reveal', name: created.name, keyPrefix: created.keyPrefix ?? keyPrefixOf(created.apiKey), apiKey: created.apiKey });
    } catch (error) {
      setStep({ step: 'name', error: describeFailure(error) });
    }
  };

  const finish = (credential: ActiveCredential, message: string, tone: 'ok' | 'warning' = 'ok') => {
    sessionToken.current = undefined;
    managementKey.current = undefined;
    createdKey.current = undefined;
    setStep({ step: 'finishing' });
    void saveUrl(baseUrl!);
    signIn(baseUrl!, credential);
    const replaced =
      previousPrefix !== undefined && credential.origin !== 'memory' && previousPrefix !== keyPrefixOf(credential.token)
        ? `; it replaced the stored key ${previousPrefix}…, which stays valid on the service until you delete it (Management keys pane)`
        : '';
    flash(`${message}${replaced}`, replaced ? 'warning' : tone, 10_000);
  };

  /**
   * Deletes the key created in this setup again on the service (it could not be stored), with
   * the session token; says what happened. Returns the sentence.
   */
  const undoCreate = async (): Promise<string> => {
    const created = createdKey.current;
    const token = sessionToken.current;
    if (!created || !token) return '';
    try {
      await clientFor(token).managementKeys.delete(created.id);
      createdKey.current = undefined;
      managementKey.current = undefined;
      return `the management key ${created.keyPrefix}… was not stored, so it was deleted again on the service`;
    } catch (error) {
      return `the management key ${created.keyPrefix}… was not stored and could not be deleted again (${describeFailure(error)}): delete "${created.name}" in the Management keys pane`;
    }
  };

  const store = async () => {
    const key = managementKey.current;
    if (!key) return setStep({ step: 'token' });
    if (plan.current === 'session' && sessionToken.current) {
      // No key was created: this session uses the session token, in memory only.
      finish({ token: sessionToken.current, origin: 'memory' }, 'setup done: the session token is used for this session only (nothing was created or written)', 'warning');
      return;
    }
    setStep({ step: 'storing' });
    try {
      const where = await services.store.set(services.profile.name, key, { ...targetOf(baseUrl!), insecureStorage: plan.current === 'file' });
      finish(
        { token: key, origin: where.source, ...(where.path !== undefined && { path: where.path }) },
        where.source === 'file' ? `setup done: the key is stored in plaintext in ${where.path ?? 'the fallback file'} (mode 0600)` : 'setup done: the key is stored in the OS keychain',
        where.source === 'file' ? 'warning' : 'ok',
      );
    } catch (error) {
      // The store's sentence names the command line's way on (--insecure-storage): here the menu
      // below is the way on, so that part is left out.
      const said = error instanceof CredentialStoreError || error instanceof Error ? error.message : String(error);
      const reason = `${said.replace(/ To go on without a keychain, re-run with --insecure-storage[\s\S]*$/, '').replace(/\.?$/, '.')} The key is made: choose below where it goes.`;
      setStep({ step: 'storage-choice', reason });
    }
  };

  const choose = async (choice: StorageChoice, beforeCreate: boolean) => {
    if (beforeCreate) {
      // Nothing created yet: the choice decides what setup makes.
      if (choice === 'quit') {
        // The address they typed works (the token was checked there): kept, so only the token is left to give.
        const saved = await saveUrlQuietly(baseUrl!);
        services.exit(
          0,
          `keydeck: nothing was created or stored${saved}. Set KEYDECK_TOKEN to your session token or a management key (mk_…) and run keydeck again: ` +
            'keydeck reads it on every run and never stores it (or run keydeck --insecure-storage to keep a key in a file).',
        );
        return;
      }
      plan.current = choice === 'file' ? 'file' : 'session';
      if (choice === 'session' && sessionToken.current) {
        finish({ token: sessionToken.current, origin: 'memory' }, 'setup done: the session token is used for this session only (nothing was created or written)', 'warning');
        return;
      }
      setStep({ step: 'name' });
      return;
    }
    const key = managementKey.current;
    if (!key) return setStep({ step: 'token' });
    if (choice === 'session' || choice === 'quit') {
      // A key created here and not stored is deleted again; a pasted mk_ is the user's own.
      const undone = await undoCreate();
      if (choice === 'quit') {
        const saved = await saveUrlQuietly(baseUrl!);
        services.exit(
          0,
          undone
            ? `keydeck: ${undone}${saved}. Set KEYDECK_TOKEN to your session token or a management key (mk_…) and run keydeck again.`
            : `keydeck: the management key ${keyPrefixOf(key)}… was not stored${saved}. Set KEYDECK_TOKEN to it ` +
                '(for example in your shell profile: export KEYDECK_TOKEN=<the mk_ key>) and run keydeck again.',
        );
        return;
      }
      const token = undone && sessionToken.current ? sessionToken.current : key;
      finish({ token, origin: 'memory' }, `setup done: ${undone ? `${undone}; ` : ''}this session only (nothing was written)`, 'warning');
      return;
    }
    setStep({ step: 'storing' });
    try {
      const where = await services.store.set(services.profile.name, key, { ...targetOf(baseUrl!), insecureStorage: true });
      finish(
        { token: key, origin: where.source, ...(where.path !== undefined && { path: where.path }) },
        where.source === 'file' ? `setup done: the key is stored in plaintext in ${where.path ?? 'the fallback file'} (mode 0600)` : 'setup done',
        where.source === 'file' ? 'warning' : 'ok',
      );
    } catch (error) {
      setStep({ step: 'storage-choice', reason: describeFailure(error) });
    }
  };

  const body = (() => {
    switch (step.step) {
      case 'where':
        return (
          <TextStep
            key="where"
            lines={['keydeck manages your account on an inference service. Which service? (the address of its API)']}
            label="base URL"
            {...(baseUrl !== undefined ? { defaultValue: baseUrl } : { placeholder: 'e.g. https://api.cheapestinference.com' })}
            error={step.error}
            validate={baseUrlProblem}
            onSubmit={(v) => void submitWhere(v)}
          />
        );
      case 'token':
        return (
          <TextStep
            key={`token-${step.error ?? ''}`}
            lines={[
              services.demoToken
                ? 'Press enter to use the sandbox’s demo session token, or paste another token.'
                : 'Paste a session token (from signing in to the service) or an existing management key (mk_…).',
              'A session token is used once, to create a management key for keydeck; it is never stored.',
              ...(previousPrefix !== undefined
                ? [`${symbols.warning} A key (${previousPrefix}…) is already stored for this service: finishing setup replaces it there (it stays valid on the service until you delete it).`]
                : []),
            ]}
            label="token"
            masked
            {...(services.demoToken && { placeholder: 'enter = demo session token' })}
            error={step.error}
            validate={(v) => tokenProblem(v, services.demoToken !== undefined)}
            onSubmit={(v) => void submitToken(v)}
            onBack={sandbox ? undefined : () => setStep({ step: 'where' })}
          />
        );
      case 'name':
        return (
          <TextStep
            key="name"
            lines={[
              'The token works. keydeck now creates a management key (mk_…) of its own, so the session token is never needed again.',
              'Name it so you can tell it apart later (enter keeps the name shown).',
            ]}
            label="name"
            defaultValue={defaultName.current ?? managementKeyName({ host: services.hostname, profile: services.profile.name, now: (services.now ?? Date.now)() })}
            error={step.error}
            validate={keyNameProblem}
            onSubmit={(v) => void submitName(v)}
            onBack={() => setStep({ step: 'token' })}
          />
        );
      case 'reveal':
        return (
          <RevealDialog
            columns={columns}
            rows={Math.max(8, rows - 5)}
            title={`Management key "${step.name}" created`}
            secret={step.apiKey}
            message={[
              // Where it goes was settled before it was made (said as it is, not as a choice to come).
              `${plan.current === 'file' ? 'keydeck stores it next in the plaintext key file, as you chose (mode 0600).' : 'keydeck stores it next in the OS keychain.'} Keep a copy if you want to use it elsewhere: it cannot be shown again.`,
            ]}
            onAck={() => {
              setStep({ step: 'storing' });
              void store();
            }}
          />
        );
      case 'storage-choice':
        return (
          <StorageChoiceStep
            reason={step.reason}
            initial={services.insecureStorage ? 'file' : 'session'}
            onChoose={(c) => void choose(c, step.beforeCreate === true)}
            compact={mode === 'compact'}
            columns={columns}
          />
        );
      case 'verifying':
        return <Text color={theme.accent}>… checking the token with the service</Text>;
      case 'creating':
        return <Text color={theme.accent}>… creating the management key</Text>;
      case 'storing':
        return <Text color={theme.accent}>… storing the key</Text>;
      case 'finishing':
        return <Text color={theme.accent}>… opening the Keys pane</Text>;
    }
  })();

  const working = step.step === 'verifying' || step.step === 'creating' || step.step === 'storing' || step.step === 'finishing';
  const badge = sandbox ? 'SANDBOX' : 'LIVE';
  return (
    <Box flexDirection="column" width={columns} height={rows} overflow="hidden">
      <Text wrap="truncate">
        <Text bold>keydeck setup </Text>
        <Text bold inverse color={sandbox ? theme.sandbox : theme.live}>{` ${badge} `}</Text>
        {`  profile ${services.profile.name} · ${hostLabel(baseUrl)}`}
      </Text>
      <Text bold color={theme.accent}>
        {STEP_TITLES[step.step]}
      </Text>
      {session.notice ? (
        <Text color={theme.warning} wrap={mode === 'compact' ? 'truncate' : 'wrap'}>
          {`${symbols.warning} ${session.notice}`}
        </Text>
      ) : null}
      <Box flexDirection="column" flexGrow={1} flexShrink={1} marginTop={mode === 'compact' ? 0 : 1} overflow="hidden">
        {body}
      </Box>
      <StatusLine columns={columns} />
      <HintBar columns={columns} {...(working && { override: 'working… (ctrl-c quits)' })} />
    </Box>
  );
}
