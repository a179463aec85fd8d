/**
 * Requests that Node's HTTP parser rejects before Fastify sees them (headers too large, a malformed request
 * line, forbidden bytes in a header) never reach an error handler. This answers them like every other error:
 * an RFC 6749 §5.2 shaped JSON body, a request id (also in the log line), no-store, and the connection closed.
 */
import { randomUUID } from 'node:crypto';
import type { Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';

/** Fastify's `clientErrorHandler`, called with the Fastify instance as `this`. */
export function answerClientError(this: FastifyInstance, error: Error & { code?: string }, socket: Socket): void {
  // A reset connection has no one left to answer (https://nodejs.org/api/http.html#event-clienterror).
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const [status, reason, description] =
    error.code === 'HPE_HEADER_OVERFLOW'
      ? [431, 'Request Header Fields Too Large', 'The request headers are too large']
      : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? [408, 'Request Timeout', 'The request took too long to arrive']
        : [400, 'Bad Request', 'The request is not well-formed HTTP'];
  const requestId = randomUUID();
  this.log.info({ reqId: requestId, error: 'invalid_request', reason: description, parserError: error.code }, 'malformed HTTP request');
  const body = JSON.stringify({ error: 'invalid_request', error_description: description, request_id: requestId });
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
        `Cache-Control: no-store\r\nPragma: no-cache\r\nX-Request-Id: ${requestId}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy(error);
}
