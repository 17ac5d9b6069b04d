/**
 * The wording audit, over the one wording table (src/api/wording.ts, used
 * by the CLI and the TUI alike): every failure sentence gives the right next step. A table of
 * conditions → the sentence the client writes → the next step it must name, for every error code
 * of the wording table; and the built CLI against the sandbox for the cases users met: a refused
 * verify, a 1 ms timeout, disabling an expired subscription key, a name where an id goes.
 * Rules checked on every row: a refusal from the service never gets network or address advice;
 * durations under a second are in ms (never "0 s"); no advice names an action that cannot work.
 */
import net from 'node:net';
import { describe, expect, it } from 'vitest';
import { errorFromNetwork, errorFromReadOnly, errorFromResponse, errorFromTimeout, parseBody, type FailureContext, type OperationInfo } from '../../src/api/failures.js';
import { connectionProblemWords } from '../../src/tui/errors.js';
import { type TestSandbox } from '../sandbox/helpers.js';
import { type Scripted, useScriptedSandbox } from './scripted.js';

const op = (name: string, what: string, extra: Partial<OperationInfo> = {}): OperationInfo => ({ name, what, changesState: false, ...extra });
const LIST = op('listKeys', 'list the keys');
const RENAME = op('updateKey', 'update the key', { changesState: true, byId: true, check: 'list the keys' });
const VERIFY = op('verifyTopUp', 'verify the top-up', { changesState: true, check: 'check the balance' });
const TOPUP = op('topUp', 'request the top-up', { changesState: true, check: 'check the billing status' });
const CREATE = op('createCreditKey', 'create the credit key', { changesState: true, check: 'list the keys' });

function ctx(o: OperationInfo, extra: Partial<FailureContext> = {}): FailureContext {
  return { op: o, token: 'mk_secret_value_1234567890', baseUrl: 'https://api.example.com', timeoutMs: 10_000, ...extra };
}
const body = (code: string, message = 'no') => parseBody(JSON.stringify({ error: { code, message } }));
const shape = (value: unknown) => parseBody(JSON.stringify(value));
const CREDIT_ZERO = 'Credit balance must be greater than 0 to create a credit key';
const ENV = { label: 'KEYDECK_TOKEN (management key mk_12345678)', whenRejected: 'unset KEYDECK_TOKEN to use the key stored for profile "default", or set a valid one' };

interface Row {
  readonly condition: string;
  readonly message: string;
  /** The next step the sentence must name. */
  readonly next: RegExp;
  /** A refusal from the service (its own answer): no network or address advice. */
  readonly refusal: boolean;
}

