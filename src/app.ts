/**
 * buildApp: the whole HTTP application, built without listening so that tests and the server share it.
 *
 * Three encapsulated plugin groups map to the three error surfaces (docs/protocol-decisions.md "Error model"):
 * `oauthApi` (token, revocation, introspection: JSON errors), `authorizeFlow` (authorize and the consent
 * decision: redirect or error page) and `pages` (sign-in and the other pages: HTML errors). Dependencies are passed
 * as arguments, not decorators.
 */
import { randomUUID } from 'node:crypto';
import type { ServerOptions } from 'node:http';
import pino from 'pino';
import fastifyCookie from '@fastify/cookie';
import fastifyCsrfProtection from '@fastify/csrf-protection';
import fastifyFormbody from '@fastify/formbody';
import fastifyMultipart from '@fastify/multipart';
import Fastify, { LogController, type FastifyError, type FastifyInstance, type FastifyReply, type FastifyRequest, type FastifyServerOptions } from 'fastify';
import { createMemoryAttemptCounter, SignInThrottle, type AttemptCounter } from './accounts/sign-in-throttle.js';
import { AuditLog } from './audit/audit-log.js';
import type { Config } from './config.js';
import { SigningKeyCache } from './keys/signing-key-cache.js';
import { InvalidRequest, PageError } from './errors.js';
import { answerClientError, describeClientGone, frameworkErrorAnswer, isApiPath, isClientGone } from './http/client-error.js';
import { authorizeErrorHandler, oauthJsonErrorHandler, pageErrorHandler } from './oauth/error-surfaces.js';
import { registerBatchedWrites } from './http/batched-writes.js';
import { registerHealthRoutes } from './http/health.js';
import { contentEncodingProblem } from './http/content-encoding.js';
import { registerJsonBodyParser } from './http/json-body.js';
import { assertWellFormedPercentEncoding, nulCharacter, parseWellFormedForm } from './http/percent-encoding.js';
import { createRouteMethods } from './http/route-methods.js';
import { createRateLimits, limitByAddress, limitClientRequests } from './http/rate-limits.js';
import { noteRequestFailure, requestFailure } from './http/request-failure.js';
import { computeHelmetHeaders, splitDocumentOnlyHeaders } from './http/security-headers.js';
import './http/request-context.js';
import { registerAccountRoutes } from './accounts/account-routes.js';
import { registerTwoStepRoutes } from './accounts/second-factor/two-step-routes.js';
import { registerEmailVerificationRoutes } from './accounts/email-verification-routes.js';
import { registerHomeRoutes } from './accounts/home-routes.js';
import { registerPasswordResetRoutes } from './accounts/password-reset-routes.js';
import { registerSignInRoutes } from './accounts/sign-in-routes.js';
import { registerSignupRoutes } from './accounts/signup-routes.js';
import { registerDeveloperRoutes } from './developer/developer-routes.js';
import { registerAdminRoutes } from './admin/admin-routes.js';
import { createMailer, type Mailer } from './mail/mailer.js';
import { outboxPageIsAvailable, registerOutboxRoutes } from './mail/outbox-routes.js';
import { registerAuthorizeRoutes } from './oauth/authorize.js';
import { registerDeviceAuthorizationRoute } from './oauth/device/device-authorization.js';
import { registerDevicePageRoutes } from './oauth/device/device-page.js';
import { createStepUp } from './accounts/second-factor/step-up.js';
import { registerClientCors } from './oauth/cors.js';
import { registerRegistrationRoutes } from './oauth/registration.js';
import { registerDiscoveryRoutes } from './oauth/discovery.js';
import { registerIntrospectionRoute } from './oauth/introspection.js';
import { registerJwksRoute } from './oauth/jwks.js';
import { registerLogoutRoutes } from './oauth/logout.js';
import { registerRevocationRoute } from './oauth/revocation.js';
import { registerTokenRoute } from './oauth/token.js';
import { registerUserinfoRoutes } from './oauth/userinfo.js';
import type { Observability } from './observability/observability.js';
import { noSessionEndings, type SessionEndings } from './session/session-endings.js';
import type { Storage } from './storage/storage.js';
import { renderErrorPage } from './http/render-page.js';
import { SCRIPT } from './views/script.js';
import { buildPageFrame, registerPageFrameRoutes } from './http/page-frame.js';
import { noteSignInState, signInStateHook } from './session/sign-in-state.js';

