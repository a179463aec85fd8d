/**
 * GET and POST /oauth2/logout, the end_session_endpoint (OIDC RP-Initiated Logout 1.0 §2–§4), and its
 * confirmation, POST /oauth2/logout/confirm. docs/protocol-decisions.md "Logout".
 *
 * Steps: validate the request (request/logout-request.ts; any problem: a 400 page, never a redirect) → with
 * nobody signed in, nothing to end → with a valid id_token_hint naming this browser's person and session, sign
 * out at once → otherwise ask (§2: the OP "MUST ask the End-User whether to log out" without such a hint) →
 * after signing out, 303 to the verified post_logout_redirect_uri with `state` unchanged, or Latch's own
 * "You are signed out" page.
 *
 * A plain GET ends a session only with such a hint: a link or an image on another site signs nobody out without
 * their click. The confirmation is a CSRF-protected form posted to Latch itself.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AuditLog } from '../audit/audit-log.js';
import type { Config } from '../config.js';
import { InvalidRequest } from '../errors.js';
import type { RawParams } from '../http/form-body.js';
import { noteRequestFailure } from '../http/request-failure.js';
import { renderPage } from '../http/render-page.js';
import { formActionSourceFor } from '../http/security-headers.js';
import type { SigningKeyCache } from '../keys/signing-key-cache.js';
import { clearSessionCookie, readBrowserSession, type CurrentSession } from '../session/browser-session.js';
import { endBrowserSessions, type SessionEndings } from '../session/session-endings.js';
import type { Storage } from '../storage/storage.js';
import { LogoutConfirmPage, LogoutErrorPage, SignedOutPage } from '../views/pages/logout-page.js';
import { parseLogoutRequest, type LogoutRequest } from './request/logout-request.js';
import { buildRedirectUrl } from './request/redirect.js';

export interface LogoutRouteDeps {
  storage: Storage;
  config: Config;
  signingKeys: SigningKeyCache;
  sessionEndings: SessionEndings;
  audit: AuditLog;
}

/** Bounds the work on a hostile request; an id_token_hint with the other parameters is far below it. */
const MAX_LOGOUT_QUERY_LENGTH = 16_384;

/** A form body (the POST form of the request, §2) as a query string, repeated names kept so that they are refused. */
function formToQuery(body: unknown): string {
  const query = new URLSearchParams();
  if (body === null || typeof body !== 'object') return '';
  for (const [name, value] of Object.entries(body as Record<string, unknown>)) {
    for (const item of Array.isArray(value) ? value : [value]) {
      if (typeof item !== 'string') throw new InvalidRequest(`${name} must be a plain form field`, { redirectable: false });
      query.append(name, item);
    }
  }
  return query.toString();
}

/** Does the hint name the person and the session of this browser? (§2: then the OP need not ask.) */
function hintNamesThisSession(logout: LogoutRequest, current: CurrentSession): boolean {
  if (!logout.hint || logout.hint.sub !== String(current.user.id)) return false;
  // A hint from before sessions had a sid names the person only; one with a sid must name this very session.
  return logout.hint.sid === null || logout.hint.sid === current.session.sid;
}

