/**
 * keydeck's library entry (`exports["."]`): the API client of the service interface (one
 * namespace per resource: `client.keys`, `client.managementKeys`, `client.billing`; since 0.2.0,
 * which replaced the flat methods such as `client.getCredits()`), its
 * typed error, the zod schemas of the wire format, and the tolerant reader's public helpers
 * (the billing status summary, exact money).
 */
export * from './api/schemas.js';
export * from './api/errors.js';
export { KeydeckClient, DEFAULT_RETRIES, DEFAULT_TIMEOUT_MS, DEFAULT_USER_AGENT, SEED_METHOD_NAMES, topUpKindOf } from './api/client.js';
export type { KeydeckClientOptions, CallOptions, ClientNotice, CredentialDescription, TopUpResult, KeysResource, ManagementKeysResource, BillingResource } from './api/client.js';
export { summarizeBillingStatus, type BillingStatusSummary, type StatusPoolPledge, type StatusSubscription } from './api/reader.js';
export { centsText, parseUsdMicros } from './api/money.js';
export { describeApiError } from './api/describe.js';
export { keyStatus, type KeyStatus } from './api/keyStatus.js';
