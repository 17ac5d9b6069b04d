/**
 * keydeck's library entry (`exports["."]`): the API client of the service interface, its
 * typed error and the zod schemas of the wire format.
 */
export * from './api/schemas.js';
export * from './api/errors.js';
export { KeydeckClient, DEFAULT_RETRIES, DEFAULT_TIMEOUT_MS, DEFAULT_USER_AGENT } from './api/client.js';
export type { KeydeckClientOptions, CallOptions, TopUpResult } from './api/client.js';
export { describeApiError } from './api/describe.js';
export { keyStatus, type KeyStatus } from './api/keyStatus.js';
