/**
 * The service's endpoints management key endpoints (bare JSON): `GET /api/keys/management`,
 * `POST /api/keys/management`, `DELETE /api/keys/management/:id` (the sandbox answers
 * `{ "deleted": true }`; not shown in the service's endpoints). A deleted key stops working at once.
 */
import type { FastifyInstance } from 'fastify';
import { CreateKeyRequestSchema } from '../../api/schemas.js';
import type { SandboxContext } from '../context.js';
import { managementKeyToWire } from '../keys.js';
import type { AuthHook } from '../context.js';
import { parseBody } from '../validate.js';
import { keyNotFound, parseKeyId } from './keys.js';

/** Registers the management key routes; `requireAccount` authenticates. */
export function registerManagementRoutes(app: FastifyInstance, ctx: SandboxContext, requireAccount: AuthHook): void {
  app.get('/api/keys/management', { onRequest: requireAccount }, async (request) => ctx.keys.listManagement(request.accountId).map(managementKeyToWire));

  app.post('/api/keys/management', { onRequest: requireAccount }, async (request) => {
    const { name } = parseBody(CreateKeyRequestSchema, request.body);
    const { row, apiKey } = ctx.keys.createManagement(request.accountId, name, ctx.clock.now());
    return { ...managementKeyToWire(row), apiKey };
  });

  app.delete('/api/keys/management/:id', { onRequest: requireAccount }, async (request) => {
    const id = parseKeyId((request.params as { id?: unknown }).id);
    if (!ctx.keys.deleteManagement(request.accountId, id)) throw keyNotFound();
    return { deleted: true };
  });
}
