/**
 * Limits on every door (issue 16 item 6; docs/protocol-decisions.md "Rate limits"): one rate limiter per endpoint
 * class, and the hooks that answer 429 Too Many Requests (RFC 6585 §4) with Retry-After (RFC 9110 §10.2.3) in the
 * surface's own error shape:
 * - the client-authenticated API (token, revocation, introspection): per authenticated client, and separately the
 *   failed client authentications per client id and address, and per address whatever the client id; OAuth JSON
 *   `temporarily_unavailable`;
 * - the authorization endpoint and the consent decision: per address; an error page (nothing is redirected: the
 *   request was not read, so its redirect_uri is not verified);
 * - the pages: per address; an error page for a person;
 * - the registration API (RFC 7591, RFC 7592): every request per address, in JSON; besides, valid open
 *   registrations have their own hourly limit per address (oauth/registration.ts).
 *
 * Every check is a lookup in this process's memory; counts reach the shared counter (Redis when configured) in the
 * background (rate-limiter.ts). Throttled answers are counted by the metrics' `latch_throttled_requests_total`.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { PageError } from '../errors.js';
import type { LimitSettings } from '../config-limits.js';
import { decodeFormEncoded, splitBasicCredentials } from './basic-credentials.js';
import { multipartParamsRead, readFormParams } from './form-body.js';
import { RateLimiter, SYNC_INTERVAL_MS, type WindowCounter } from './rate-limiter.js';
import { renderErrorPage } from './render-page.js';
import { noteRequestFailure } from './request-failure.js';
import { noStore } from './security-headers.js';

export interface RateLimits {
  readonly token: RateLimiter;
  readonly clientAuthFailures: RateLimiter;
  readonly clientAuthFailuresPerAddress: RateLimiter;
  readonly authorize: RateLimiter;
  readonly pages: RateLimiter;
  readonly registration: RateLimiter;
  /** Adds every limiter's counts to the shared counter now (the timer does it every SYNC_INTERVAL_MS). */
  sync(): Promise<void>;
  close(): void;
}

/**
 * The limiters of one app. With `shared` (the attempt counter given to the app: Redis in a deployment that has it),
 * their counts are shared across processes; without, each process counts alone.
 */
export function createRateLimits(settings: LimitSettings, shared?: WindowCounter): RateLimits {
  const limiter = (name: string, limit: number) => new RateLimiter({ name, limit, windowSeconds: settings.windowSeconds }, shared);
  const limiters = {
    token: limiter('token', settings.tokenPerClient),
    clientAuthFailures: limiter('client-auth-failures', settings.clientAuthFailures),
    clientAuthFailuresPerAddress: limiter('client-auth-failures-address', settings.clientAuthFailuresPerAddress),
    authorize: limiter('authorize', settings.authorizePerAddress),
    pages: limiter('pages', settings.pagesPerAddress),
    registration: limiter('registration', settings.registrationRequestsPerAddress),
  };
  const all = Object.values(limiters);
  const sync = async () => {
    await Promise.all(all.map((l) => l.sync()));
  };
  // Ended windows are forgotten once a window (a sweep walks every key); counts are shared every SYNC_INTERVAL_MS.
  let lastSweep = Date.now();
  const timer = setInterval(() => {
    const now = Date.now();
    if (now - lastSweep >= settings.windowSeconds * 1000) {
      lastSweep = now;
      for (const l of all) l.sweep(now);
    }
    void sync();
  }, shared ? SYNC_INTERVAL_MS : settings.windowSeconds * 1000);
  timer.unref();
  return { ...limiters, sync, close: () => clearInterval(timer) };
}

/** The claimed client id, before authentication: from HTTP Basic (RFC 6749 §2.3.1) or a form body's client_id. */
export function claimedClientId(request: FastifyRequest): string {
  const header = request.headers.authorization;
  if (header !== undefined) {
    // As client authentication reads it; a header it refuses claims no client (its failures count per address).
    const parts = splitBasicCredentials(header);
    return 'problem' in parts ? '' : (decodeFormEncoded(parts.id) ?? parts.id).slice(0, 256);
  }
  // A multipart body once read (the route reads it; the check before the route reads it when it must).
  const multipart = typeof request.isMultipart === 'function' && request.isMultipart();
  const fromBody = multipart ? multipartParamsRead(request)?.client_id : (request.body as Record<string, unknown> | null | undefined)?.client_id;
  return typeof fromBody === 'string' ? fromBody.slice(0, 256) : '';
}

/** 429 in the OAuth JSON shape (docs/protocol-decisions.md "Rate limits"), with Retry-After and the request id. */
export function sendJsonTooMany(request: FastifyRequest, reply: FastifyReply, seconds: number, description: string): FastifyReply {
  noteRequestFailure(request, { error: 'temporarily_unavailable', reason: description, outcome: 'rate limited' });
  noStore(reply);
  return reply
    .code(429)
    .header('retry-after', String(seconds))
    .type('application/json; charset=utf-8')
    .send({ error: 'temporarily_unavailable', error_description: description, request_id: request.id });
}