const TABLE: Row[] = [
  {
    condition: '401, credential from KEYDECK_TOKEN',
    message: errorFromResponse(ctx(LIST, { credential: ENV }), 401, body('unauthorized'), undefined).message,
    next: /KEYDECK_TOKEN \(management key mk_12345678\).*unset KEYDECK_TOKEN to use the key stored for profile "default", or set a valid one/,
    refusal: true,
  },
  {
    condition: '401, stored key',
    message: errorFromResponse(
      ctx(LIST, { credential: { label: 'the management key mk_12345678 stored in the keychain for profile "default"', whenRejected: 'sign in again: keydeck auth login' } }),
      401,
      body('unauthorized'),
      undefined,
    ).message,
    next: /stored in the keychain.*keydeck auth login/,
    refusal: true,
  },
  {
    condition: '403 (a consumption key)',
    message: errorFromResponse(ctx(LIST, { credential: ENV }), 403, body('forbidden'), undefined).message,
    next: /KEYDECK_TOKEN.*use a session token or a management key/,
    refusal: true,
  },
  { condition: '404 of an id', message: errorFromResponse(ctx(RENAME), 404, body('not_found'), undefined).message, next: /no item with that id.*list them again/, refusal: true },
  {
    condition: '404 of a verify (transfer unknown)',
    message: errorFromResponse(ctx(VERIFY), 404, body('not_found'), undefined).message,
    next: /wait a minute, then verify again with the same hash/,
    refusal: true,
  },
  { condition: '404 in the service’s words, not by id', message: errorFromResponse(ctx(LIST), 404, body('not_found'), undefined).message, next: /not found/, refusal: true },
  {
    condition: 'a bare 404 (no error body: wrong address?)',
    message: errorFromResponse(ctx(LIST), 404, parseBody('<html>nope</html>'), undefined).message,
    next: /check that the base URL https:\/\/api\.example\.com points at the service/,
    refusal: false,
  },
  {
    condition: '400 with a field',
    message: errorFromResponse(ctx(CREATE), 400, parseBody(JSON.stringify({ error: { code: 'invalid_request', message: 'bad', field: 'name' } })), undefined).message,
    next: /\(field name\): “bad”; correct it and try again/,
    refusal: true,
  },
  // The service's own sentence, in every error shape the pages and the seed show.
  {
    condition: '400 { error: "<sentence>" } (the pages)',
    message: errorFromResponse(ctx(CREATE), 400, shape({ error: CREDIT_ZERO }), undefined).message,
    next: new RegExp(`^The service refused the request to create the credit key as invalid: “${CREDIT_ZERO}”; correct it and try again\\.$`),
    refusal: true,
  },
  {
    condition: '400 { error: { message } }',
    message: errorFromResponse(ctx(CREATE), 400, shape({ error: { message: CREDIT_ZERO } }), undefined).message,
    next: new RegExp(`as invalid: “${CREDIT_ZERO}”; correct it and try again`),
    refusal: true,
  },
  {
    condition: '400 { message }',
    message: errorFromResponse(ctx(CREATE), 400, shape({ message: CREDIT_ZERO }), undefined).message,
    next: new RegExp(`as invalid: “${CREDIT_ZERO}”; correct it and try again`),
    refusal: true,
  },
  {
    condition: '400 { success: false, error: "<sentence>" }',
    message: errorFromResponse(ctx(CREATE), 400, shape({ success: false, error: CREDIT_ZERO }), undefined).message,
    next: new RegExp(`as invalid: “${CREDIT_ZERO}”; correct it and try again`),
    refusal: true,
  },
  {
    condition: '400 { success: false, error: { message } }',
    message: errorFromResponse(ctx(CREATE), 400, shape({ success: false, error: { message: CREDIT_ZERO } }), undefined).message,
    next: new RegExp(`as invalid: “${CREDIT_ZERO}”; correct it and try again`),
    refusal: true,
  },
  {
    condition: '402 { error: "<code>", message } (the code ours, the words the service’s)',
    message: errorFromResponse(ctx(CREATE), 402, shape({ error: 'insufficient_balance', message: CREDIT_ZERO }), undefined).message,
    next: new RegExp(`the credit balance is 0; top up first \\(the service said “${CREDIT_ZERO}”\\)\\.$`),
    refusal: true,
  },
  {
    condition: '401 { error: "<sentence>" } (keydeck’s next step kept)',
    message: errorFromResponse(ctx(LIST, { credential: ENV }), 401, shape({ error: 'Invalid or expired token' }), undefined).message,
    next: /; unset KEYDECK_TOKEN .* \(the service said “Invalid or expired token”\)\.$/,
    refusal: true,
  },
  {
    condition: '400 { error: "<sentence>" } with escapes and a key value: cleaned, redacted, bounded',
    message: errorFromResponse(ctx(CREATE), 400, shape({ error: `\u001b]8;;https://evil\u0007click\u001b[8m ${'x'.repeat(20)} mk_secret_value_1234567890 ${'y'.repeat(300)}` }), undefined).message,
    next: /: “\]8;;https:\/\/evil click \[8m x{20} \S+ y+…”; correct it and try again/,
    refusal: true,
  },
  { condition: '402 balance 0', message: errorFromResponse(ctx(CREATE), 402, body('insufficient_balance'), undefined).message, next: /top up first/, refusal: true },
  { condition: '402 budget spent', message: errorFromResponse(ctx(CREATE), 402, body('budget_exceeded'), undefined).message, next: /top up to continue/, refusal: true },
  { condition: '422 amount mismatch', message: errorFromResponse(ctx(VERIFY), 422, body('amount_mismatch'), undefined).message, next: /verify with the exact amount sent/, refusal: true },
  {
    condition: '409 transaction used',
    message: errorFromResponse(ctx(VERIFY), 409, body('tx_already_used'), undefined).message,
    next: /each transfer is credited once.*check the balance/,
    refusal: true,
  },
  { condition: '429 with Retry-After 0.5 s', message: errorFromResponse(ctx(LIST), 429, body('rate_limited'), 500).message, next: /wait 500 ms before trying again/, refusal: true },
  { condition: '429 with Retry-After 90 s', message: errorFromResponse(ctx(LIST), 429, body('rate_limited'), 90_000).message, next: /wait 90 s before trying again/, refusal: true },
  {
    condition: '503 to a top-up (outcome unknown)',
    message: errorFromResponse(ctx(TOPUP), 503, parseBody(''), undefined).message,
    next: /whether it took effect is unknown: check the billing status before trying again/,
    refusal: false,
  },
  { condition: '503 to a read', message: errorFromResponse(ctx(LIST), 503, parseBody(''), undefined).message, next: /try again in a moment/, refusal: false },
  {
    condition: 'timeout of 1 ms (KEYDECK_TIMEOUT_MS=1)',
    message: errorFromTimeout(ctx(LIST, { timeoutMs: 1 }), false).message,
    next: /within 1 ms .*check the network and try again later/,
    refusal: false,
  },
  {
    condition: 'timeout after a top-up was sent',
    message: errorFromTimeout(ctx(TOPUP, { timeoutMs: 2500 }), true).message,
    next: /within 2\.5 s .*check the billing status before trying again/,
    refusal: false,
  },
  { condition: 'connection refused', message: errorFromNetwork(ctx(LIST), 'ECONNREFUSED', false).message, next: /check the address and the network connection/, refusal: false },
  { condition: 'connection lost after a create was sent', message: errorFromNetwork(ctx(CREATE), 'ECONNRESET', true).message, next: /unknown: list the keys before trying again/, refusal: false },
  {
    condition: 'a self-signed certificate (a read)',
    message: errorFromNetwork(ctx(LIST), 'DEPTH_ZERO_SELF_SIGNED_CERT', false).message,
    next: /not signed by an authority this machine trusts .*did not connect: check the address, or, behind a proxy that inspects TLS, give Node its certificate authority with NODE_EXTRA_CA_CERTS=FILE\.$/,
    refusal: false,
  },
  {
    condition: 'an expired certificate (a create)',
    message: errorFromNetwork(ctx(CREATE), 'CERT_HAS_EXPIRED', false).message,
    next: /has expired or is not valid yet \(check this machine’s clock too\).*NODE_EXTRA_CA_CERTS=FILE \(nothing was sent\)\.$/,
    refusal: false,
  },
  {
    condition: 'a certificate for another host',
    message: errorFromNetwork(ctx(LIST), 'ERR_TLS_CERT_ALTNAME_INVALID', false).message,
    next: /is for another host name \(ERR_TLS_CERT_ALTNAME_INVALID\)/,
    refusal: false,
  },
  // https:// to a plain http service (the sandbox): the TLS handshake fails with EPROTO.
  {
    condition: 'https:// to a plain http service on this machine',
    message: errorFromNetwork(ctx(LIST, { baseUrl: 'https://127.0.0.1:8787' }), 'EPROTO', false).message,
    next: /does not answer in TLS \(EPROTO\): if it is a plain http service on this machine, as the sandbox is, use http:\/\/127\.0\.0\.1:8787\.$/,
    refusal: false,
  },
  {
    condition: 'https:// to a plain http service elsewhere: no http advice',
    message: errorFromNetwork(ctx(CREATE), 'EPROTO', false).message,
    next: /does not answer in TLS \(EPROTO\): check the address and its port: it may be a plain http service \(nothing was sent\)\.$/,
    refusal: false,
  },
  // A read-only profile's client (src/config/profileMarks.ts): refused before sending, the reason named.
  {
    condition: 'a change through the client of a read-only profile',
    message: errorFromReadOnly(ctx(CREATE), 'the profile "prod" is read-only (readOnly in /c/config.json)').message,
    next: /^Did not create the credit key: the profile "prod" is read-only \(readOnly in \/c\/config\.json\); nothing was sent\.$/,
    refusal: true,
  },
];