export interface AppDeps {
  config: Config;
  storage: Storage;
  /** Shared failure counters (Redis when configured); in memory, per process, by default. */
  attemptCounter?: AttemptCounter;
  /** Outgoing mail; by default SMTP when LATCH_SMTP_URL is set, else the local outbox. */
  mailer?: Mailer;
  /** The id_token signing keys, loaded once per process; opened here (and closed with the app) when not given. */
  signingKeys?: SigningKeyCache;
  logger?: FastifyServerOptions['logger'];
  /** Whether the shared counters' store (Redis) answers; reported by /readyz. Absent when none is configured. */
  sharedCounterStatus?: () => 'ok' | 'degraded';
  /** Told whenever browser sessions end through a person's action (session/session-endings.ts); nobody by default. */
  sessionEndings?: SessionEndings;
  /** Metrics, tracing and Server-Timing (observability/observability.ts); their hooks are added first. None by default. */
  observability?: Pick<Observability, 'instrument'>;
  /** The audit trail's writer (audit/audit-log.ts); made here (and flushed when the app closes) when not given. */
  auditLog?: AuditLog;
}

/** Form bodies are small: the largest legitimate one is a consent form carrying an authorization request. */
const BODY_LIMIT_BYTES = 64 * 1024;

/**
 * Log lines are buffered and written to stdout in chunks of whole lines, off the event loop: when 2 KiB have
 * gathered, else every 250 ms, and at exit. One write per line was a large share of a userinfo request's CPU under
 * load, most of it in handing each write to the thread pool (BENCHMARKS.md, "Request log: buffered writes"). A
 * chunk stays within 4 KiB (PIPE_BUF), so that the lines of several processes on one pipe
 * (`latch serve --workers`) never mix.
 */
const LOG_BUFFER_BYTES = 2048;
const LOG_WRITE_MAX_BYTES = 4096;
const LOG_FLUSH_INTERVAL_MS = 250;

export function buildLoggerOptions(config: Config): FastifyServerOptions['logger'] {
  const stream =
    config.logLevel === 'silent'
      ? undefined
      : pino.destination({ dest: 1, sync: false, minLength: LOG_BUFFER_BYTES, maxWrite: LOG_WRITE_MAX_BYTES, periodicFlush: LOG_FLUSH_INTERVAL_MS });
  return {
    ...(stream && { stream }),
    level: config.logLevel,
    // Nothing secret in logs: a request is logged as method, path without its query string (codes, states)
    // and address, never with its headers; a reply as its status (Fastify's res serializer). No pino redact:
    // with these serializers no header can reach a log line, and redaction costs CPU on every request
    // (BENCHMARKS.md, "Request log: serializers instead of redaction").
    serializers: {
      req: (request: { method: string; url: string; ip?: string }) => {
        const query = request.url.indexOf('?');
        return { method: request.method, path: query < 0 ? request.url : request.url.slice(0, query), ip: request.ip };
      },
    },
  };
}

/**
 * One log line per request instead of Fastify's two ("incoming request", then "request completed"): the same facts
 * (method, path, client address, status, time, request id) at half the logging cost on the hot paths
 * (BENCHMARKS.md, "Request log: one line per request").
 *
 * The log tells operators what is theirs to fix: a client's mistake (every 4xx) is this one line at info, with
 * the error and reason the client was sent (http/request-failure.ts), never a stack. Error level, with the
 * stack, is only for Latch's own faults: a 5xx, or a response that failed while the client was still there.
 */
