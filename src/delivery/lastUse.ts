/**
 * Is the old key still used? (step 4 of a rotation.) The evidence is the key's
 * `lastUsedAt` on `GET /api/keys` (the newer documentation pages show it on list entries; the
 * seed does not, and then keydeck says it cannot tell). A key counts as idle once it has not been
 * used for `idleForMs` by the service's clock (this machine's corrected by the client's
 * `serviceClockOffsetMs`, from the HTTP `Date`).
 * Reading the list spends no usage-read budget.
 */
import type { KeysResource } from '../api/client.js';
import type { ConsumptionKey } from '../api/schemas.js';

/** Default quiet time after which a key counts as idle, ms (`--idle-for`). */
export const DEFAULT_IDLE_FOR_MS = 60_000;
/** Default bound of `--wait-idle`, ms. */
export const DEFAULT_WAIT_IDLE_MS = 15 * 60_000;
/** Time between two reads of the list while waiting, ms. */
export const IDLE_POLL_MS = 2_000;

/** What is known of a key's last use. */
export type LastUse =
  /** The service does not send `lastUsedAt`. */
  | { readonly known: false }
  /** Never used (`lastUsedAt: null`). */
  | { readonly known: true; readonly at: null }
  /** Last used at `at` (epoch ms), `agoMs` before `now`. */
  | { readonly known: true; readonly at: number; readonly agoMs: number };

/** The {@link LastUse} of `key` at `now` (epoch ms, the service's clock). */
export function lastUseOf(key: Pick<ConsumptionKey, 'lastUsedAt'>, now: number): LastUse {
  if (key.lastUsedAt === undefined) return { known: false };
  if (key.lastUsedAt === null) return { known: true, at: null };
  const at = Date.parse(key.lastUsedAt);
  if (Number.isNaN(at)) return { known: false };
  return { known: true, at, agoMs: Math.max(0, now - at) };
}

/** `4 s`, `3 min`, `2 h`, `5 days`: a short duration for messages. */
export function shortDuration(ms: number): string {
  const s = Math.round(ms / 1000);
  if (s < 90) return `${s} s`;
  if (s < 90 * 60) return `${Math.round(s / 60)} min`;
  if (s < 36 * 3600) return `${Math.round(s / 3600)} h`;
  return `${Math.round(s / 86_400)} days`;
}

/** The last use in words: `last used 4 s ago`, `never used`, `the service does not say when it was last used`. */
export function describeLastUse(use: LastUse): string {
  if (!use.known) return 'the service does not say when it was last used';
  if (use.at === null) return 'never used';
  return `last used ${shortDuration(use.agoMs)} ago (${new Date(use.at).toISOString().replace(/\.\d+Z$/, 'Z')})`;
}

/** A sentence (no final period) on `label`'s last use: `the old key "web" was last used 4 s ago (…)`, `… was never used`, `the service does not say when … was last used`. */
export function lastUseSentence(label: string, use: LastUse): string {
  return use.known ? `${label} was ${describeLastUse(use)}` : `the service does not say when ${label} was last used`;
}

/** True when `use` shows a key unused for at least `idleForMs` (never used counts as idle). */
export function isIdle(use: LastUse, idleForMs: number): boolean {
  return use.known && (use.at === null || use.agoMs >= idleForMs);
}

/** True when `use` shows a use after `sinceMs` (epoch ms): the key is still in use after the handover. */
export function usedSince(use: LastUse, sinceMs: number): boolean {
  return use.known && use.at !== null && use.at > sinceMs;
}

/** The result of {@link waitUntilIdle}. */
export interface IdleWait {
  /** True when it became idle; false when the bound passed first, or the last use cannot be read. */
  readonly idle: boolean;
  readonly lastUse: LastUse;
  /** True when the key is no longer listed (deleted elsewhere). */
  readonly gone?: boolean;
}

/** Options of {@link waitUntilIdle}. */
export interface IdleWaitOptions {
  readonly idleForMs: number;
  /** Give up after this long, ms. */
  readonly boundMs: number;
  /** Default {@link IDLE_POLL_MS}. */
  readonly pollMs?: number;
  /** Told after each read (for a countdown or a live line). */
  readonly onPoll?: (use: LastUse, waitedMs: number) => void;
  readonly signal?: AbortSignal;
}

/**
 * Reads the key list every `pollMs` until the key `id` is idle ({@link isIdle}), the bound
 * passes, or the service turns out not to send `lastUsedAt` (then at once: `idle` false).
 * A failed read is retried at the next poll (the client already retried it).
 * @throws the AbortError of `signal`
 */
export async function waitUntilIdle(
  client: { readonly keys: Pick<KeysResource, 'list'>; readonly serviceClockOffsetMs?: number | undefined },
  id: string,
  options: IdleWaitOptions,
): Promise<IdleWait> {
  const started = Date.now();
  const pollMs = options.pollMs ?? IDLE_POLL_MS;
  let lastUse: LastUse = { known: false };
  for (;;) {
    options.signal?.throwIfAborted();
    try {
      const key = (await client.keys.list(options.signal ? { signal: options.signal } : undefined)).find((k) => k.id === id);
      if (!key) return { idle: true, lastUse, gone: true };
      lastUse = lastUseOf(key, Date.now() + (client.serviceClockOffsetMs ?? 0));
      options.onPoll?.(lastUse, Date.now() - started);
      if (!lastUse.known) return { idle: false, lastUse };
      if (isIdle(lastUse, options.idleForMs)) return { idle: true, lastUse };
    } catch (err) {
      if (options.signal?.aborted) throw err;
    }
    if (Date.now() - started >= options.boundMs) return { idle: false, lastUse };
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(resolve, Math.min(pollMs, Math.max(0, options.boundMs - (Date.now() - started))) || 1);
      options.signal?.addEventListener('abort', () => (clearTimeout(timer), reject(options.signal!.reason)), { once: true });
    });
  }
}
