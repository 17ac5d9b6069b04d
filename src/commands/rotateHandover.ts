/**
 * The handover of `keydeck keys rotate`: once the successor is delivered, the grace period
 * (`--grace`), the old key's last use (`lastUsedAt`), the wait until it is idle (`--wait-idle`,
 * bounded), and what becomes of it (`--old`, else asked): the user's word, which ./keys-rotate.ts
 * gives the machine (src/operations/rotateKey.ts). A key still in use after the successor was
 * delivered is not deactivated or deleted without the user's word (a terminal's answer, or
 * `--yes`). Stopping keydeck anywhere here leaves the rotation recorded at `delivered`:
 * `--finish` takes it up again. Nothing here changes the world: it reads and waits.
 */
import parseDuration from 'parse-duration';
import { describeLastUse, isIdle, lastUseOf, lastUseSentence, shortDuration, usedSince, waitUntilIdle, type LastUse } from '../delivery/lastUse.js';
import { serviceNowOf, type RotationClient } from '../delivery/rotation.js';
import { oldName, OldKeyActionSchema, sentence, type OldKeyAction, type Rotation } from '../operations/index.js';
import { visible } from '../terminal/sanitize.js';
import { say } from './keyDelivery.js';
import type { OldKeyUsage } from './rotateUsage.js';
import { askLine, canPrompt, ExitCode, fail } from './output.js';
import { keyWords } from './wordingKeys.js';

/** The handover flags. */
export interface HandoverFlags {
  /** `--old deactivate|delete|keep`. */
  readonly old?: string;
  /** `--grace DURATION`. */
  readonly grace?: string;
  /** `--wait-idle [BOUND]`: true for the default bound. */
  readonly waitIdle?: string | boolean;
  /** `--idle-for DURATION`. */
  readonly idleFor?: string;
  readonly yes?: boolean;
  readonly json?: boolean;
}

/** Longest `--grace`, `--wait-idle` or `--idle-for` accepted: 7 days, ms. */
const MAX_DURATION_MS = 7 * 86_400_000;

/**
 * A duration flag (`90s`, `10m`, `1h30m`, `0`) in ms, by the `parse-duration` package; a unit is
 * required (a bare number other than 0 is refused, as `10` could mean seconds or minutes).
 * @throws CommandFailure exit 2 naming the flag
 */
export function durationFlag(flag: string, text: string): number {
  const t = text.trim();
  const ms = t === '0' ? 0 : /[a-z]/i.test(t) ? parseDuration(t) : null;
  if (ms === null || ms === undefined || !Number.isFinite(ms) || ms < 0 || ms > MAX_DURATION_MS) {
    fail(ExitCode.usage, keyWords.invalidRequestTakesDurationWith, { flag, text });
  }
  return Math.round(ms);
}

/**
 * `--old` checked.
 * @throws CommandFailure exit 2 for another word
 */
export function oldActionFlag(text: string | undefined): OldKeyAction | undefined {
  if (text === undefined) return undefined;
  const parsed = OldKeyActionSchema.safeParse(text.trim().toLowerCase());
  if (!parsed.success) fail(ExitCode.usage, keyWords.invalidRequestOldTakesDeactivate, { text });
  return parsed.data;
}

/** Asks what to do with the old key on the terminal: `deactivate`, `delete` or `keep` (enter keeps it). */
async function askOldAction(rotation: Rotation, use: LastUse): Promise<OldKeyAction> {
  for (;;) {
    const answer = (
      await askLine(
        `The successor is in place. ${sentence(lastUseSentence(`the old key "${oldName(rotation)}"`, use))} ` +
          'Deactivate it (reversible), delete it (permanent) or keep it? [deactivate/delete/KEEP] ',
      )
    ).toLowerCase();
    if (answer === '' || answer === 'k' || answer === 'keep') return 'keep';
    if (answer === 'deactivate' || answer === 'd') return 'deactivate';
    if (answer === 'delete') return 'delete';
  }
}

/** Waits until `untilMs` (epoch ms), saying so once. */
async function waitGrace(rotation: Rotation, json: boolean): Promise<void> {
  const until = rotation.graceUntil ? Date.parse(rotation.graceUntil) : Number.NaN;
  const left = until - Date.now();
  if (!(left > 0)) return;
  say(`Waiting ${shortDuration(left)} (--grace) before handling the old key; stopping keydeck now leaves the rotation recorded (keydeck keys rotate --finish).`, json);
  await new Promise((resolve) => setTimeout(resolve, left));
}

