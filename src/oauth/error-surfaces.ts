/**
 * The three error surfaces (docs/protocol-decisions.md "Error model"), each a Fastify error handler scoped to its
 * plugin:
 * - oauthJsonErrorHandler: /token and /userinfo; RFC 6749 §5.2 JSON, RFC 6750 §3 challenges.
 * - authorizeErrorHandler: /authorize; the one place that decides "redirect or error page".
 * - pageErrorHandler: Latch's own pages, where a person reads the error: a PageError, or any other error by its
 *   description, never with an OAuth code.
 * Anything that is neither an OAuthError nor a PageError becomes server_error with a generic description; the full error goes
 * to the log only, with the request id that the response also carries.
 */
import { STATUS_CODES } from 'node:http';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../config.js';
import { InvalidClient, InvalidRequest, InvalidToken, OAuthError, PageError, ServerError, TemporarilyUnavailable } from '../errors.js';
import { buildRedirectUrl } from './request/redirect.js';
import { DATABASE_RETRY_AFTER_SECONDS, isDatabaseUnavailable } from '../storage/database-unavailable.js';
import type { Storage } from '../storage/storage.js';
import { renderErrorPage } from '../http/render-page.js';
import { recordClientFailure } from './client-failure-log.js';
import { noteRequestFailure } from '../http/request-failure.js';
import { noStore } from '../http/security-headers.js';
import { noteSignInState } from '../session/sign-in-state.js';

type ErrorHandler = (error: FastifyError | Error, request: FastifyRequest, reply: FastifyReply) => Promise<FastifyReply>;

/** Warnings about the database being away in this process: when the last was written, and how many were held back since. */
const unavailableWarnings = { lastAt: 0, suppressed: 0 };

/** Turns whatever was thrown into an OAuthError: framework 4xx errors become invalid_request with a useful description. */
export function toOAuthError(error: FastifyError | Error, request: FastifyRequest): OAuthError {
  if (error instanceof OAuthError) return error;
  const fastifyError = error as FastifyError;
  if (fastifyError.validation) return new InvalidRequest(`Invalid parameter: ${fastifyError.message}`);
  const status = fastifyError.statusCode ?? 500;
  if (status >= 400 && status < 500) return new InvalidRequest(describeClientFault(fastifyError), { cause: error });
  if (isDatabaseUnavailable(error)) {
    // The operator's to fix, not a bug: a warning without a stack, and the client is told to come back.
    // At most one warning a second: an outage under load would otherwise write thousands (every request's own
    // line already says 503).
    const { code } = error as { code?: unknown };
    const now = Date.now();
    if (now - unavailableWarnings.lastAt >= 1000) {
      request.log.warn({ reason: error.message, code, alsoSince: unavailableWarnings.suppressed }, 'database unavailable');
      unavailableWarnings.lastAt = now;
      unavailableWarnings.suppressed = 0;
    } else {
      unavailableWarnings.suppressed += 1;
    }
    return new TemporarilyUnavailable('The service cannot reach its database right now; retry in a few seconds', {
      cause: error,
      retryAfterSeconds: DATABASE_RETRY_AFTER_SECONDS,
    });
  }
  request.log.error({ err: error }, 'unexpected error');
  return new ServerError({ cause: error });
}

function describeClientFault(error: FastifyError): string {
  switch (error.code) {
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return 'Unsupported Content-Type; send application/x-www-form-urlencoded or multipart/form-data';
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
    case 'FST_REQ_FILE_TOO_LARGE':
    case 'FST_PARTS_LIMIT':
    case 'FST_FIELDS_LIMIT':
      return 'Request body is too large';
    case 'FST_FILES_LIMIT':
      return 'File uploads are not accepted here; send form fields only';
    // JSON bodies (registration, RFC 7591 §3.1; the passkey endpoints): say what a JSON body must be. Fastify's parser
    // (secure-json-parse) refuses __proto__ and constructor.prototype members with the same code as a syntax error.
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return 'The request body is empty; send a JSON object';
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return 'The request body is not valid JSON, or has a __proto__ or constructor.prototype member, which Latch refuses; send a JSON object';
    case 'FST_PROTO_VIOLATION':
      return 'Forbidden parameter name';
    case 'FST_CSRF_INVALID_TOKEN':
    case 'FST_CSRF_MISSING_SECRET':
      return 'This form has expired or did not come from Latch; go back, reload the page and try again';
    default:
      return `Malformed request: ${error.message}`;
  }
}

/**
 * A client's mistake is told in the request's one log line (app.ts OneLinePerRequest), at info, without a
 * stack: what was refused and why. Latch's own faults were logged with their stack by toOAuthError.
 */
function noteFailure(request: FastifyRequest, error: OAuthError, outcome: string): void {
  noteRequestFailure(request, { error: error.code, reason: error.description, clientId: request.latchClient?.clientId, outcome });
}

/** Retry-After on every 503 (RFC 9110 §10.2.3), so that clients and load balancers back off instead of hammering. */
function setRetryAfter(reply: FastifyReply, error: OAuthError): void {
  if (error instanceof TemporarilyUnavailable) reply.header('retry-after', String(error.retryAfterSeconds));
}

