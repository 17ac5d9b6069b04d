/**
 * The schema of a top-up `method` name as sent on the wire (the service's endpoints `POST /api/billing/topup`), on its
 * own so that the config (src/config/config.ts, a profile's `topUpMethods`) checks it without
 * loading every schema of the API (src/api/schemas.ts re-exports it).
 */
import { z } from './zod.js';

/** A top-up `method` name as sent on the wire: any 1–64 letters, digits, `_`, `-`, `.`. */
export const TopUpMethodNameSchema = z.string({ error: 'method must be a text' }).regex(/^[A-Za-z0-9_.-]{1,64}$/, 'method must be 1–64 letters, digits, "_", "-" or "."');
