/**
 * Records a failed authorization or token request of a known client (and notes about ones that succeeded), for
 * its developer console: time, endpoint, error code, the exact reason, request id and structured detail. Never a secret or a code: only
 * the error's client-safe description and `details` are stored.
 */
import type { FastifyRequest } from 'fastify';
import type { OAuthError } from '../errors.js';
import type { Storage } from '../storage/storage.js';

export async function recordClientFailure(storage: Storage, request: FastifyRequest, endpoint: string, error: OAuthError): Promise<void> {
  // A database outage is not the client's failure, and its record could not be written anyway.
  if (error.code === 'temporarily_unavailable') return;
  // A device polling while the person decides (RFC 8628 §3.5) is the flow working, not a failure; a record per poll would bury the real ones.
  if (error.code === 'authorization_pending') return;
  await recordClientEvent(storage, request, endpoint, error.code, error.description, error.details ?? null);
}

/**
 * A note for the developer about a request that succeeded but not quite as sent, under a code of Latch's own
 * (not an RFC error): `scope_ignored` when an OpenID Connect request named scope values Latch does not know.
 */
export async function recordClientNote(storage: Storage, request: FastifyRequest, endpoint: string, code: 'scope_ignored', description: string, details: Record<string, unknown>): Promise<void> {
  await recordClientEvent(storage, request, endpoint, code, description, details);
}

async function recordClientEvent(storage: Storage, request: FastifyRequest, endpoint: string, code: string, description: string, details: Record<string, unknown> | null): Promise<void> {
  const client = request.latchClient;
  if (!client) return;
  try {
    await storage.clientEvents.insert({ clientId: client.clientId, createdAt: new Date(), endpoint, error: code, description, requestId: request.id, details });
  } catch (cause) {
    // Losing a diagnostic record must not turn the client's answer into a 500.
    request.log.warn({ err: cause }, 'could not record client event');
  }
}