export function registerLogoutRoutes(app: FastifyInstance, { storage, config, signingKeys, sessionEndings, audit }: LogoutRouteDeps): void {
  const parse = (params: RawParams) => parseLogoutRequest(params, { storage, signingKeys, issuer: config.issuer });

  /** The 400 page: what is wrong, and still a way to sign out for a signed-in person. */
  async function refuse(request: FastifyRequest, reply: FastifyReply, error: InvalidRequest) {
    noteRequestFailure(request, { error: error.code, reason: error.description, outcome: 'logout failed' });
    const current = await readBrowserSession(storage, config, request);
    return renderPage(
      reply.code(400),
      LogoutErrorPage({ description: error.description, requestId: request.id, signOut: current && { csrfToken: reply.generateCsrf() } }),
    );
  }

  /** Ends this browser's session (if any), then sends the person where the request may go. */
  async function signOutAndFinish(request: FastifyRequest, reply: FastifyReply, logout: LogoutRequest, current: CurrentSession | null) {
    if (current) {
      await endBrowserSessions({ storage, sessionEndings }, request.log, {
        userId: current.user.id,
        which: { sessionHash: current.session.sessionHash },
        reason: 'rp_initiated_logout',
      });
      audit.record(request, { type: 'user.session.signed_out', userId: current.user.id, clientId: logout.client?.clientId ?? null, details: { reason: 'rp_initiated_logout' } });
      clearSessionCookie(config, reply);
    }
    if (logout.postLogoutRedirectUri !== null) {
      // §3: state exactly as sent, and nothing else added; no "?" when there is no state.
      const location = logout.state === null ? logout.postLogoutRedirectUri : buildRedirectUrl(logout.postLogoutRedirectUri, { state: logout.state });
      return reply.header('referrer-policy', 'no-referrer').redirect(location, 303);
    }
    return renderPage(reply, SignedOutPage({ app: logout.client && { name: logout.client.name, homepageUrl: logout.client.homepageUrl } }));
  }

  app.get('/oauth2/logout', { exposeHeadRoute: false }, async (request, reply) => {
    const queryStart = request.url.indexOf('?');
    if (queryStart >= 0 && request.url.length - queryStart > MAX_LOGOUT_QUERY_LENGTH) {
      return refuse(request, reply, new InvalidRequest('The sign-out request is too long', { redirectable: false }));
    }
    let logout: LogoutRequest;
    try {
      logout = await parse(request.query as RawParams);
    } catch (error) {
      if (error instanceof InvalidRequest) return refuse(request, reply, error);
      throw error;
    }
    const current = await readBrowserSession(storage, config, request);
    // Nothing to end: a verified redirect changes nothing at Latch, so it needs no question.
    if (!current || hintNamesThisSession(logout, current)) return signOutAndFinish(request, reply, logout, current);

    const fields: Record<string, string> = {};
    if (logout.client) fields.client_id = logout.client.clientId;
    // state travels only with a redirect (§3): without one it has nowhere to go.
    if (logout.postLogoutRedirectUri !== null) {
      fields.post_logout_redirect_uri = logout.postLogoutRedirectUri;
      if (logout.state !== null) fields.state = logout.state;
    }
    return renderPage(
      reply,
      LogoutConfirmPage({ csrfToken: reply.generateCsrf(), userEmail: current.user.email, appName: logout.client?.name ?? null, fields }),
      // The form's answer redirects to the app: CSP form-action must allow its origin.
      { formActions: logout.postLogoutRedirectUri === null ? [] : [formActionSourceFor(logout.postLogoutRedirectUri)] },
    );
  });

  // §2: the OP MUST support POST (form serialization). Answered with a redirect to the GET form, as the
  // authorization endpoint does: the session cookie (SameSite=Lax) does not come along on a cross-site POST.
  app.post('/oauth2/logout', async (request, reply) => {
    let query: string;
    try {
      query = formToQuery(request.body);
    } catch (error) {
      if (error instanceof InvalidRequest) return refuse(request, reply, error);
      throw error;
    }
    if (query.length > MAX_LOGOUT_QUERY_LENGTH) return refuse(request, reply, new InvalidRequest('The sign-out request is too long', { redirectable: false }));
    return reply.redirect(query === '' ? '/oauth2/logout' : `/oauth2/logout?${query}`, 303);
  });

  // The answer to the question: the fields are checked again from scratch (client, exact redirect URI).
  app.post('/oauth2/logout/confirm', { preHandler: app.csrfProtection }, async (request, reply) => {
    const body = (request.body ?? {}) as Record<string, unknown>;
    const params: RawParams = {};
    for (const name of ['client_id', 'post_logout_redirect_uri', 'state']) {
      const value = body[name];
      if (typeof value === 'string' || Array.isArray(value)) params[name] = value as string | string[];
    }
    let logout: LogoutRequest;
    try {
      logout = await parse(params);
    } catch (error) {
      if (error instanceof InvalidRequest) return refuse(request, reply, error);
      throw error;
    }
    return signOutAndFinish(request, reply, logout, await readBrowserSession(storage, config, request));
  });
}
