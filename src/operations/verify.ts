/**
 * The verify of one USDC transfer (`POST /api/billing/verify-topup`), a machine of the kit
 * (./kit.ts, `verify`), driven by the TUI's USDC step and `keydeck billing verify` alike. Its
 * record is the top-up record (src/billing/journal.ts, whose declared moves every update checks);
 * what each step writes is src/billing/verifyUsdc.ts's.
 *
 * | step | what | its kit point | a kill after it leaves |
 * |------|------|---------------|------------------------|
 * | begin | the request looked up on record (a hash credited on record: nothing is sent), the `totalTopUp` baseline read, the record moved to `verifying` with the hash and that baseline (or made) | `verify.begin:recorded` | a verify in flight, perhaps never sent: the next verify of the same hash keeps that baseline |
 * | `verify` | the verify sent once, never retried | `verify.verify` | the same, its answer lost |
 * | its commit | the answer on record: `credited`, back to `awaiting_payment` (an instruction) or `refused` (a record of its own), still `verifying` (its outcome unknown) | `verify.verify:recorded` | done |
 *
 * Nothing is retried: a second verify is the user's, and finds the record by its hash (one
 * instruction is one record).
 */
import type { VerifiedTopUp } from '../api/schemas.js';
import type { JournalEntry } from '../billing/journal.js';
import { recordVerify, verifyAnswerOnRecord, type VerifyOnItsWay, type VerifyOutcome, type VerifyRequest } from '../billing/verifyUsdc.js';
import type { TopUpClient, TopUpPorts } from '../billing/topUpPorts.js';
import { isFailpointHalt } from '../failpoints/index.js';
import { DriveMemo, drive, step, type KitContext, type Machine, type Next } from './kit.js';

/** What a verify reads and writes; `failpoints`: its steps' (src/failpoints `failpointsFrom`: crash walks only). */
export interface VerifyPorts extends TopUpPorts, Pick<KitContext, 'failpoints' | 'emit'> {
  readonly client: TopUpClient;
}

/**
 * Verifies the USDC transfer `request.txHash` of `request.amount` USD once (the module's table).
 * Never throws for the service's or the record's failures: they are outcomes; the kit's `crashed`
 * (crash walks only) goes through.
 */
export async function verifyUsdc(ports: VerifyPorts, request: VerifyRequest): Promise<VerifyOutcome> {
  return drive(verifyMachine, { ports, failpoints: ports.failpoints, emit: ports.emit }, { plan: request }, 'run', undefined);
}

interface VerifyContext extends KitContext {
  readonly ports: VerifyPorts;
}

/** The operation: the record on its way, and what was asked. */
interface VerifyOp extends VerifyOnItsWay {
  readonly id: string;
  readonly request: VerifyRequest;
}

class VerifyMemo extends DriveMemo<undefined> {
  outcome: VerifyOutcome | undefined;
}

type Sent = { readonly verified: VerifiedTopUp } | { readonly error: unknown };

const verifyMachine: Machine<VerifyOp, VerifyContext, VerifyRequest, undefined, VerifyMemo, VerifyOutcome> = {
  name: 'verify',
  kind: 'verify',
  memo: (mode, input) => new VerifyMemo(mode, input),
  label: () => 'verify',

  async begin(ctx, request) {
    const onItsWay = await recordVerify(ctx.ports, request);
    if ('outcome' in onItsWay) return { stop: onItsWay.outcome };
    return { ...onItsWay, id: onItsWay.entry.id, request };
  },

  async next(ctx, op, memo): Promise<Next<VerifyOp, VerifyOutcome>> {
    if (memo.done.has('verify')) return { stop: memo.outcome! };
    const { ports } = ctx;
    const txHash = op.request.txHash.trim().toLowerCase();
    return {
      step: step<VerifyOp, Sent>(
        'verify',
        async () => {
          try {
            return { verified: await ports.client.billing.verifyTopUp({ txHash, amount: op.request.amount }) };
          } catch (error) {
            if (isFailpointHalt(error)) throw error;
            return { error };
          }
        },
        async (sent) => {
          memo.outcome = await verifyAnswerOnRecord(ports, op, op.request.amount, sent);
          const entry: JournalEntry = memo.outcome.kind === 'not_sent' ? op.entry : memo.outcome.entry;
          return entry === op.entry ? op : { ...op, entry };
        },
      ),
    };
  },
};