function sendPageTooMany(request: FastifyRequest, reply: FastifyReply, seconds: number): FastifyReply {
  const error = new PageError(429, `Too many requests came from your network just now. Wait ${seconds} second${seconds === 1 ? '' : 's'}, then try again.`);
  noteRequestFailure(request, { error: 'too_many_requests', reason: error.description, outcome: 'rate limited' });
  return renderErrorPage(reply.code(429).header('retry-after', String(seconds)), request, error);
}

/**
 * The client-authenticated API (its plugin scope: token, revocation, introspection). Checked before the route
 * (the client as claimed, nothing read from storage); counted after the answer: a request whose client was found
 * and not refused as invalid_client counts against that client, a failed authentication against the client id
 * and address (so that nobody can spend another client's allowance by naming it).
 */
export function limitClientRequests(scope: FastifyInstance, limits: RateLimits): void {
  const { token, clientAuthFailures, clientAuthFailuresPerAddress: addressFailures } = limits;
  if (!token.enabled && !clientAuthFailures.enabled && !addressFailures.enabled) return;
  const failureKey = (request: FastifyRequest) => `${claimedClientId(request)} ${request.ip}`;
  const refusal = (request: FastifyRequest, reply: FastifyReply, now: number): boolean => {
    const id = claimedClientId(request);
    const fromAddress = addressFailures.wait(request.ip, now);
    if (fromAddress > 0) {
      sendJsonTooMany(request, reply, fromAddress, `Too many failed client authentications from this address: at most ${addressFailures.rule.limit} in ${addressFailures.rule.windowSeconds} seconds, whatever the client id; retry after ${fromAddress} seconds`);
      return true;
    }
    const failing = clientAuthFailures.wait(`${id} ${request.ip}`, now);
    if (failing > 0) {
      sendJsonTooMany(request, reply, failing, `Too many failed client authentications for this client from this address: at most ${clientAuthFailures.rule.limit} in ${clientAuthFailures.rule.windowSeconds} seconds; check the client id and secret, then retry after ${failing} seconds`);
      return true;
    }
    const busy = id === '' ? 0 : token.wait(id, now);
    if (busy > 0) {
      sendJsonTooMany(request, reply, busy, `Too many requests from this client: at most ${token.rule.limit} in ${token.rule.windowSeconds} seconds; retry after ${busy} seconds`);
      return true;
    }
    return false;
  };
  scope.addHook('preHandler', (request, reply, done) => {
    const now = Date.now();
    // Nothing is over a limit (the usual case): no credentials to read. A CORS preflight carries none, and is never
    // refused for what others sent.
    if ((!clientAuthFailures.mayRefuse(now) && !addressFailures.mayRefuse(now) && !token.mayRefuse(now)) || request.method === 'OPTIONS') {
      done();
      return;
    }
    // A multipart body without Basic credentials names its client inside: read it now (once; the route gets the
    // same parameters), so that the body's client_id is checked like a form's.
    if (request.isMultipart() && request.headers.authorization === undefined) {
      Promise.resolve(readFormParams(request)).then(
        () => {
          if (!refusal(request, reply, now)) done();
        },
        (error: Error) => done(error),
      );
      return;
    }
    if (!refusal(request, reply, now)) done();
  });
  scope.addHook('onResponse', (request, reply, done) => {
    const status = reply.statusCode;
    if (status !== 429) {
      const client = request.latchClient;
      if (status === 401 && reply.getHeader('www-authenticate')?.toString().startsWith('Basic')) {
        const now = Date.now();
        clientAuthFailures.hit(failureKey(request), now);
        addressFailures.hit(request.ip, now);
      } else if (client) token.hit(client.clientId, Date.now());
    }
    done();
  });
}

/**
 * One class of doors limited per client address (`request.ip`: the proxy's forwarded one with LATCH_TRUST_PROXY):
 * the browser doors (the authorization endpoint, the pages) answer with an error page, the registration API in JSON.
 */
export function limitByAddress(scope: FastifyInstance, limiter: RateLimiter, answer: 'page' | 'json' = 'page'): void {
  if (!limiter.enabled) return;
  scope.addHook('onRequest', (request, reply, done) => {
    const seconds = limiter.hit(request.ip, Date.now());
    if (seconds === 0) done();
    else if (answer === 'page') sendPageTooMany(request, reply, seconds);
    else sendJsonTooMany(request, reply, seconds, `Too many requests from this address: at most ${limiter.rule.limit} in ${limiter.rule.windowSeconds} seconds; retry after ${seconds} seconds`);
  });
}
