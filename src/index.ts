/**
 * keydeck's library entry (`exports["."]`): the API client of the service interface, its
 * typed error and the zod schemas of the wire format.
 */
export * from './api/schemas.js';
export * from './api/errors.js';
