/**
 * Request validation with zod: every failure becomes SandboxError `invalid_request` (400)
 * whose message and `field` name the field at fault.
 */
import type { z } from 'zod';
import { SandboxError } from './errors.js';

/**
 * Parses `body` with `schema`; throws SandboxError `invalid_request` naming the first field at
 * fault ("name is required", "amount must be at least 10 USD", "unknown field foo").
 */
export function parseBody<S extends z.ZodType>(schema: S, body: unknown, what = 'request body'): z.infer<S> {
  if (body === undefined || body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw new SandboxError('invalid_request', `${what} must be a JSON object`, { field: 'body' });
  }
  const result = schema.safeParse(body);
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
  if (issue.code === 'unrecognized_keys') {
    const field = issue.keys[0] ?? 'body';
    throw new SandboxError('invalid_request', `unknown field ${field}`, { field });
  }
  const field = issue.path.length ? issue.path.map(String).join('.') : 'body';
  const top = issue.path[0];
  const missing = top !== undefined && (body as Record<PropertyKey, unknown>)[top as PropertyKey] === undefined;
  const message = missing ? `${field} is required` : issue.message.startsWith(field) ? issue.message : `${field}: ${issue.message}`;
  throw new SandboxError('invalid_request', message, { field });
}
