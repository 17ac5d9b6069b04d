/**
 * The sandbox's Fastify app: body parsing and limits, authentication hooks, the docs/sandbox-service.md
 * error bodies (inside the `{ success: false }` envelope on `/api/billing/*`), the per-request
 * log line, and the routes of the service's endpoints plus the simulation endpoints.
 */
import fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { isLoopbackHost } from '../api/baseUrl.js';
import { redactSecrets } from '../api/errors.js';
import type { ConsumptionKeyRow } from './keys.js';
import type { AuthHook, SandboxContext } from './context.js';
import { shapeAnswer, type ShapeLookups } from './dialect.js';
import { SandboxError } from './errors.js';
import { redactLogSecrets } from './secrets.js';
import { registerBillingRoutes } from './routes/billing.js';
import { registerCheckoutRoutes } from './routes/checkout.js';
import { registerInferenceRoutes } from './routes/inference.js';
import { registerKeyRoutes } from './routes/keys.js';
import { registerManagementRoutes } from './routes/management.js';
import { registerPoolRoutes } from './routes/pools.js';
import { registerSimulationRoutes } from './routes/simulation.js';
import { registerUsageRoutes } from './routes/usage.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The account of a request authenticated by a session token or `mk_` key (`/api/*`). */
    accountId: string;
    /** The consumption key of an inference request. */
    consumer: ConsumptionKeyRow | null;
  }
}

/** Largest request body accepted, bytes (64 KiB); larger is 413 `invalid_request`. */
export const BODY_LIMIT_BYTES = 64 * 1024;

/** Options of {@link createSandboxApp}. */
export interface SandboxAppOptions {
  /**
   * Receives one line per request: `METHOD /path STATUS 1.2ms` (query strings dropped, secrets
   * redacted; never a header, key or token).
   */
  log?: (line: string) => void;
  /**
   * The address it listens on (default `127.0.0.1`). On this machine's loopback (127.0.0.0/8,
   * `::1`, `localhost`) it answers only requests whose `Host` names this machine the same way
   * (any port): a web page whose name was made to point at 127.0.0.1 (DNS rebinding) sends its
   * own name, and gets 403. Listening beyond loopback (`0.0.0.0`), it answers any `Host`.
   */
  listenHost?: string;
}

/** True when the sandbox listening on `host` answers only requests addressed to this machine. */
function guardsHost(host: string | undefined): boolean {
  if (host === undefined) return true;
  return isLoopbackHost(host.includes(':') && !host.startsWith('[') ? `[${host}]` : host);
}

/** True for paths whose responses use the billing envelope. */
function isBillingPath(url: string): boolean {
  return url.startsWith('/api/billing/') || url === '/api/billing';
}

function pathOf(url: string): string {
  const q = url.indexOf('?');
  return q === -1 ? url : url.slice(0, q);
}

/** Sends a SandboxError as the docs/sandbox-service.md error body (enveloped on billing paths). */
export function sendError(request: FastifyRequest, reply: FastifyReply, error: SandboxError): FastifyReply {
  if (error.retryAfterSeconds !== undefined) reply.header('retry-after', String(error.retryAfterSeconds));
  const body = isBillingPath(request.url) ? { success: false, error: error.body() } : { error: error.body() };
  return reply.code(error.status).send(body);
}

/** Turns anything thrown by Fastify or a handler into a SandboxError (never a 5xx for bad input). */
function toSandboxError(error: unknown): SandboxError {
  if (error instanceof SandboxError) return error;
  const e = error as { code?: string; statusCode?: number; message?: string };
  switch (e.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new SandboxError('invalid_request', `body: the request body is larger than ${BODY_LIMIT_BYTES} bytes`, {
        status: 413,
        field: 'body',
      });
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new SandboxError('invalid_request', 'body: Content-Type must be application/json', { status: 415, field: 'body' });
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new SandboxError('invalid_request', 'body: Content-Length does not match the body', { field: 'body' });
    default:
  }
  if (error instanceof SyntaxError) {
    return new SandboxError('invalid_request', 'body: the request body is not valid JSON', { field: 'body' });
  }
  if (typeof e.statusCode === 'number' && e.statusCode >= 400 && e.statusCode < 500) {
    return new SandboxError('invalid_request', 'the request is malformed', { status: e.statusCode });
  }
  return new SandboxError('server_error', 'the sandbox failed to handle this request');
}

/**
 * Builds the sandbox app over a context (see `createContext`); the caller listens and closes.
 * Routes: the service's endpoints (`/api/keys*`, `/api/billing/*`), docs/sandbox-service.md simulation endpoints (`/sandbox/*`)
 * and the stand-in `POST /v1/chat/completions`.
 */
