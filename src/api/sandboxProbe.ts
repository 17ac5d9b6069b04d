/**
 * Is a keydeck sandbox answering at this address, and which database does it serve? `GET
 * <baseUrl>/sandbox` (src/sandbox/routes/simulation.ts) over plain `node:http`, bounded in size
 * and time: for the TUI's badge (a sandbox on this machine reached with `--base-url` is SANDBOX,
 * not LIVE) and for keydeck processes sharing one sandbox (src/sandbox/shared.ts). Loads nothing
 * but `node:http`, so the TUI can ask before its first frame.
 */
import http from 'node:http';
import { isLoopbackHost } from './baseUrl.js';

/** What `GET /sandbox` answers. */
export interface SandboxIdentity {
  readonly sandbox: 'keydeck';
  /** The database's identity: a random id made when the database was created. */
  readonly instance: string;
  /** The shape of its answers (`seed`, `docs-v1`, `docs-v2`). */
  readonly dialect: string;
}

/** Deadline of the probe, ms: a sandbox on this machine answers at once. */
export const PROBE_TIMEOUT_MS = 1_500;
/** Largest answer read, bytes. */
const PROBE_MAX_BYTES = 4_096;

/**
 * Asks `GET <baseUrl>/sandbox` whether a keydeck sandbox answers there, and which database it
 * serves. Undefined for anything else (no answer in 1.5 s, another service, a malformed answer).
 * Never throws. Plain `node:http`: only for `http://` URLs on this machine.
 */
export function probeSandbox(baseUrl: string, timeoutMs = PROBE_TIMEOUT_MS): Promise<SandboxIdentity | undefined> {
  return new Promise((resolve) => {
    let url: URL;
    try {
      url = new URL(`${baseUrl.replace(/\/+$/, '')}/sandbox`);
    } catch {
      // not a URL: no sandbox there
      resolve(undefined);
      return;
    }
    if (url.protocol !== 'http:') {
      resolve(undefined);
      return;
    }
    const request = http.get(url, { agent: false, timeout: timeoutMs, headers: { accept: 'application/json' } }, (response) => {
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => {
        text += chunk;
        if (text.length > PROBE_MAX_BYTES) request.destroy();
      });
      response.on('end', () => {
        try {
          const body = JSON.parse(text) as Partial<SandboxIdentity> | null;
          const ok = response.statusCode === 200 && body?.sandbox === 'keydeck' && typeof body.instance === 'string' && typeof body.dialect === 'string';
          resolve(ok ? { sandbox: 'keydeck', instance: body.instance!, dialect: body.dialect! } : undefined);
        } catch {
          // an answer that is not the sandbox's: no sandbox there
          resolve(undefined);
        }
      });
      response.on('error', () => resolve(undefined));
    });
    request.on('timeout', () => request.destroy());
    request.on('error', () => resolve(undefined));
    request.on('close', () => resolve(undefined));
  });
}

/**
 * True when `baseUrl` is plain http on this machine and a keydeck sandbox answers there: the
 * service is a sandbox, whatever the flag that named it. Never throws; false after `timeoutMs`.
 */
export async function isLocalSandbox(baseUrl: string, timeoutMs = PROBE_TIMEOUT_MS): Promise<boolean> {
  try {
    const url = new URL(baseUrl);
    if (url.protocol !== 'http:' || !isLoopbackHost(url.host)) return false;
  } catch {
    // not a URL: no sandbox there
    return false;
  }
  return (await probeSandbox(baseUrl, timeoutMs)) !== undefined;
}