describe('the wording table: condition → sentence → next step', () => {
  it.each(TABLE.map((r) => [r.condition, r] as const))('%s', (_condition, row) => {
    expect(row.message).toMatch(row.next);
    // One sentence, ending with a full stop, without the secret.
    expect(row.message).toMatch(/^[A-Z].*\.$/);
    expect(row.message).not.toContain('mk_secret_value');
    // Durations under a second are in ms.
    expect(row.message).not.toMatch(/\b0 s\b/);
    // A refusal from the service never gets network or address advice.
    if (row.refusal) expect(row.message).not.toMatch(/network|connection|base URL|reach the service/i);
  });
});

describe('the short words of the TUI’s banner and header (rows of the same table)', () => {
  it('name a certificate the machine does not trust, and say Offline for a connection that failed', () => {
    expect(connectionProblemWords(errorFromNetwork(ctx(LIST), 'DEPTH_ZERO_SELF_SIGNED_CERT', false))).toEqual({ headline: 'Certificate not trusted', state: 'offline' });
    expect(connectionProblemWords(errorFromNetwork(ctx(CREATE), 'CERT_HAS_EXPIRED', false))).toEqual({ headline: 'Certificate not trusted', state: 'offline' });
    expect(connectionProblemWords(errorFromNetwork(ctx(LIST), 'ECONNREFUSED', false))).toEqual({ headline: 'Offline', state: 'offline' });
  });
});

