/**
 * Step 3, USDC on Base (the service's endpoints verify-topup): the deposit address (full, EIP-55), the chain,
 * the exact amount, a warning to send USDC on Base only, and a QR code of the EIP-681 payment
 * request; `c` copies the address, `a` the amount. Then the transaction hash is pasted (checked
 * as `0x` + 64 hex while typed) and verified with the same amount; each refusal is explained.
 * With a sandbox, `s` simulates the transfer. Where the chain is read the deposit
 * address is watched: transfers found there are listed and `f` verifies the selected one (`tab`
 * selects the next); a mismatch the chain shows before a verify is asked about (`y` sends anyway).
 */
import { visible } from '../../../terminal/sanitize.js';
import { useMemo, useState } from 'react';
import { Box, Text } from 'ink';
import { BASE_CHAIN_ID, foundTransferLine, shortAddress, USDC_BASE_CONTRACT, usdcTransferUri } from '../../../billing/eip681.js';
import { stateLabel, topUpPhase, type JournalEntry } from '../../../billing/journal.js';
import { useKeymap } from '../../contexts/KeymapContext.js';
import { displayWidth } from '../../format.js';
import { TextField, useTextField } from '../../components/TextField.js';
import { symbols, theme } from '../../theme.js';
import { FlowMessageView } from './FlowMessageView.js';
import type { FlowMessage, UsdcMode } from './flowState.js';
import { QrCode, qrCodeLines } from './QrCode.js';
import { parseUsdAmount, txHashProblem } from '../../../billing/input.js';
import type { ChainWatchView } from './useChainWatch.js';
import { formatUsd } from '../../../api/money.js';

/** Props of {@link UsdcStep}. */
export interface UsdcStepProps {
  readonly entry: JournalEntry;
  readonly mode: UsdcMode;
  readonly hashDraft?: string | undefined;
  readonly message?: FlowMessage | undefined;
  readonly busy?: string | undefined;
  readonly canSimulate: boolean;
  readonly onMode: (mode: UsdcMode) => void;
  readonly onCopy: (text: string, what: string) => void;
  readonly onVerify: (hash: string) => void;
  /** What the chain shows at the deposit address; absent: not read. */
  readonly chain?: ChainWatchView;
  /** After a mismatch the chain showed: send the verify of the hash all the same. */
  readonly onSendAnyway?: () => void;
  readonly onAmountSent: (amount: number) => void;
  readonly onSimulate: () => void;
  readonly onAbandon: () => void;
  readonly onLeave: () => void;
  readonly columns: number;
  readonly rows: number;
}

/** Width of the text column beside the QR code, in cells. */
const TEXT_COLUMNS = 60;
/** Transfers found on chain listed at once (tab moves through all of them). */
const FOUND_ROWS = 3;

/** The EIP-681 URI of the entry's transfer, or the reason it cannot be made. */
export function paymentUriOf(entry: Pick<JournalEntry, 'address' | 'instructedAmount' | 'amount'>): { uri: string } | { problem: string } {
  if (!entry.address) return { problem: 'no deposit address was given' };
  try {
    return { uri: usdcTransferUri({ address: entry.address, amount: entry.instructedAmount ?? entry.amount }) };
  } catch (error) {
    return { problem: (error as Error).message };
  }
}

