/**
 * Helpers for the sandbox suites: plain `fetch` over loopback against a real sandbox
 * (no HTTP mocks, not the API client).
 */
import { startSandbox, type StartSandboxOptions } from '../../src/sandbox/index.js';

/** A response as the tests look at it. */
export interface Reply<T = any> {
  status: number;
  headers: Headers;
  /** Parsed JSON when the response is JSON, else the text. */
  body: T;
}

/** Options of {@link call}. */
export interface CallOptions {
  /** Bearer token (session token, mk_ or sk_). */
  token?: string;
  /** JSON body (serialised), or a raw string with `contentType`. */
  body?: unknown;
  raw?: string;
  contentType?: string;
  headers?: Record<string, string>;
}

/** One HTTP request to the sandbox at `base`. */
export async function call<T = any>(base: string, method: string, path: string, options: CallOptions = {}): Promise<Reply<T>> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.token !== undefined) headers.authorization = `Bearer ${options.token}`;
  let body: string | undefined;
  if (options.raw !== undefined) {
    body = options.raw;
    headers['content-type'] = options.contentType ?? 'application/json';
  } else if (options.body !== undefined) {
    body = JSON.stringify(options.body);
    headers['content-type'] = options.contentType ?? 'application/json';
  }
  const res = await fetch(`${base}${path}`, { method, headers, ...(body !== undefined && { body }) });
  const text = await res.text();
  const isJson = (res.headers.get('content-type') ?? '').includes('application/json');
  return { status: res.status, headers: res.headers, body: (isJson && text ? JSON.parse(text) : text) as T };
}

/** A running sandbox with shortcuts bound to it. */
export interface TestSandbox {
  url: string;
  /** The demo user's session token. */
  token: string;
  close(): Promise<void>;
  call<T = any>(method: string, path: string, options?: CallOptions): Promise<Reply<T>>;
  /** A fresh user's session token (`POST /sandbox/users`). */
  newUser(): Promise<string>;
  /** A fresh user's session token, topped up by `amount` USD through USDC when `amount` > 0. */
  fundedUser(amount?: number): Promise<string>;
  /** Tops `token`'s account up by `amount` USD through USDC (instruction, transfer, verify). */
  topUp(token: string, amount: number): Promise<{ txHash: string; address: string }>;
  /** A USDC top-up instruction of `amount` USD for `token`; returns its deposit address. */
  usdcInstruction(token: string, amount: number): Promise<string>;
  /** A USDC transfer of `amount` (decimal text) to `to` (`POST /sandbox/chain/transfers`: on anvil with `--chain`); returns its hash. */
  transfer(to: string, amount: string): Promise<string>;
  /** Creates a credit key; returns the created object (with apiKey). */
  creditKey(token: string, name?: string): Promise<{ id: string; apiKey: string; [k: string]: unknown }>;
  /** Creates a subscription key by simulated payment; returns the created object (with apiKey). */
  subscription(token: string, plan: 'standard' | 'pro', blocks?: string[]): Promise<{ id: string; apiKey: string; [k: string]: unknown }>;
  /** One inference request with a consumption key. */
  infer(apiKey: string, extra?: Record<string, unknown>): Promise<Reply>;
  /** Moves the sandbox clock forward. */
  advance(seconds: number): Promise<void>;
  /** The credit balance record credits data of `token`'s account. */
  credits(token: string): Promise<{ totalTopUp: number; remaining: number; hasCreditKey: boolean; creditKeyCount: number; userId: string | null }>;
}

/** Starts a sandbox (in memory unless `dbPath` is given) on a free loopback port. */
export async function startTestSandbox(options: StartSandboxOptions = {}): Promise<TestSandbox> {
  const sandbox = await startSandbox({ port: 0, ...options });
  const c = <T = any>(method: string, path: string, o?: CallOptions) => call<T>(sandbox.url, method, path, o);
  const ok = <T>(reply: Reply<T>, what: string): T => {
    if (reply.status !== 200) throw new Error(`${what}: HTTP ${reply.status} ${JSON.stringify(reply.body)}`);
    return reply.body;
  };
  const self: TestSandbox = {
    url: sandbox.url,
    token: sandbox.token,
    close: () => sandbox.close(),
    call: c,
    async newUser() {
      return ok(await c<{ token: string }>('POST', '/sandbox/users'), 'create user').token;
    },
    async fundedUser(amount = 25) {
      const token = await self.newUser();
      if (amount > 0) await self.topUp(token, amount);
      return token;
    },
    async topUp(token, amount) {
      const address = await self.usdcInstruction(token, amount);
      const txHash = await self.transfer(address, String(amount));
      ok(await c('POST', '/api/billing/verify-topup', { token, body: { txHash, amount } }), 'verify');
      return { txHash, address };
    },
    async usdcInstruction(token, amount) {
      return ok(await c('POST', '/api/billing/topup', { token, body: { amount, method: 'usdc' } }), 'top-up').data.address as string;
    },
    async transfer(to, amount) {
      return ok(await c<{ txHash: string }>('POST', '/sandbox/chain/transfers', { body: { to, amount } }), 'transfer').txHash;
    },
    async creditKey(token, name = 'test key') {
      return ok(await c('POST', '/api/keys/credit', { token, body: { name } }), 'create credit key');
    },
    async subscription(token, plan, blocks = ['europe']) {
      return ok(await c('POST', '/sandbox/subscriptions', { token, body: { plan, blocks } }), 'subscribe');
    },
    infer(apiKey, extra = {}) {
      return c('POST', '/v1/chat/completions', {
        token: apiKey,
        body: { model: 'test', messages: [{ role: 'user', content: 'hello' }], ...extra },
      });
    },
    async advance(seconds) {
      ok(await c('POST', '/sandbox/clock', { body: { advanceSeconds: seconds } }), 'advance clock');
    },
    async credits(token) {
      return ok(await c('GET', '/api/billing/credits', { token }), 'credits').data;
    },
  };
  return self;
}
