/**
 * The guided first-time setup (shown when the profile has no credential, after `S`, or after
 * the key in use was deleted):
 * 1. where is the service (skipped with --sandbox);
 * 2. a session token or an existing mk_ key (masked; with --sandbox, enter takes the demo token);
 * 3. verified against the service; with a session token, a management key is named (default
 *    `keydeck@<hostname>`), created, shown once (copy; "I have saved it"), then stored in the
 *    keychain; when the keychain is unavailable: the plaintext file, this session only, or quit
 *    and set KEYDECK_TOKEN;
 * 4. the Keys pane. The session token is never stored anywhere.
 */
import { tokenKind } from '../../credentials/token.js';
import { normalizeBaseUrl } from '../../api/baseUrl.js';
import { useRef, useState } from 'react';
import { Box, Text } from 'ink';
import { keyNameProblem } from '../../api/schemas.js';
import { keyPrefixOf } from '../../api/errors.js';
import { CredentialStoreError } from '../../credentials/store.js';
import { HintBar } from '../components/HintBar.js';
import { RevealDialog } from '../components/RevealDialog.js';
import { StatusLine } from '../components/StatusLine.js';
import { hostLabel } from '../components/Header.js';
import { useServices } from '../contexts/ServicesContext.js';
import { useSession, useSessionActions, type ActiveCredential } from '../contexts/SessionContext.js';
import { useFlash } from '../contexts/StatusContext.js';
import { describeFailure, isUnauthorized } from '../errors.js';
import type { LayoutMode } from '../layout.js';
import { symbols, theme } from '../theme.js';
import { StorageChoiceStep, type StorageChoice } from './setup/StorageChoiceStep.js';
import { TextStep } from './setup/TextStep.js';
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
  const flash = useFlash();
  const sandbox = services.target === 'sandbox';
  const initialUrl = session.baseUrl ?? services.profile.baseUrl;
  const [baseUrl, setBaseUrl] = useState<string | undefined>(initialUrl);
  const [step, setStep] = useState<SetupStep>(sandbox && initialUrl ? { step: 'token' } : { step: 'where' });
  /** The session token (or pasted mk_) being used for setup: memory only, never stored. */
  const sessionToken = useRef<string | undefined>(undefined);
  /** The management key to store (created or pasted). */
  const managementKey = useRef<string | undefined>(undefined);

  const clientFor = (token: string) => services.createClient(baseUrl!, token);

  const submitWhere = async (value: string) => {
    const url = normalizeBaseUrl(value);
    setBaseUrl(url);
    if (services.saveBaseUrl && url !== services.profile.baseUrl) {
      try {
        await services.saveBaseUrl(url);
      } catch (error) {
        flash(`could not save the address in the profile: ${describeFailure(error)}`, 'warning');
      }
    }
    setStep({ step: 'token' });
  };

  const submitToken = async (value: string) => {
    const token = value.trim() === '' && services.demoToken ? services.demoToken : value.trim();
    services.registerSecret?.(token);
    setStep({ step: 'verifying' });
    try {
      await clientFor(token).getCredits();
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
    setStep({ step: 'name' });
  };

  const submitName = async (name: string) => {
    const token = sessionToken.current;
    if (!token) return setStep({ step: 'token' });
    setStep({ step: 'creating' });
    try {
      const created = await clientFor(token).createManagementKey({ name: name.trim() });
      managementKey.current = created.apiKey;
      setStep({ step: 'reveal', name: created.name, keyPrefix: created.keyPrefix ?? keyPrefixOf(created.apiKey), apiKey: created.apiKey });
    } catch (error) {
      setStep({ step: 'name', error: describeFailure(error) });
    }
  };

  const finish = (credential: ActiveCredential, message: string, tone: 'ok' | 'warning' = 'ok') => {
    sessionToken.current = undefined;
    managementKey.current = undefined;
    setStep({ step: 'finishing' });
    signIn(baseUrl!, credential);
    flash(message, tone, 10_000);
  };

  const store = async () => {
    const key = managementKey.current;
    if (!key) return setStep({ step: 'token' });
    setStep({ step: 'storing' });
    try {
      const where = await services.store.set(services.profile.name, key);
      finish({ token: key, origin: where.source, ...(where.path !== undefined && { path: where.path }) }, `setup done: the key is stored in the ${where.source === 'keychain' ? 'OS keychain' : where.source}`);
    } catch (error) {
      const reason = error instanceof CredentialStoreError || error instanceof Error ? error.message : String(error);
      setStep({ step: 'storage-choice', reason });
    }
  };

  const choose = async (choice: StorageChoice) => {
    const key = managementKey.current;
    if (!key) return setStep({ step: 'token' });
    if (choice === 'session') {
      finish({ token: key, origin: 'memory' }, 'setup done: the key is kept for this session only (nothing was written)', 'warning');
      return;
    }
    if (choice === 'quit') {
      services.exit(
        0,
        `keydeck: the management key ${keyPrefixOf(key)}… was not stored. Set KEYDECK_TOKEN to the key you saved ` +
          '(for example in your shell profile: export KEYDECK_TOKEN=<the mk_ key>) and run keydeck again.',
      );
      return;
    }
    setStep({ step: 'storing' });
    try {
      const where = await services.store.set(services.profile.name, key, { insecureStorage: true });
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
            initial={baseUrl ?? ''}
            placeholder="e.g. https://api.example.com"
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
            lines={['The token works. keydeck now creates a management key (mk_…) of its own, so the session token is never needed again.']}
            label="name"
            initial={`keydeck@${services.hostname}`}
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
            message={['keydeck stores it next: in the OS keychain when one answers, else you choose where. Keep a copy if you want to use it elsewhere: it cannot be shown again.']}
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
            onChoose={(c) => void choose(c)}
            compact={mode === 'compact'}
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
