/**
 * `keydeck key-info [--cached] [--json]`: a consumption key's own view, for people who
 * hold only an `sk_` (an app's on-call): `GET /v1/usage` with the key as the Bearer
 * (https://docs.cheapestinference.com/api/usage): its budget spent and limit, when it resets, its
 * rate limits, its plan, the account's balance.
 *
 * The key comes from `KEYDECK_SK`, else stdin (piped, or typed at a masked prompt on a
 * terminal), never from argv (a command line is seen by every user of the machine, and kept in
 * shell history); it is never stored, logged or echoed: output names it by its prefix
 * (`sk_` + 8) only, and the shared record of reads knows it by a one-way hash. The service's
 * origin is the profile's (or `--base-url`), as for every command.
 *
 * No page says `GET /v1/usage` counts against the 12 usage reads per 12 hours, so keydeck keeps
 * no budget of its own for it: it follows the service's own 429 and
 * `Retry-After` (no read until then; 60 s without one), and prints the last answer kept, with its
 * age, while it waits (or with `--cached`). The key may be `sk_…` or `sk-…` (the newer keys page).
 *
 * Exit codes: 0 printed; 1 refused (401 unknown key, 403 deactivated, 404 deleted, a 429 and
 * nothing kept); 2 bad usage (no key, not an `sk_`); 4 network.
 */
import { formatUsd, groupThousands } from '../api/money.js';
import { insecureHttpProblem } from '../api/baseUrl.js';
import { KeydeckClient } from '../api/client.js';
import { keyPrefixOf } from '../api/errors.js';
import { ConsumptionKeyValueSchema } from '../api/schemas.js';
import type { KeyInfo } from '../api/usageSchemas.js';
import { BalanceHistoryStore, originOf } from '../billing/historyStore.js';
import { credentialIdOf, UsageBudget } from '../billing/usageBudget.js';
import { keepsFigures, readKeyInfo } from '../billing/usageReads.js';
import { ageWords, durationWords } from '../billing/usageWords.js';
import { resolveProfile } from '../config/profile.js';
import { clientTimeoutFromEnv } from '../config/timeout.js';
import { printData, type JsonFlag } from './api-command.js';
import { askSecret, canPrompt, ExitCode, fail, printFormatted, readStdin, warn, type ExitCodeValue, type GlobalOptions } from './output.js';
import { colorEnabled, formatKeyValues, formatTimestamp, type Cell } from './table.js';
import { keyWords } from './wordingKeys.js';
import { accountWords } from './wordingAccount.js';

/** Flags of `key-info`. */
export interface KeyInfoFlags extends JsonFlag {
  readonly cached?: boolean;
}

/** Dependencies (tests): the environment, the history database, the key's source. */
export interface KeyInfoDeps {
  readonly env?: NodeJS.ProcessEnv;
  readonly openHistory?: () => BalanceHistoryStore;
  /** Reads the key when KEYDECK_SK is not set (default: stdin, or a masked prompt on a terminal). */
  readonly readKey?: () => Promise<string>;
}

/** Reads the `sk_`: KEYDECK_SK, else stdin. @throws CommandFailure exit 2 without one, or not an sk_ */
async function consumptionKey(env: NodeJS.ProcessEnv, deps: KeyInfoDeps): Promise<string> {
  let raw = env.KEYDECK_SK;
  if (raw === undefined || raw.trim() === '') {
    if (deps.readKey) raw = await deps.readKey();
    else if (canPrompt()) raw = await askSecret('Consumption key (sk_…), input hidden: ');
    else if (process.stdin.isTTY) fail(ExitCode.usage, keyWords.noConsumptionKey);
    else raw = (await readStdin()).split(/\r?\n/)[0] ?? '';
  }
  const key = raw.trim();
  if (key === '') fail(ExitCode.usage, keyWords.noConsumptionKey);
  if (!ConsumptionKeyValueSchema.safeParse(key).success) {
    // Never echoed: only what it starts like.
    fail(ExitCode.usage, keyWords.notConsumptionKey, { key });
  }
  return key;
}

