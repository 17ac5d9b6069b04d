/**
 * src/api: the service's interface as a TypeScript client (seed the service's endpoints, and the real service's
 * documented answers: usage, plans, pools). HTTP and the wire format, nothing about terminals.
 *
 * What lives here: the client (./client.ts `KeydeckClient`, one namespace per resource in
 * ./resources/), the one request core (./core.ts: deadline, retries, size bounds), the transport
 * (./http.ts, got), the tolerant reader (./reader.ts, with its table of accepted forms and their
 * source pages), the zod schemas of the wire (./schemas.ts, ./usageSchemas.ts, ./poolSchemas.ts; every
 * schema of keydeck is built with ./zod.ts's `z`, zod with keydeck's settings),
 * money as exact µUSD (./money.ts), the typed error (./errors.ts) and the one wording table of
 * failures (./wording.ts, ./failures.ts).
 *
 * May import: nothing of keydeck outside src/api (the house test enforces it).
 * Imported by: everything above it (billing, credentials, delivery, metrics, exporter, commands,
 * tui) and the sandbox (the wire schemas only).
 */
export {};
