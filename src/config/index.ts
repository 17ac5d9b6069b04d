/**
 * Profiles and the config file: paths (env-paths / `KEYDECK_CONFIG_DIR`), the zod-validated
 * `config.json`, {@link resolveProfile}, which profile applies and why (./profileChoice.ts: a
 * `.keydeck` file, `profileRules`), and the profiles' marks, read-only and protected, with the one
 * check every change calls (./profileMarks.ts).
 *
 * What lives in src/config: paths, the config file and profiles, atomic writes that follow no link
 * (./atomic.ts), the cross-process lock (./lock.ts), file trust as ssh's (./trust.ts, and
 * ./strictModes.ts for every directory above a file), timeouts, opening keydeck's SQLite files
 * (./sqlite.ts). May import: src/api (base URL rules, schemas). Imported by: every layer above it.
 */
export * from './paths.js';
export * from './config.js';
export * from './profile.js';
export * from './profileChoice.js';
export * from './profileMarks.js';
export * from './json.js';
export * from './timeout.js';
export * from './autoTopUp.js';
export * from './profileNames.js';