/** `keydeck key-info`: see the module comment. */
export async function keyInfo(globals: GlobalOptions, flags: KeyInfoFlags = {}, deps: KeyInfoDeps = {}): Promise<ExitCodeValue> {
  const env = deps.env ?? process.env;
  const profile = await resolveProfile(globals, env);
  if (profile.baseUrl === undefined) fail(ExitCode.usage, accountWords.noBaseUrl, profile);
  const insecure = insecureHttpProblem(profile.baseUrl, globals.allowInsecureHttp === true);
  if (insecure !== undefined) fail(ExitCode.usage, insecure, 'insecure_http');
  const sk = await consumptionKey(env, deps);
  const prefix = keyPrefixOf(sk);
  let store: BalanceHistoryStore;
  try {
    store = deps.openHistory ? deps.openHistory() : BalanceHistoryStore.open({ env });
  } catch (error) {
    fail(ExitCode.refused, keyWords.usageRecordUnavailableKeyInfo, { error });
  }
  const client = new KeydeckClient({
    ...clientTimeoutFromEnv(env),
    baseUrl: profile.baseUrl,
    token: sk,
    ...(globals.allowInsecureHttp === true && { allowInsecureHttp: true }),
    credential: { label: `the consumption key ${prefix}… (KEYDECK_SK or stdin)`, whenRejected: 'check the key: it may have been deleted or mistyped' },
  });
  try {
    const origin = originOf(profile.baseUrl);
    const read = await readKeyInfo(client, { budget: new UsageBudget(store.database), credential: credentialIdOf(origin, sk), origin, mode: flags.cached ? 'kept' : 'demand' });
    if (read.error !== undefined && !keepsFigures(read.error)) throw read.error;
    const s = read.budget;
    const waitWords = s.blockedUntil !== undefined ? `the service asked to wait: the next read is allowed in ${durationWords(s.blockedUntil - s.now)}` : undefined;
    if (read.data === undefined || read.at === undefined) {
      if (read.error !== undefined) throw read.error;
      if (waitWords) fail(ExitCode.refused, keyWords.rateLimitedNothingKept, { prefix, waitWords });
      fail(ExitCode.refused, keyWords.notKept, { prefix });
    }
    if (read.error !== undefined) warn(`could not read new figures (${read.error instanceof Error ? read.error.message : String(read.error)}); these are from ${ageWords(read.at, s.now)}`);
    if (flags.json) {
      printData({
        service: read.data,
        derived: {
          keyPrefix: prefix,
          asOf: new Date(read.at).toISOString(),
          ageSeconds: Math.max(0, Math.round((s.now - read.at) / 1000)),
          fresh: read.fresh,
          ...(s.blockedUntil !== undefined && { nextReadAt: new Date(s.blockedUntil).toISOString() }),
        },
      });
    } else {
      const figures = `${read.fresh ? 'read just now' : `from ${ageWords(read.at, s.now)}`}${waitWords ? ` · ${waitWords}` : ''}`;
      printFormatted(formatKeyValues(keyInfoPairs(read.data, prefix, figures), { color: colorEnabled() }));
    }
    return ExitCode.ok;
  } finally {
    client.close();
    store.close();
  }
}

const money = (n: number | null | undefined): string | undefined => (n === null || n === undefined ? undefined : formatUsd(n));

/** The human block of `key-info`: key, budget, resets, rate limits, plan, balance, the figures' age. */
export function keyInfoPairs(info: KeyInfo, prefix: string, status: string): Array<[string, Cell]> {
  const pairs: Array<[string, Cell]> = [];
  const k = info.key;
  pairs.push(['key', `${prefix}…${k?.name ? ` "${k.name}"` : ''}${k?.type ? ` · ${k.type} key` : ''}${k?.created_at ? ` · created ${formatTimestamp(k.created_at)}` : ''}`]);
  const b = info.budget;
  if (b) {
    const spent = money(b.spent) ?? '—';
    const limit = b.limit === null ? 'no limit' : (money(b.limit) ?? 'limit not given');
    pairs.push(['budget', `${spent} spent · ${limit}${b.duration ? ` per ${b.duration}` : ''}`]);
    if (b.resets_at) pairs.push(['resets', formatTimestamp(b.resets_at)]);
  }
  const r = info.rate_limits;
  if (r) {
    // A pool key: no request cap (`rpm: null`) inside its reserved blocks.
    const rpm =
      r.rpm !== undefined && r.rpm !== null
        ? `${r.rpm} requests/min`
        : r.rpm === null && info.plan?.slug === 'pool'
          ? 'no request limit in its blocks (429 outside them), 1 concurrent request'
          : undefined;
    const parts = [rpm, r.tpm !== undefined && r.tpm !== null ? `${groupThousands(r.tpm)} tokens/min` : 'no token limit'].filter(Boolean);
    pairs.push(['rate limits', parts.join(' · ')]);
  }
  const p = info.plan;
  if (p)
    pairs.push(['plan', p.slug ? `${p.slug}${p.status ? ` (${p.status}${p.expires_at ? `, expires ${formatTimestamp(p.expires_at)}` : ''})` : ''}` : 'none (a credit key: bounded by the balance)']);
  const balance = money(info.credits?.balance);
  if (balance) pairs.push(['balance', `${balance} (the account's credit balance)`]);
  pairs.push(['figures', status]);
  return pairs;
}