/** See the module comment. */
export function UsdcStep(props: UsdcStepProps) {
  const { entry, mode, columns, rows } = props;
  const amountText = entry.instructedAmount ?? String(entry.amount);
  // The checksum (keccak) and the QR symbol are computed once per address and amount, not per
  // render: the entry is a new object at each read of the record, its fields are not.
  const { address, instructedAmount, amount } = entry;
  const payment = useMemo(() => paymentUriOf({ address, instructedAmount, amount }), [address, instructedAmount, amount]);
  const qrRows = useMemo(() => ('uri' in payment ? qrCodeLines(payment.uri) : undefined), [payment]);
  const qr = qrRows && { columns: qrRows[0]?.length ?? 0, rows: qrRows.length };
  const idle = props.busy === undefined;
  const main = mode === 'main' && idle;
  const credited = entry.state === 'credited';
  // Nothing invites paying twice once a transfer was named for it (I4).
  const phase = topUpPhase(entry);
  const found = props.chain?.transfers ?? [];
  // The selection is a transfer, not a place in the list: when the watch adds or drops one, the
  // marker stays on the same transfer (else the first). Several keys in one read (tab tab f) each
  // meet the selection the key before left (the input layer waits for its commit).
  const [selectedHash, setSelectedHash] = useState<string | undefined>(undefined);
  const at = Math.max(
    0,
    found.findIndex((t) => t.txHash === selectedHash),
  );
  const pick = found[at];
  // At most FOUND_ROWS rows, the selected one always among them.
  const first = Math.max(0, Math.min(at - 1, found.length - FOUND_ROWS));

  useKeymap(
    'topup',
    main
      ? {
          'topup.copyAddress': entry.address ? () => props.onCopy(entry.address!, 'deposit address') : undefined,
          'topup.copyAmount': () => props.onCopy(amountText, 'amount'),
          'topup.hash': credited ? undefined : () => props.onMode('hash'),
          'topup.verifyFound': pick && !credited ? () => props.onVerify(pick.txHash) : undefined,
          'topup.nextFound': found.length > 1 ? () => setSelectedHash(found[(at + 1) % found.length]!.txHash) : undefined,
          'topup.simulate': props.canSimulate && !entry.txHash && entry.address ? props.onSimulate : undefined,
          'topup.qr': qr ? () => props.onMode('qr') : undefined,
          'topup.editAmount': entry.reasonCode === 'amount_mismatch' ? () => props.onMode('amountSent') : undefined,
          'topup.abandon': credited ? undefined : props.onAbandon,
          'topup.leave': props.onLeave,
        }
      : mode === 'qr'
        ? { 'topup.qr': () => props.onMode('main'), 'topup.back': () => props.onMode('main') }
        : mode === 'chainConfirm' && idle
          ? { 'topup.sendAnyway': props.onSendAnyway, 'topup.dontSend': () => props.onMode('main') }
          : {},
    { modal: true, active: mode !== 'hash' && mode !== 'amountSent' },
  );

  if (mode === 'qr') {
    // The words under the code, whole: the long form where its lines fit under the code,
    // else the short one; the notice of a code that does not fit wraps.
    const long = `Scan with a wallet: ${visible(amountText)} USDC (token ${USDC_BASE_CONTRACT}) on Base to ${entry.address ?? '?'} · v or esc back`;
    const short = `Scan with a wallet: ${visible(amountText)} USDC on Base to ${entry.address ?? '?'} · v or esc back`;
    const linesOf = (text: string) => Math.ceil(displayWidth(text) / Math.max(1, columns));
    const caption = qr !== undefined && qr.rows + linesOf(long) <= rows ? long : short;
    const fits = qr !== undefined && qr.columns <= columns && qr.rows + linesOf(caption) <= rows;
    return (
      <Box width={columns} height={rows} flexDirection="column" alignItems="center" justifyContent="center">
        {fits && qrRows ? <QrCode lines={qrRows} /> : null}
        <Text wrap="wrap">{fits ? caption : `The QR code needs ${qr?.columns ?? '?'}×${(qr?.rows ?? 0) + 1} cells; this area is ${columns}×${rows}: enlarge the terminal. v or esc back`}</Text>
      </Box>
    );
  }

  const side = qr !== undefined && columns >= TEXT_COLUMNS + 2 + qr.columns && rows >= qr.rows;
  const textWidth = side ? TEXT_COLUMNS : columns - 2;
  const details = (
    <Box flexDirection="column" width={textWidth} flexShrink={0}>
      <Text bold wrap="truncate">{`Top up · 3/3 pay · USDC on Base · ${formatUsd(entry.amount)} · ${stateLabel(entry.state)}`}</Text>
      <Text wrap="truncate">
        {phase === 'pay' ? 'Send exactly  ' : 'Amount        '}
        <Text bold>{`${visible(amountText)} USDC`}</Text>
        {entry.amountSent !== undefined ? <Text color={theme.muted}>{` (verifying for ${formatUsd(entry.amountSent)})`}</Text> : null}
      </Text>
      {phase === 'verify' || phase === 'verifying' ? (
        <Text color={theme.warning} wrap="wrap">
          {phase === 'verifying'
            ? `${symbols.warning} A verification of the transfer below was sent; its outcome is not known yet: verify it again (h, enter). Do not send again.`
            : `${symbols.warning} A transfer was named for this top-up (below): verify it again, or give its right hash. Do not send again.`}
        </Text>
      ) : null}
      <Text wrap="truncate">
        {'To address    '}
        <Text bold color={theme.accent}>
          {entry.address ?? '(none given)'}
        </Text>
      </Text>
      <Text wrap="truncate">{`Network       Base (chain id ${BASE_CHAIN_ID}) · token USDC ${shortAddress(USDC_BASE_CONTRACT)}`}</Text>
      <Text color={theme.warning} wrap="wrap">{`${symbols.warning} Send USDC on the Base network only: another token or network cannot be credited.`}</Text>
      {/* The hash whole where it fits, else its two ends around a "…" (never cut at the end). */}
      <Text wrap="truncate">{`Transaction   ${entry.txHash === undefined ? 'not given yet' : 14 + entry.txHash.length <= textWidth ? entry.txHash : `${entry.txHash.slice(0, 14)}…${entry.txHash.slice(-12)}`}`}</Text>
      {'problem' in payment ? <Text color={theme.danger} wrap="wrap">{`✕ ${payment.problem}`}</Text> : null}
      {props.chain?.status !== undefined && !credited ? <Text color={theme.muted} wrap="truncate">{`On chain      ${visible(props.chain.status)}`}</Text> : null}
      {found.slice(first, first + FOUND_ROWS).map((t) => (
        <Text key={t.txHash} wrap="truncate" {...(t === pick && { bold: true })}>
          {`${t === pick ? '›' : ' '} found       ${foundTransferLine(t, { narrow: true })}`}
        </Text>
      ))}
      {found.length > FOUND_ROWS ? <Text color={theme.muted}>{`  ${at + 1} of ${found.length} found (tab selects the next)`}</Text> : null}
      {mode === 'hash' ? <HashField initial={props.hashDraft ?? ''} onSubmit={props.onVerify} onCancel={() => props.onMode('main')} /> : null}
      {mode === 'amountSent' ? <AmountSentField onSubmit={props.onAmountSent} onCancel={() => props.onMode('main')} /> : null}
      <FlowMessageView message={props.message} />
      {idle ? null : <Text color={theme.accent}>{`… ${props.busy}`}</Text>}
      {main ? (
        <Text color={theme.muted} wrap="wrap">
          {credited
            ? 'This top-up is credited. esc leaves.'
            : `${pick ? `f verifies the transfer found on chain${found.length > 1 ? ' (tab: next)' : ''}, or h` : 'Then h'}: paste the transaction hash to verify it.${qr && !side ? ` v shows the QR code (${qr.columns}×${qr.rows + 1} cells).` : ''} esc leaves; the top-up stays open.`}
        </Text>
      ) : null}
    </Box>
  );
  if (!side || !('uri' in payment))
    return (
      <Box width={columns} height={rows} flexDirection="column" paddingX={1}>
        {details}
      </Box>
    );
  return (
    <Box width={columns} height={rows} paddingX={1} gap={2}>
      {details}
      <QrCode lines={qrRows!} />
    </Box>
  );
}

