/**
 * Profiles and the config file: paths (env-paths / `KEYDECK_CONFIG_DIR`), the zod-validated
 * `config.json`, and {@link resolveProfile}.
 */
export * from './paths.js';
export * from './config.js';
export * from './profile.js';
export * from './json.js';
export * from './timeout.js';