describe('the CLI’s next steps, against the sandbox', { timeout: 60_000 }, () => {
  let sb: TestSandbox;
  let cli: Scripted;
  useScriptedSandbox((s, c) => ((sb = s), (cli = c)));

  it('a refused verify says what the service found and what to do, never to check the base URL', async () => {
    const user = await sb.fundedUser(0);
    const r = await cli.run(user, ['billing', 'verify', '--tx', `0x${'ab'.repeat(32)}`, '--amount', '10']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^keydeck: not_found: could not verify the top-up: the service does not know this transaction yet .*wait a minute, then verify again with the same hash/);
    expect(r.stderr).not.toMatch(/base URL|network/);
  });

  it('KEYDECK_TIMEOUT_MS=1 is said in ms, never "0 s"', async () => {
    // A loopback server that accepts and never answers: the sandbox itself may answer within 1 ms.
    const silent = net.createServer(() => {});
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const { port } = silent.address() as net.AddressInfo;
    let r;
    try {
      r = await cli.run(await sb.fundedUser(0), ['keys', 'list'], { KEYDECK_TIMEOUT_MS: '1', KEYDECK_BASE_URL: `http://127.0.0.1:${port}` });
    } finally {
      silent.close();
    }
    expect(r.code, r.stderr).toBe(4);
    expect(r.stderr).toMatch(/^keydeck: timeout: the service did not answer within 1 ms/);
    expect(r.stderr).not.toMatch(/within 0 s/);
  });

  it('disabling an expired subscription key never offers `keys enable` (the service refuses it)', async () => {
    const user = await sb.fundedUser(0);
    const sub = await sb.subscription(user, 'standard');
    await sb.advance(31 * 86_400);
    const r = await cli.run(user, ['keys', 'disable', sub.id, '--yes']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^Disabled the key ".*" \(id .*\): its subscription has ended \(a new subscription payment creates a new key\)\.\n$/);
    expect(r.stdout).not.toContain('keys enable');
    // Enabling it is refused before anything is sent, with what does work.
    const enable = await cli.run(user, ['keys', 'enable', sub.id]);
    expect(enable.code).toBe(1);
    expect(enable.stderr).toMatch(/^keydeck: subscription_ended: .*cannot be enabled again; a new subscription payment creates a new key\. Nothing was sent\.\n$/);
  });

  it('an id or a unique name: a name is resolved, an unknown one says "no key has the id or name"', async () => {
    const user = await sb.fundedUser(25);
    const key = await sb.creditKey(user, 'prod-backend');
    const [named, dated, gone, mgmt] = await Promise.all([
      cli.run(user, ['keys', 'rename', 'prod-backend', '--name', 'x']),
      cli.run(user, ['keys', 'delete', 'credit-20261123-1714', '--yes']),
      cli.run(user, ['keys', 'enable', '3f2a9c1e-0000-4000-8000-000000000000']),
      cli.run(user, ['mgmt-keys', 'delete', 'laptop', '--yes']),
    ]);
    expect(named.code, named.stderr).toBe(0);
    expect(named.stdout).toBe(`Renamed the key "prod-backend" (id ${key.id}) to "x".\n`);
    expect(dated.code).toBe(1);
    expect(dated.stderr).toBe('keydeck: not_found: no key has the id or name "credit-20261123-1714" (keydeck keys list); nothing was changed.\n');
    expect(gone.stderr).toMatch(/^keydeck: not_found: no key has the id or name "3f2a9c1e-0000-4000-8000-000000000000"/);
    expect(mgmt.code).toBe(1);
    expect(mgmt.stderr).toBe('keydeck: not_found: no management key has the id or name "laptop" (keydeck mgmt-keys list); nothing was changed.\n');
  });
});
