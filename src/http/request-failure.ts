/**
 * Why a request was answered with an error, kept for its one log line (app.ts OneLinePerRequest) instead of a
 * line of its own: a client's mistake is one line at info that names the request, its status and the reason
 * (reliability issue item 5). A WeakMap, so that requests that succeed carry nothing extra.
 */
import type { FastifyRequest } from 'fastify';

export interface RequestFailure {
  /**
   * The error code sent (RFC 6749 §5.2 code, or Fastify's FST_* code for framework errors); for a page error,
   * which sends none, its status in words (404 → not_found).
   */
  error: string;
  /** The description sent to the client: what the client has to fix. */
  reason: string;
  clientId?: string;
  /** Which surface refused it, e.g. "token failed", "authorization failed", "page failed". */
  outcome: string;
}

const failures = new WeakMap<FastifyRequest, RequestFailure>();

export function noteRequestFailure(request: FastifyRequest, failure: RequestFailure): void {
  const socket = request.raw.socket as { destroyed?: boolean } | null;
  if (!socket || socket.destroyed) {
    // The client went away before its answer (a reset mid-body): no response will complete, so this is the
    // request's one line. Nothing for an operator to fix, hence info.
    request.log.info({ req: request, ...failure, clientGone: true }, 'request ended: the client went away');
    return;
  }
  failures.set(request, failure);
}

export function requestFailure(request: FastifyRequest): RequestFailure | undefined {
  return failures.get(request);
}
