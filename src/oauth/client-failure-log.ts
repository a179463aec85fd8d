/**
 * Records a failed authorization or token request of a known client, for its developer console: time,
 * endpoint, error code, the exact reason, request id and structured detail. Never a secret or a code: only
 * the error's client-safe description and `details` are stored.
 */
import type { FastifyRequest } from 'fastify';
import type { OAuthError } from '../errors.js';
import type { Storage } from '../storage/storage.js';

export async function recordClientFailure(storage: Storage, request: FastifyRequest, endpoint: string, error: OAuthError): Promise<void> {
  const client = request.latchClient;
  // A database outage is not the client's failure, and its record could not be written anyway.
  if (!client || error.code === 'temporarily_unavailable') return;
  try {
    await storage.clientEvents.insert({
      clientId: client.clientId,
      createdAt: new Date(),
      endpoint,
      error: error.code,
      description: error.description,
      requestId: request.id,
      details: error.details ?? null,
    });
  } catch (cause) {
    // Losing a diagnostic record must not turn the client's 4xx into a 500.
    request.log.warn({ err: cause }, 'could not record client failure');
  }
}
