/**
 * Minting the key of a subscription or pool pledge that has none, from the Keys pane's `n`
 * (issue 23): which one (or a new credit key instead) is chosen first, then the key's name, then
 * the same creation and delivery flow as a credit key (../delivery/CreateKeyFlow.tsx: where it
 * goes, shown once until acknowledged, `POST /api/keys/subscription` sent once). Before the name
 * is asked, src/billing/pledges.ts `mintRefusal` is consulted again on the current lists: a
 * subscription that got its key meanwhile is refused with the reason, nothing sent.
 */
import { useState } from 'react';
import type { KeylessSubscription } from '../../../billing/pledges.js';
import { keyNameProblem } from '../../../api/schemas.js';
import { visible } from '../../../terminal/sanitize.js';
import { ChoiceDialog } from '../../components/ChoiceDialog.js';
import { NoticeDialog } from '../../components/NoticeDialog.js';
import { PromptDialog } from '../../components/PromptDialog.js';
import { CreateKeyFlow } from '../delivery/CreateKeyFlow.js';

/** Props of {@link PledgeMintFlow}. */
export interface PledgeMintFlowProps {
  /** The subscriptions and pledges without a key (at least one). */
  readonly keyless: readonly KeylessSubscription[];
  /** Why a key must not be minted for `id` now (the current lists), or undefined. */
  readonly refusal: (id: string) => string | undefined;
  /** The user chose a credit key instead (the pane's own `n` flow). */
  readonly onCredit: () => void;
  /** The flow is over; `id` of the key created, if one was. */
  readonly onDone: (id?: string) => void;
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
  const clean = base.replace(/[^A-Za-z0-9_-]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 60);
  return clean === '' ? 'subscription-key' : clean;
}

type Step = { kind: 'choose' } | { kind: 'refused'; reason: string } | { kind: 'name'; sub: KeylessSubscription } | { kind: 'create'; sub: KeylessSubscription; name: string };

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
            props.keyless.length === 1 ? 'A subscription has no key yet. Mint its key, or create a credit key?' : `${props.keyless.length} subscriptions have no key yet. Mint one’s key, or create a credit key?`,
            'A subscription key works during its reserved hours; its full value is shown once.',
          ]}
          choices={[...props.keyless.map((k) => `mint the key of ${keylessLabel(k)}`), 'a new credit key (draws on the shared balance)']}
          onChoose={(i) => {
            const sub = props.keyless[i];
            if (!sub) return props.onCredit();
            const reason = props.refusal(sub.id);
            setStep(reason ? { kind: 'refused', reason } : { kind: 'name', sub });
          }}
          onCancel={() => props.onDone()}
        />
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
          defaultValue={defaultMintName(step.sub)}
          validate={keyNameProblem}
          onSubmit={(name) => setStep({ kind: 'create', sub: step.sub, name })}
          onCancel={() => props.onDone()}
        />
      );
    case 'create':
      return <CreateKeyFlow {...area} name={step.name} subscription={{ id: step.sub.id, label: keylessLabel(step.sub) }} onDone={props.onDone} onZeroBalance={() => props.onDone()} />;
  }
}
