/**
 * zod at the client's two borders: caller input before anything is sent (a failure is
 * `invalid_request` and no request is made), and response bodies after they arrive (a failure
 * names the first wrong field by its path in the body, `[2].id` or `data.remaining`).
 */
import type { z } from 'zod';
import { KeydeckApiError, redactSecrets } from './errors.js';

/** A zod issue path as written in messages: `[2].id`, `data.remaining`, `` for the root. */
export function formatPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const part of path) {
    if (typeof part === 'number') out += `[${part}]`;
    else out += out === '' ? String(part) : `.${String(part)}`;
  }
  return out;
}

/** The path of a zod issue, including the first key of an `unrecognized_keys` issue. */
function issueField(issue: z.core.$ZodIssue, prefix: readonly PropertyKey[]): string | undefined {
  const path = [...prefix, ...issue.path];
  if (issue.code === 'unrecognized_keys' && issue.keys[0] !== undefined) path.push(issue.keys[0]);
  const field = formatPath(path);
  return field === '' ? undefined : field;
}

/**
 * Parses caller input with a request schema of src/api/schemas.ts. `name` names a scalar
 * argument (`id`) whose issues have an empty path.
 * @returns the parsed (trimmed) value
 * @throws KeydeckApiError `invalid_request` with `field` (the input's field name) when invalid
 */
export function parseInput<S extends z.ZodType>(schema: S, value: unknown, token: string, name?: string): z.output<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const field = (issue ? issueField(issue, []) : undefined) ?? name;
  const detail = issue?.message ?? 'invalid input';
  const sentence = field === undefined || detail.startsWith(field) ? `Nothing was sent: ${detail}.` : `Nothing was sent: ${field} is invalid (${detail}).`;
  return throwInvalid(redactSecrets(sentence, [token]), field);
}

function throwInvalid(message: string, field: string | undefined): never {
  throw new KeydeckApiError('invalid_request', message, field === undefined ? {} : { field });
}

/** Result of {@link parseOutput}: the data, or the first wrong field and what is wrong with it. */
export type OutputResult<T> = { ok: true; data: T } | { ok: false; field: string | undefined; problem: string };

/** Parses a response body (or the `data` of an envelope, with `prefix` `['data']`). Never throws. */
export function parseOutput<S extends z.ZodType>(schema: S, value: unknown, prefix: readonly PropertyKey[] = []): OutputResult<z.output<S>> {
  const result = schema.safeParse(value);
  if (result.success) return { ok: true, data: result.data };
  const issue = result.error.issues[0];
  return { ok: false, field: issue ? issueField(issue, prefix) : undefined, problem: issue?.message ?? 'invalid' };
}
