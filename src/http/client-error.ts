/**
 * Requests that fail before any route sees them, answered like every other error: an RFC 6749 §5.2 shaped
 * JSON body, a request id (also in the one log line about it, at info: these are the client's mistakes), no-store.
 * - answerClientError: what Node's HTTP parser rejects (headers too large, a malformed request line, forbidden
 *   bytes in a header, a broken chunked body, a request that took too long); the connection is closed.
 * - frameworkErrorAnswer: what Fastify's router rejects (a path that is not valid percent-encoded UTF-8, a
 *   path parameter too long), which would otherwise get a bare answer with no request id and no log line; on a
 *   page's path, the error page instead of JSON.
 */
import { randomUUID } from 'node:crypto';
import type { Socket } from 'node:net';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { PageError } from '../errors.js';
import { renderErrorPage } from './render-page.js';
import { noStore } from './security-headers.js';

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
  // Node's own handler checks this too: when an answer (a 413, say) already went out on this connection, a
  // second, unrequested one would confuse the client; only close it then.
  const answered = (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage?.headersSent === true;
  if (socket.writable && !answered) {
    socket.write(
      `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
        `Cache-Control: no-store\r\nPragma: no-cache\r\nX-Request-Id: ${requestId}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy(error);
}

/** Paths a client's HTTP library reads (the API's JSON error shape); every other path is a page a person reads. */
export function isApiPath(url: string): boolean {
  return url.startsWith('/oauth2/') || url.startsWith('/.well-known/');
}

/** What the router refuses, told to a client (`description`, JSON) and to a person (`forPerson`, a page). */
interface RouterError {
  status: number;
  description: string;
  forPerson: string;
}
const ROUTER_ERRORS: Readonly<Record<string, RouterError>> = {
  FST_ERR_BAD_URL: {
    status: 400,
    description: 'The request path is not valid percent-encoded UTF-8',
    forPerson: 'The address has a broken escape (a % sign not followed by two hexadecimal digits of UTF-8 text). Check the address, or start again from the start page.',
  },
  FST_ERR_MAX_PARAM_LENGTH: {
    status: 414,
    description: 'A path segment of the request is too long',
    forPerson: 'A part of the address is too long. Check the address, or start again from the start page.',
  },
};
const UNROUTABLE: RouterError = { status: 500, description: 'The server could not route this request', forPerson: 'The server could not route this request. Try again in a moment.' };

/**
 * Fastify's `frameworkErrors`: no hook has run, so the request id, the security headers and the log line are set
 * here. Under /oauth2/ and /.well-known/ the API's JSON error; elsewhere (an avatar's or an app's address with a broken
 * escape or an overlong segment) the error page a person can read, with the headers every page carries, as the
 * not-found handler answers there.
 */
export function frameworkErrorAnswer(
  headers: { everyResponse: Readonly<Record<string, string>>; documentsOnly: Readonly<Record<string, string>> },
  /** What hooks would have done for a page before it is drawn (the header's sign-in state). */
  preparePage: (request: FastifyRequest) => Promise<void> = async () => {},
) {
  return function answerFrameworkError(error: FastifyError, request: FastifyRequest, reply: FastifyReply): FastifyReply | Promise<FastifyReply> {
    const { status, description, forPerson } = ROUTER_ERRORS[error.code] ?? UNROUTABLE;
    const line = { req: request, res: { statusCode: status } };
    if (status >= 500) request.log.error({ ...line, err: error }, 'request errored');
    else request.log.info({ ...line, error: 'invalid_request', reason: description, frameworkError: error.code }, 'request completed');
    noStore(reply.code(status).headers(headers.everyResponse).header('x-request-id', request.id));
    if (!isApiPath(request.url)) {
      // The page is drawn whatever preparing it met (signed out, the safe default, if the state could not be read).
      return preparePage(request)
        .catch(() => {})
        .then(() => renderErrorPage(reply.headers(headers.documentsOnly), request, new PageError(status, forPerson)));
    }
    return reply.type('application/json; charset=utf-8').send({ error: status >= 500 ? 'server_error' : 'invalid_request', error_description: description, request_id: request.id });
  };
}

/** Node's and the stream layer's ways of saying the other end closed the connection. */
const CLIENT_GONE_CODES = new Set(['ECONNRESET', 'EPIPE', 'ECONNABORTED', 'ERR_STREAM_PREMATURE_CLOSE', 'ERR_STREAM_DESTROYED', 'FST_MP_PREMATURE_CLOSE']);

/** True when an error only says that the client went away (aborted its request, reset the connection). */
export function isClientGone(error: Error & { code?: string }): boolean {
  return (error.code !== undefined && CLIENT_GONE_CODES.has(error.code)) || error.message === 'aborted';
}

/** The one fact about a client that went away worth a log line: how, without a stack. */
export function describeClientGone(error: Error & { code?: string }): string {
  return error.code ? `${error.code}: ${error.message}` : error.message;
}