/** The transaction-hash field: checked as typed; enter verifies, esc goes back. */
function HashField({ initial, onSubmit, onCancel }: { readonly initial: string; readonly onSubmit: (hash: string) => void; readonly onCancel: () => void }) {
  const field = useTextField(initial, { onPaste: pastedHash });
  const text = field.value;
  const problem = txHashProblem(text);
  useKeymap(
    'topup',
    {
      'topup.verify': () => {
        const live = field.current();
        if (!txHashProblem(live)) onSubmit(live);
      },
      'topup.back': onCancel,
    },
    { modal: true, textEntry: true },
  );
  return (
    <Box flexDirection="column">
      <Box>
        <Text>tx hash: </Text>
        <TextField field={field} placeholder="0x…" />
      </Box>
      <Text color={problem ? (text === '' ? theme.muted : theme.danger) : theme.ok} wrap="wrap">
        {problem ? `${text === '' ? '·' : '✕'} ${problem}` : '✓ a valid transaction hash: enter verifies it (sent once, never retried by itself) · esc back'}
      </Text>
    </Box>
  );
}

/**
 * What a paste into the hash field does: a pasted whole hash (surrounding blanks and line
 * breaks aside) replaces what the field held, so pasting a hash always gives that hash;
 * anything else is inserted at the cursor (undefined).
 */
export function pastedHash(text: string): string | undefined {
  const t = text.trim();
  return /^0x[0-9a-fA-F]{64}$/.test(t) ? t : undefined;
}

/** The "amount actually sent" field (after an amount mismatch). */
function AmountSentField({ onSubmit, onCancel }: { readonly onSubmit: (amount: number) => void; readonly onCancel: () => void }) {
  const field = useTextField('');
  const parsed = parseUsdAmount(field.value, 'transfer');
  useKeymap(
    'topup',
    {
      'topup.verify': () => {
        const live = parseUsdAmount(field.current(), 'transfer');
        if (live.ok) onSubmit(live.amount);
      },
      'topup.back': onCancel,
    },
    { modal: true, textEntry: true },
  );
  return (
    <Box flexDirection="column">
      <Box>
        <Text>amount you sent, USD: </Text>
        <TextField field={field} />
      </Box>
      <Text color={parsed.ok ? theme.ok : parsed.code === 'uncreditable' ? theme.danger : theme.muted} wrap="wrap">
        {parsed.ok ? 'enter saves it for the verification · esc back' : `${parsed.code === 'uncreditable' ? '✕' : '·'} ${parsed.reason}`}
      </Text>
    </Box>
  );
}