/** What {@link handover} decided, for the machine and `--json`. */
export interface HandoverResult {
  readonly action: OldKeyAction;
  readonly lastUse: LastUse;
}

/** The handover's options: its flags, and the old key's usage figures. */
export type HandoverOptions = HandoverFlags & { idleForMs: number; waitIdleMs?: number; usage?: (keyId: string, deliveredAt: number) => Promise<OldKeyUsage> };

/**
 * The user's word on the old key of a rotation at `delivered` (see the module comment).
 * @throws CommandFailure exit 1 `still_in_use` (the bound of `--wait-idle` passed, or the key is in
 *   use without `--yes` and without a terminal) or `idle_unknown` (`--wait-idle` where the service
 *   sends no `lastUsedAt`, unless the old key is kept): the old key is left as it is and the
 *   rotation stays recorded
 */
export async function handover(client: RotationClient, rotation: Rotation, flags: HandoverOptions): Promise<HandoverResult> {
  const json = flags.json === true;
  const finishHint = `the rotation stays recorded: run \`keydeck keys rotate --finish ${rotation.old.id}\` once whatever uses it has switched`;
  await waitGrace(rotation, json);
  const read = async (): Promise<LastUse> => {
    const key = (await client.keys.list()).find((k) => k.id === rotation.old.id);
    return key ? lastUseOf(key, serviceNowOf(client)) : { known: false };
  };
  let use = await read();
  say(sentence(lastUseSentence(`the old key "${visible(oldName(rotation))}"`, use)), json);
  const deliveredAt = rotation.deliveredAt ? Date.parse(rotation.deliveredAt) : Date.now();
  let inUse = usedSince(use, deliveredAt) && !isIdle(use, flags.idleForMs);
  // The spend figures (src/billing/usageReads.ts), where the service has them: context, and the only evidence of
  // use when the service does not send lastUsedAt.
  const usage = await flags.usage?.(rotation.old.id, deliveredAt);
  for (const line of usage?.lines ?? []) say(line, json);
  if (usage?.spending && !use.known) inUse = true;
  if (flags.waitIdle !== undefined && flags.waitIdleMs !== undefined) {
    if (!use.known) {
      // Never by guessing: without lastUsedAt nothing says the key is idle, so it is not handled.
      if (rotation.oldAction !== 'keep') {
        fail(ExitCode.refused, keyWords.idleUnknown, { oldName: oldName(rotation), finishHint });
      }
    } else if (!isIdle(use, flags.idleForMs)) {
      say(`Waiting until it has not been used for ${shortDuration(flags.idleForMs)} (at most ${shortDuration(flags.waitIdleMs)}, --wait-idle)…`, json);
      const waited = await waitUntilIdle(client, rotation.old.id, { idleForMs: flags.idleForMs, boundMs: flags.waitIdleMs });
      use = waited.lastUse;
      if (!waited.idle) {
        fail(ExitCode.refused, keyWords.stillInUseOldKeyAfter, { oldName: oldName(rotation), use, waitIdleMs: flags.waitIdleMs, finishHint });
      }
      say(`It is idle: ${describeLastUse(use)}.`, json);
      inUse = false;
    } else {
      inUse = false;
    }
  }
  if (rotation.oldAction === undefined && !canPrompt()) {
    fail(ExitCode.usage, keyWords.oldKeyUnasked, { finishHint });
  }
  const action = rotation.oldAction ?? (await askOldAction(rotation, use));
  if (inUse && action !== 'keep' && !flags.yes) {
    const question = `The old key is still in use: ${use.known ? `it was ${describeLastUse(use)}` : 'its usage figures show spend'}, after the successor was delivered. ${action === 'delete' ? 'Delete' : 'Deactivate'} it anyway? [y/N] `;
    if (!canPrompt() || !/^y(es)?$/i.test(await askLine(question))) {
      fail(ExitCode.refused, keyWords.stillInUseAfterSuccessorDelivered, { oldName: oldName(rotation), use, finishHint });
    }
  }
  return { action, lastUse: use };
}