class OneLinePerRequest extends LogController {
  override incomingRequest(): void {}

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    if (this.isLogDisabled(request)) return;
    const failure = requestFailure(request);
    const line = failure ? { req: request, res: reply, responseTime: reply.elapsedTime, ...failure } : { req: request, res: reply, responseTime: reply.elapsedTime };
    // A probe route logs only problems (logLevel warn, health.ts): its 4xx, a malformed probe, is told at warn.
    if (!error) reply.statusCode >= 400 && request.routeOptions.logLevel === 'warn' ? reply.log.warn(line, 'request completed') : reply.log.info(line, 'request completed');
    // Fastify passes an error only when writing the response failed: mostly a client that went away.
    else if (isClientGone(error)) reply.log.info({ ...line, clientGone: describeClientGone(error) }, 'request completed: the client went away');
    else reply.log.error({ ...line, err: error }, 'request errored');
  }

  /**
   * Fastify's own error handler, for errors outside the three error surfaces (a body refused on no route, on
   * the health routes): a 4xx is the client's, told in the request's line; Fastify logged it with the stack.
   */
  override defaultErrorLog(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
    if (this.isLogDisabled(request)) return;
    if (reply.statusCode >= 500) reply.log.error({ req: request, res: reply, err: error }, error?.message);
    else noteRequestFailure(request, { error: error?.code ?? 'invalid_request', reason: error?.message ?? 'Bad request', outcome: 'request failed' });
  }

  /** A response stream that ended early because its client closed the connection: nothing to fix. */
  override streamError(error: Error & { code?: string }, request: FastifyRequest, reply: FastifyReply): void {
    if (this.isLogDisabled(request)) return;
    if (isClientGone(error)) reply.log.info({ res: reply, clientGone: describeClientGone(error) }, 'response stream ended: the client went away');
    else reply.log.warn({ res: reply, err: error }, 'response terminated with an error with headers already sent');
  }
}

/**
 * Every request is bounded in time (`LATCH_REQUEST_TIMEOUT_SECONDS`, `LATCH_KEEP_ALIVE_TIMEOUT_SECONDS`):
 * - requestTimeout and headersTimeout: the whole request (headers and body) must arrive within it, or Node
 *   answers 408 and closes the connection (a body shorter than its Content-Length, a chunked body that never
 *   ends, slowloris). Fastify turns Node's 300 s default off; we set it back.
 * - keepAliveTimeout: an idle keep-alive connection is closed after it. Above a load balancer's own idle
 *   timeout (60 s on most), so that the balancer, not Latch, closes idle connections (README "Timeouts").
 * - connectionsCheckingInterval: how often Node looks for requests past their timeout (default 30 s, which
 *   would let a stalled request live up to 30 s longer than configured).
 */
function requestTimeouts(config: Config): { requestTimeout: number; keepAliveTimeout: number; http: ServerOptions } {
  const requestMs = config.requestTimeoutSeconds * 1000;
  return {
    requestTimeout: requestMs,
    keepAliveTimeout: config.keepAliveTimeoutSeconds * 1000,
    // Node answers a missing Host header with a bare 400 of its own (no description, no request id, no log
    // line); Latch checks it itself below, like every other malformed request.
    // requestTimeout here too: Node checks headersTimeout <= requestTimeout when it creates the server, before
    // Fastify sets requestTimeout, and its default there is 300 s.
    http: { requestTimeout: requestMs, headersTimeout: requestMs, connectionsCheckingInterval: Math.min(1000, requestMs / 2), requireHostHeader: false },
  };
}