export function createSandboxApp(ctx: SandboxContext, options: SandboxAppOptions = {}): FastifyInstance {
  const app = fastify({
    logger: false,
    bodyLimit: BODY_LIMIT_BYTES,
    forceCloseConnections: true,
    return503OnClosing: true,
    frameworkErrors: (_error, request, reply) => {
      sendError(request, reply, new SandboxError('invalid_request', 'the request URL is malformed'));
    },
  });

  app.decorateRequest('accountId', '');
  app.decorateRequest('consumer', null);

  // JSON bodies: an empty body is "no body" (a DELETE or POST sent with the header but nothing
  // else); anything unparsable is a 400 from the error handler (SyntaxError).
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => {
    const text = body as string;
    if (text.trim() === '') {
      done(null, undefined);
      return;
    }
    try {
      done(null, JSON.parse(text));
    } catch (error) {
      done(error as Error, undefined);
    }
  });
  // The checkout page posts a plain HTML form; its (empty) body is not used.
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_request, body, done) => {
    done(null, body);
  });

  if (options.log) {
    const log = options.log;
    app.addHook('onResponse', (request, reply, done) => {
      log(`${request.method} ${redactLogSecrets(redactSecrets(pathOf(request.url)))} ${reply.statusCode} ${reply.elapsedTime.toFixed(1)}ms`);
      done();
    });
  }

  // One credential per request: two Authorization headers (Node keeps the first) are refused, so
  // a proxy and the client can never disagree about who is asking.
  app.addHook('onRequest', async (request, reply) => {
    const raw = request.raw.rawHeaders;
    let count = 0;
    for (let i = 0; i < raw.length; i += 2) if (raw[i]!.toLowerCase() === 'authorization') count++;
    if (count > 1) {
      return sendError(request, reply, new SandboxError('invalid_request', 'authorization: send one Authorization header, not several', { field: 'authorization' }));
    }
    return undefined;
  });

  // On loopback, only requests addressed to this machine (see SandboxAppOptions.listenHost). A
  // request without Host (HTTP/1.0; Node refuses HTTP/1.1 without one) comes from no browser.
  if (guardsHost(options.listenHost)) {
    app.addHook('onRequest', async (request, reply) => {
      const host = request.headers.host;
      if (host === undefined || isLoopbackHost(host)) return undefined;
      return sendError(
        request,
        reply,
        new SandboxError(
          'forbidden',
          'the sandbox listens on this machine only and answers requests addressed to it (Host: localhost, 127.0.0.1 or [::1]); this one named another host, as a web page reaching it by DNS rebinding would',
          { field: 'host' },
        ),
      );
    });
  }

  // Pledges whose period ended renew (unless cancelled) before anything reads them.
  app.addHook('onRequest', (_request, _reply, done) => {
    ctx.pools.renewDue(ctx.clock.now(), ctx.keys);
    done();
  });

  app.addHook('preClose', (done) => {
    ctx.wakeAll();
    done();
  });

  // Every answer's HTTP Date header follows the simulated clock (POST /sandbox/clock), as a real
  // service's follows its own: clients reckon subscription time left by it.
  app.addHook('onSend', (_request, reply, payload, done) => {
    reply.header('date', new Date(ctx.clock.now()).toUTCString());
    done(null, payload);
  });

  if (ctx.dialect !== 'seed') {
    // Answers of /api/* in the dialect's shape (./dialect.ts); errors keep the docs/sandbox-service.md bodies.
    app.addHook('preSerialization', (request, reply, payload, done) => {
      if (reply.statusCode >= 300 || !request.url.startsWith('/api/')) {
        done(null, payload);
        return;
      }
      const route = `${request.method} ${request.routeOptions.url ?? pathOf(request.url)}`;
      const lookups: ShapeLookups = {
        creditKeyId: () => ctx.keys.listConsumption(request.accountId).find((k) => k.key_type === 'credit' && k.is_active === 1)?.id ?? null,
      };
      done(null, shapeAnswer(ctx.dialect, route, payload, lookups));
    });
  }

  app.setErrorHandler((error, request, reply) => {
    const sandboxError = toSandboxError(error);
    if (sandboxError.code === 'server_error') {
      options.log?.(`error in ${request.method} ${redactLogSecrets(redactSecrets(pathOf(request.url)))}: ${redactLogSecrets(redactSecrets(String((error as Error)?.stack ?? error)))}`);
    }
    return sendError(request, reply, sandboxError);
  });

  app.setNotFoundHandler((request, reply) => {
    sendError(request, reply, new SandboxError('not_found', `no such endpoint: ${request.method} ${redactLogSecrets(redactSecrets(pathOf(request.url)))}`));
  });

  const requireAccount: AuthHook = (request, _reply, done) => {
    try {
      request.accountId = ctx.auth.account(request.headers.authorization).userId;
      done();
    } catch (error) {
      done(error as Error);
    }
  };
  const requireConsumer: AuthHook = (request, _reply, done) => {
    try {
      request.consumer = ctx.auth.consumer(request.headers.authorization);
      done();
    } catch (error) {
      done(error as Error);
    }
  };

  registerKeyRoutes(app, ctx, requireAccount);
  registerManagementRoutes(app, ctx, requireAccount);
  registerBillingRoutes(app, ctx, requireAccount);
  registerSimulationRoutes(app, ctx, requireAccount);
  registerCheckoutRoutes(app, ctx);
  registerInferenceRoutes(app, ctx, requireConsumer);
  registerUsageRoutes(app, ctx, requireAccount);
  registerPoolRoutes(app, ctx, requireAccount);
  return app;
}
