/**
 * Minting the key of a subscription or pool pledge that has none, from the Keys pane's `n`
 *: which one (or a new credit key instead) is chosen first, then the key's name, then
 * the same creation and delivery flow as a credit key (../delivery/CreateKeyFlow.tsx: where it
 * goes, shown once until acknowledged, `POST /api/keys/subscription` sent once). Before the name
 * is asked, src/billing/pledges.ts `mintRefusal` is consulted again on lists read afresh (`refusal`):
 * a subscription that got its key meanwhile (another terminal, the dashboard) is refused with the
 * reason, nothing sent.
 */
import { useState } from 'react';
import type { KeylessSubscription } from '../../../billing/pledges.js';
import { keyNameProblem, type ConsumptionKey } from '../../../api/schemas.js';
import { visible } from '../../../terminal/sanitize.js';
import { Text } from 'ink';
import { ChoiceDialog } from '../../components/ChoiceDialog.js';
import { Dialog } from '../../components/Dialog.js';
import { NameTakenDialog } from '../../components/NameTakenDialog.js';
import { NoticeDialog } from '../../components/NoticeDialog.js';
import { PromptDialog } from '../../components/PromptDialog.js';
import { CreateKeyFlow } from '../delivery/CreateKeyFlow.js';

/** Props of {@link PledgeMintFlow}. */
export interface PledgeMintFlowProps {
  /** The subscriptions and pledges without a key (at least one). */
  readonly keyless: readonly KeylessSubscription[];
  /** Why a key must not be minted for `id` now (the lists read afresh), or undefined. */
  readonly refusal: (id: string) => Promise<string | undefined>;
  /** The user chose a credit key instead (the pane's own `n` flow). */
  readonly onCredit: () => void;
  /** The flow is over; `id` of the key created, if one was. */
  readonly onDone: (id?: string) => void;
  /** The key that already has `name`, if one does: asked about before anything is sent. */
  readonly takenBy?: (name: string) => ConsumptionKey | undefined;
  readonly columns: number;
  readonly rows: number;
}

/** `pool pledge kimi26 (asia, europe) · id 1f…`, for people (sanitised). */
export function keylessLabel(k: KeylessSubscription): string {
  const what = k.kind === 'pledge' ? `pool pledge ${k.what ?? ''}` : `subscription ${k.what ?? ''}`;
  const blocks = k.blocks && k.blocks.length > 0 ? ` (${k.blocks.join(', ')})` : '';
  return visible(`${what.trim()}${blocks} · id ${k.id}`);
}

/** A default name for the key of `k`: `kimi26-europe`, `pro-key` (letters, digits and `-` only). */
export function defaultMintName(k: KeylessSubscription): string {
  const base = [k.what ?? k.kind, ...(k.blocks && k.blocks.length < 3 ? k.blocks : [])].join('-');
  const clean = base
    .replace(/[^A-Za-z0-9_-]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 60);
  return clean === '' ? 'subscription-key' : clean;
}

type Step =
  | { kind: 'choose' }
  | { kind: 'checking' }
  | { kind: 'refused'; reason: string }
  | { kind: 'name'; sub: KeylessSubscription; initial?: string }
  | { kind: 'taken'; sub: KeylessSubscription; name: string; taken: ConsumptionKey }
  | { kind: 'create'; sub: KeylessSubscription; name: string };

/** See the module comment. */
export function PledgeMintFlow(props: PledgeMintFlowProps) {
  const [step, setStep] = useState<Step>({ kind: 'choose' });
  const area = { columns: props.columns, rows: props.rows };
  switch (step.kind) {
    case 'choose':
      return (
        <ChoiceDialog
          {...area}
          title="New key"
          message={[
            props.keyless.length === 1
              ? 'A subscription has no key yet. Mint its key, or create a credit key?'
              : `${props.keyless.length} subscriptions have no key yet. Mint one’s key, or create a credit key?`,
            'A subscription key works during its reserved hours; its full value is shown once.',
          ]}
          choices={[...props.keyless.map((k) => `mint the key of ${keylessLabel(k)}`), 'a new credit key (draws on the shared balance)']}
          onChoose={(i) => {
            const sub = props.keyless[i];
            if (!sub) return props.onCredit();
            setStep({ kind: 'checking' });
            void props.refusal(sub.id).then((reason) => setStep(reason ? { kind: 'refused', reason } : { kind: 'name', sub }));
          }}
          onCancel={() => props.onDone()}
        />
      );
    case 'checking':
      return (
        <Dialog {...area} title="New key">
          <Text>checking that the subscription has no key yet…</Text>
        </Dialog>
      );
    case 'refused':
      return <NoticeDialog {...area} title="Not minted" message={[`${visible(step.reason)}. Nothing was sent.`]} onClose={() => props.onDone()} />;
    case 'name':
      return (
        <PromptDialog
          {...area}
          title={`Key for ${keylessLabel(step.sub)}`}
          message={['One active key per subscription: this is its key.']}
          label="name"
          defaultValue={step.initial ?? defaultMintName(step.sub)}
          validate={keyNameProblem}
          onSubmit={(name) => {
            const taken = props.takenBy?.(name);
            setStep(taken ? { kind: 'taken', sub: step.sub, name, taken } : { kind: 'create', sub: step.sub, name });
          }}
          onCancel={() => props.onDone()}
        />
      );
    case 'taken':
      return (
        <NameTakenDialog
          {...area}
          name={step.name}
          taken={step.taken}
          action="create"
          onConfirm={() => setStep({ kind: 'create', sub: step.sub, name: step.name })}
          onCancel={() => setStep({ kind: 'name', sub: step.sub, initial: step.name })}
        />
      );
    case 'create':
      return <CreateKeyFlow {...area} name={step.name} subscription={{ id: step.sub.id, label: keylessLabel(step.sub) }} onDone={props.onDone} onZeroBalance={() => props.onDone()} />;
  }
}