export async function buildApp(deps: AppDeps): Promise<FastifyInstance> {
  const { config, storage } = deps;
  // What every response carries: the request id, and helmet's headers, computed once (security-headers.ts);
  // those that only concern documents go on pages and the authorize flow, not on JSON answers.
  // Pages set their own CSP (http/render-page.tsx); API responses get this strict default.
  const securityHeaders = splitDocumentOnlyHeaders(computeHelmetHeaders({
    contentSecurityPolicy: { useDefaults: false, directives: { defaultSrc: ["'none'"], frameAncestors: ["'none'"], baseUri: ["'none'"], formAction: ["'none'"] } },
    frameguard: { action: 'deny' },
    referrerPolicy: { policy: 'no-referrer' },
    crossOriginResourcePolicy: { policy: 'same-site' },
    strictTransportSecurity: config.secureCookies ? { maxAge: 31536000 } : false,
  }));
  const app = Fastify({
    logger: deps.logger ?? buildLoggerOptions(config),
    genReqId: () => randomUUID(),
    logController: new OneLinePerRequest(),
    trustProxy: config.trustProxy,
    bodyLimit: BODY_LIMIT_BYTES,
    routerOptions: { maxParamLength: 200 },
    clientErrorHandler: answerClientError,
    // No hook has run for these: the page's header reads the sign-in state from the cookie it parses here.
    frameworkErrors: frameworkErrorAnswer(securityHeaders, async (request) => {
      request.cookies = app.parseCookie(request.headers.cookie ?? '');
      await noteSignInState(storage, config, request);
    }),
    ...requestTimeouts(config),
  });
  // Before any route: its hooks are added per route as routes are registered.
  deps.observability?.instrument(app);
  // Every route as registered, so that a known path asked with another method is 405 with Allow (route-methods.ts).
  const routeMethods = createRouteMethods();
  app.addHook('onRoute', (route) => routeMethods.add(route.method, route.url));
  const attemptCounter = deps.attemptCounter ?? createMemoryAttemptCounter();
  const sessionEndings = deps.sessionEndings ?? noSessionEndings;
  // Limits on every door (http/rate-limits.ts): counted in memory, shared through the given counter (Redis) if any.
  const rateLimits = createRateLimits(config.limits, deps.attemptCounter);
  app.addHook('onClose', async () => rateLimits.close());
  const signInThrottle = new SignInThrottle(attemptCounter, {
    maxFailuresPerAccount: config.signInMaxFailuresPerAccount,
    maxFailuresPerAddress: config.signInMaxFailuresPerAddress,
    windowSeconds: config.signInWindowSeconds,
  });

  let signingKeys = deps.signingKeys;
  if (!signingKeys) {
    const ownKeys = await SigningKeyCache.open(storage, config.secret, { refreshSeconds: config.signingKeyRefreshSeconds, logger: app.log });
    app.addHook('onClose', async () => ownKeys.close());
    signingKeys = ownKeys;
  }

  const addDocumentHeaders = (_request: FastifyRequest, reply: FastifyReply, done: () => void) => {
    reply.headers(securityHeaders.documentsOnly);
    done();
  };
  app.addHook('onRequest', (request, reply, done) => {
    reply.headers(securityHeaders.everyResponse);
    reply.header('x-request-id', request.id);
    // RFC 9112 §3.2: a server must answer 400 to an HTTP/1.1 request without a Host header.
    if (request.raw.httpVersion === '1.1' && request.headers.host === undefined) {
      done(new InvalidRequest('The request has no Host header; HTTP/1.1 requires one (RFC 9112, section 3.2)'));
      return;
    }
    // A compressed body would be read as it came (http/content-encoding.ts).
    const encoded = contentEncodingProblem(request, reply);
    if (encoded) {
      done(encoded);
      return;
    }
    // A broken escape in the query would reach a parameter as literal text (http/percent-encoding.ts).
    const query = request.url.indexOf('?');
    if (query >= 0 && request.url.includes('%', query)) {
      try {
        assertWellFormedPercentEncoding(request.url.slice(query + 1), 'query string');
      } catch (error) {
        done(error as Error);
        return;
      }
    }
    // A NUL in the path or the query (a path parameter, a client_id) would reach the database (http/percent-encoding.ts
    // nulCharacter); a raw one never gets past Node's HTTP parser.
    if (request.url.includes('%00')) {
      done(nulCharacter('request URL'));
      return;
    }
    done();
  });
  // Errors outside the three surfaces (health probes, a body refused on a path that does not exist): the same
  // JSON shape as the API's, with a description and the request id.
  app.setErrorHandler(oauthJsonErrorHandler(storage, 'request'));
  // The operator's brand on every page (http/page-frame.ts), read by http/render-page.tsx.
  const pageFrame = buildPageFrame(config.brand);
  app.decorate('pageFrame', pageFrame);
  registerBatchedWrites(app);
  const audit = deps.auditLog ?? new AuditLog(storage, { logger: app.log });
  if (!deps.auditLog) app.addHook('onClose', async () => audit.close());
  const mailer = deps.mailer ?? createMailer(config, storage, app.log);
  app.addHook('onClose', async () => mailer.close());
  if (mailer.kind === 'outbox') {
    app.log.warn(
      outboxPageIsAvailable(config)
        ? 'LATCH_SMTP_URL is not set: mails are printed to this log and shown at /dev/outbox instead of being sent'
        : 'LATCH_SMTP_URL is not set: mails are printed to this log instead of being sent',
    );
  }

  await app.register(fastifyCookie);
  // Fastify's JSON parser, then no NUL in any string (http/json-body.ts).
  registerJsonBodyParser(app);
  await app.register(fastifyFormbody, {
    bodyLimit: BODY_LIMIT_BYTES,
    // node:querystring's parsing, refusing malformed percent-encoding as it goes (http/percent-encoding.ts).
    parser: parseWellFormedForm,
  });
  await app.register(fastifyCsrfProtection, {
    sessionPlugin: '@fastify/cookie',
    cookieKey: config.secureCookies ? '__Host-latch_csrf' : 'latch_csrf',
    cookieOpts: { path: '/', sameSite: 'lax', httpOnly: true, secure: config.secureCookies },
    // A failed CSRF check is the client's: told at info in the request's one line (error handlers), not a warning.
    logLevel: 'debug',
    getToken: (request) => {
      const token = (request.body as Record<string, unknown> | undefined)?._csrf;
      return typeof token === 'string' ? token : '';
    },
  });

  await app.register(async function health(scope) {
    registerHealthRoutes(scope, { storage, ...(deps.sharedCounterStatus && { redisStatus: deps.sharedCounterStatus }) });
  });

  await app.register(async function oauthApi(api) {
    // Form-urlencoded and multipart bodies only (RFC 6749 §4.1.3; docs/protocol-decisions.md "Token endpoint"):
    // a JSON body is invalid_request, not a second, undocumented way in.
    api.removeContentTypeParser(['application/json', 'text/plain']);
    // Multipart bodies are read part by part in the route (http/form-body.ts), within these limits.
    await api.register(fastifyMultipart, {
      limits: { fields: 30, fieldSize: 16 * 1024, files: 0, parts: 30, headerPairs: 50 },
    });
    api.setErrorHandler(oauthJsonErrorHandler(storage, 'token'));
    // Single-page apps (public clients) call these across origins; introspection stays closed to browsers.
    registerClientCors(api, storage, { '/oauth2/token': { rule: 'client', methods: 'POST' }, '/oauth2/revoke': { rule: 'client', methods: 'POST' } });
    limitClientRequests(api, rateLimits);
    registerTokenRoute(api, { storage, config, signingKeys, audit });
    // The same bodies and client authentication as the token endpoint (RFC 7009 §2.1, RFC 7662 §2.1); each in
    // its own scope only so that a client's failures are recorded under the endpoint they happened at.
    await api.register(async function revocation(scope) {
      scope.setErrorHandler(oauthJsonErrorHandler(storage, 'revocation'));
      registerRevocationRoute(scope, { storage, audit });
    });
    await api.register(async function introspection(scope) {
      scope.setErrorHandler(oauthJsonErrorHandler(storage, 'introspection'));
      registerIntrospectionRoute(scope, { storage, config, signingKeys });
    });
    // RFC 8628 §3.1: the same bodies and client authentication as the token endpoint.
    await api.register(async function deviceAuthorization(scope) {
      scope.setErrorHandler(oauthJsonErrorHandler(storage, 'device_authorization'));
      registerDeviceAuthorizationRoute(scope, { storage, config });
    });
  });

  // RFC 7591/7592: JSON bodies (the root parser), JSON errors.
  await app.register(async function registrationApi(api) {
    api.setErrorHandler(oauthJsonErrorHandler(storage, 'registration'));
    limitByAddress(api, rateLimits.registration, 'json');
    registerRegistrationRoutes(api, { storage, config, audit, counter: attemptCounter });
  });

  await app.register(async function discoveryApi(api) {
    api.setErrorHandler(oauthJsonErrorHandler(storage, 'discovery'));
    registerDiscoveryRoutes(api, { config });
    registerJwksRoute(api, { signingKeys });
  });

  await app.register(async function userinfoApi(api) {
    api.setErrorHandler(oauthJsonErrorHandler(storage, 'userinfo'));
    registerClientCors(api, storage, { '/oauth2/userinfo': { rule: 'any public client', methods: 'GET, POST' } });
    registerUserinfoRoutes(api, { storage });
  });

  await app.register(async function authorizeFlow(flow) {
    flow.addHook('onRequest', addDocumentHeaders);
    limitByAddress(flow, rateLimits.authorize);
    flow.setErrorHandler(authorizeErrorHandler(storage, config));
    registerAuthorizeRoutes(flow, { storage, config, signingKeys, audit, stepUp: createStepUp(storage, config) });
  });

  await app.register(async function pages(pageScope) {
    pageScope.addHook('onRequest', addDocumentHeaders);
    limitByAddress(pageScope, rateLimits.pages);
    pageScope.setErrorHandler(pageErrorHandler({ storage, config }));
    // Every page's header says whether the browser is signed in (session/sign-in-state.ts; issue 19 item 2).
    pageScope.addHook('preHandler', signInStateHook(storage, config));
    registerHomeRoutes(pageScope, { storage, config });
    registerSignInRoutes(pageScope, { storage, config, signInThrottle, sessionEndings, audit });
    const accountDeps = { storage, config, mailer, attemptCounter, sessionEndings, audit };
    registerSignupRoutes(pageScope, accountDeps);
    registerEmailVerificationRoutes(pageScope, accountDeps);
    registerPasswordResetRoutes(pageScope, accountDeps);
    registerAccountRoutes(pageScope, accountDeps);
    registerTwoStepRoutes(pageScope, accountDeps);
    registerDeveloperRoutes(pageScope, { storage, config, audit });
    // The admin console (admin/admin-routes.ts): for accounts with the admin role only.
    registerAdminRoutes(pageScope, accountDeps);
    // A browser endpoint with pages of its own (OIDC RP-Initiated Logout 1.0): errors are pages, never redirects.
    registerLogoutRoutes(pageScope, { storage, config, signingKeys, sessionEndings, audit });
    registerOutboxRoutes(pageScope, { storage, config });
    // RFC 8628 §3.3: where a person types the code their device shows.
    registerDevicePageRoutes(pageScope, { storage, config, audit, attemptCounter, stepUp: createStepUp(storage, config) });
    registerPageFrameRoutes(pageScope, pageFrame);
    pageScope.get('/assets/latch.js', async (_request, reply) =>
      reply.type('text/javascript; charset=utf-8').header('cache-control', 'public, max-age=3600').send(SCRIPT),
    );
  });

  app.setNotFoundHandler(async (request, reply) => {
    const path = request.url.split('?')[0] ?? '/';
    const allowed = routeMethods.allowed(path);
    if (allowed.length > 0) {
      // RFC 9110 §15.5.6: the path exists; say which methods it answers.
      reply.code(405).header('allow', allowed.join(', '));
      // What to use instead: HEAD and OPTIONS (CORS preflights) go without saying.
      const instead = allowed.filter((m) => m !== 'HEAD' && m !== 'OPTIONS').join(' and ');
      // The token endpoint is where this happens most (a browser address bar, a library set to GET): say how.
      const how = path === '/oauth2/token' ? ': send the token request as POST with an application/x-www-form-urlencoded body (RFC 6749 §3.2), never in the URL' : '';
      const description = `${path} answers ${instead}, not ${request.method}${how}`;
      if (isApiPath(request.url)) {
        return reply.send({ error: 'invalid_request', error_description: description, request_id: request.id });
      }
      reply.headers(securityHeaders.documentsOnly);
      await noteSignInState(storage, config, request);
      return renderErrorPage(reply, request, new PageError(405, `This address answers ${instead} requests only, not ${request.method}.`));
    }
    if (isApiPath(request.url)) {
      // A client's HTTP library reads this: the API's JSON error shape, with a code of its own (no RFC code means
      // "no such endpoint").
      return reply.code(404).send({ error: 'not_found', error_description: `No such endpoint: ${request.method} ${path}`, request_id: request.id });
    }
    reply.code(404).headers(securityHeaders.documentsOnly);
    await noteSignInState(storage, config, request);
    return renderErrorPage(reply, request, new PageError(404, `There is no page at ${path}. Check the address, or start again from the start page.`));
  });

  return app;
}