/**
 * A body over the limit (64 KiB, app.ts) is 413 Content Too Large on every surface (RFC 9110 §15.5.14; issue 16
 * item 6): the JSON answer keeps the error code invalid_request, the pages their error page.
 */
function isTooLarge(thrown: FastifyError | Error): boolean {
  const { code } = thrown as FastifyError;
  return code === 'FST_ERR_CTP_BODY_TOO_LARGE' || code === 'FST_REQ_FILE_TOO_LARGE';
}

function sendJsonError(reply: FastifyReply, request: FastifyRequest, error: OAuthError, status = error.status): FastifyReply {
  noStore(reply);
  setRetryAfter(reply, error);
  return reply.code(status).type('application/json; charset=utf-8').send({ ...error.toJSON(), request_id: request.id });
}

export function oauthJsonErrorHandler(storage: Storage, endpoint: string): ErrorHandler {
  return async (thrown, request, reply) => {
    const error = toOAuthError(thrown, request);
    // RFC 9110 §15.5.2: every 401 names a challenge. RFC 6749 §5.2 requires it when Basic was tried; a client that
    // authenticated in the body (or not at all) is told the same scheme, which it may use instead.
    if (error instanceof InvalidClient) reply.header('www-authenticate', 'Basic realm="latch", charset="UTF-8"');
    if (error instanceof InvalidToken) {
      // RFC 6750 §3.1: no error attribute when the request carried no token at all.
      const challenge = error.tokenWasSent
        ? `Bearer realm="latch", error="invalid_token", error_description="${error.wireDescription}"`
        : 'Bearer realm="latch"';
      reply.header('www-authenticate', challenge);
    }
    noteFailure(request, error, `${endpoint} failed`);
    await recordClientFailure(storage, request, endpoint, error);
    // Every handler here returns the reply it sent: Fastify's rule for async handlers (http/batched-writes.ts).
    return sendJsonError(reply, request, error, isTooLarge(thrown) ? 413 : error.status);
  };
}

export function authorizeErrorHandler(storage: Storage, config: Config): ErrorHandler {
  return async (thrown, request, reply) => {
    const error = toOAuthError(thrown, request);
    noteFailure(request, error, 'authorization failed');
    await recordClientFailure(storage, request, 'authorize', error);
    const target = request.authorizeErrorTarget;
    if (target && error.redirectable) {
      // RFC 6749 §4.1.2.1 with RFC 9207 iss: only to a redirect_uri already verified for this client.
      const location = buildRedirectUrl(target.redirectUri, {
        error: error.code,
        error_description: error.wireDescription,
        state: target.state,
        iss: config.issuer,
      });
      return reply.header('referrer-policy', 'no-referrer').redirect(location, 302);
    }
    reply.code(isCsrfFailure(thrown) ? 403 : isTooLarge(thrown) ? 413 : error.status === 503 ? 503 : error.status >= 500 ? 500 : 400);
    setRetryAfter(reply, error);
    if (!isDatabaseUnavailable(thrown)) await noteSignInState(storage, config, request);
    return renderErrorPage(reply, request, error);
  };
}

/** A form post whose CSRF token is missing or not this browser's: 403 on every surface. */
function isCsrfFailure(thrown: FastifyError | Error): boolean {
  return (thrown as FastifyError).code?.startsWith('FST_CSRF') ?? false;
}

/** The log's name for a page error's status (404 → not_found): pages send no OAuth code. */
function pageErrorName(status: number): string {
  return (STATUS_CODES[status] ?? `http ${status}`).toLowerCase().replace(/[^a-z0-9]+/g, '_');
}

/**
 * Latch's own pages: a person reads the error, so the page shows what happened and the request id, never an
 * OAuth error code (a PageError has none; anything else is shown by its description only).
 */
export function pageErrorHandler(signIn?: { storage: Storage; config: Config }): ErrorHandler {
  return async (thrown, request, reply) => {
    // The header says whether the person is signed in, on error pages too (issue 19 item 2).
    // Not while the database is away: the page says so, and the header offers "Sign in".
    if (signIn && !isDatabaseUnavailable(thrown)) await noteSignInState(signIn.storage, signIn.config, request);
    if (thrown instanceof PageError) {
      reply.code(thrown.status);
      noteRequestFailure(request, { error: pageErrorName(thrown.status), reason: thrown.description, outcome: 'page failed' });
      return renderErrorPage(reply, request, thrown);
    }
    const error = toOAuthError(thrown, request);
    // Pages are not OAuth endpoints: a framework 4xx keeps its own status (413 too large, 415 wrong type).
    const frameworkStatus = (thrown as FastifyError).statusCode;
    const status = isCsrfFailure(thrown)
      ? 403
      : !(thrown instanceof OAuthError) && frameworkStatus !== undefined && frameworkStatus >= 400 && frameworkStatus < 500
        ? frameworkStatus
        : error.status;
    reply.code(status === 503 ? 503 : status >= 500 ? 500 : status);
    noteFailure(request, error, 'page failed');
    setRetryAfter(reply, error);
    return renderErrorPage(reply, request, new PageError(reply.statusCode, error.description));
  };
}
