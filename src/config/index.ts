/**
 * Profiles and the config file: paths (env-paths / `KEYDECK_CONFIG_DIR`), the zod-validated
 * `config.json`, and {@link resolveProfile}.
 *
 * What lives in src/config: paths, the config file and profiles, atomic writes that follow no link
 * (./atomic.ts), the cross-process lock (./lock.ts), file trust as ssh's (./trust.ts, and
 * ./strictModes.ts for every directory above a file), timeouts, opening keydeck's SQLite files
 * (./sqlite.ts); the policy file (./policyFile.ts), the guardrails stored from it
 * (./guardrailRules.ts), and the one question every change asks first (./profileChanges.ts). May import: src/api (base URL rules, schemas). Imported by: every layer above it.
 */
export * from './paths.js';
export * from './config.js';
export * from './profile.js';
export * from './json.js';
export * from './timeout.js';
export * from './autoTopUp.js';
export * from './guardrailRules.js';
export * from './profileNames.js';
