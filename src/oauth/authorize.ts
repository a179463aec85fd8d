/**
 * GET /oauth2/authorize and the consent decision, POST /oauth2/authorize/decision.
 *
 * RFC 6749 §4.1.1–4.1.2.1, RFC 7636 §4.3, RFC 9207, DESIGN "Authorization request" and "Consent".
 * Steps: verify client_id and redirect_uri (errors: page) → validate the rest (errors: redirect) →
 * require a browser session (else sign-in) → remembered consent, or the consent page → issue the code.
 *
 * The request is not stored between the steps: the sign-in page returns to the same authorize URL, and the
 * consent form posts the original query back, where it is validated again from scratch. Nothing the browser
 * sends is trusted that the first validation would not have accepted.
 */
import { parse as parseQueryString } from 'node:querystring';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../config.js';
import { AccessDenied, InvalidRequest } from '../errors.js';
import { formActionSourceFor } from '../http/security-headers.js';
import { readBrowserSession } from '../interaction/browser-session.js';
import type { Storage } from '../storage/storage.js';
import { ConsentPage } from '../views/pages/consent-page.js';
import { renderPage } from '../views/render.js';
import { buildCodeRedirect, issueAuthorizationCode } from './authorization-code-issuer.js';
import { parseAuthorizationRequest, stateForErrorRedirect, verifyClientAndRedirectUri, type AuthorizationRequest } from './authorize-request.js';
import type { RawParams } from './params.js';
import { includesAll } from './scope.js';

export interface AuthorizeRouteDeps {
  storage: Storage;
  config: Config;
}

const MAX_AUTHORIZATION_QUERY_LENGTH = 8192;

export function registerAuthorizeRoutes(app: FastifyInstance, { storage, config }: AuthorizeRouteDeps): void {
  async function validate(request: FastifyRequest, params: RawParams): Promise<AuthorizationRequest> {
    const verified = await verifyClientAndRedirectUri(params, storage, (client) => {
      request.latchClient = client;
    });
    request.authorizeErrorTarget = { redirectUri: verified.redirectUri, state: stateForErrorRedirect(params) };
    return parseAuthorizationRequest(params, verified);
  }

  async function redirectWithCode(reply: FastifyReply, authorization: AuthorizationRequest, userId: number, authTime: Date, status: 302 | 303) {
    const code = await issueAuthorizationCode(storage, config, authorization, userId, authTime);
    return reply.header('referrer-policy', 'no-referrer').redirect(buildCodeRedirect(config, authorization, code), status);
  }

  // No automatic HEAD route: HEAD is a safe method (RFC 9110 §9.2.1), and this GET issues codes.
  app.get('/oauth2/authorize', { exposeHeadRoute: false }, async (request, reply) => {
    const rawQuery = request.url.slice(request.url.indexOf('?') + 1);
    if (!request.url.includes('?')) throw new InvalidRequest('The authorization request has no parameters; send client_id, redirect_uri and response_type=code', { redirectable: false });
    if (rawQuery.length > MAX_AUTHORIZATION_QUERY_LENGTH) throw new InvalidRequest('The authorization request is too long', { redirectable: false });

    const authorization = await validate(request, request.query as RawParams);
    const current = await readBrowserSession(storage, config, request);
    if (!current) {
      const returnTo = `/oauth2/authorize?${rawQuery}`;
      return reply.redirect(`/login?return_to=${encodeURIComponent(returnTo)}`, 302);
    }

    const consent = await storage.consents.find(current.user.id, authorization.client.clientId);
    if (consent && includesAll(consent.scope, authorization.scope)) {
      return redirectWithCode(reply, authorization, current.user.id, current.session.authTime, 302);
    }

    return renderPage(
      reply,
      ConsentPage({
        csrfToken: reply.generateCsrf(),
        clientName: authorization.client.name,
        clientHomepage: authorization.client.homepageUrl,
        redirectHost: new URL(authorization.redirectUri).host || authorization.redirectUri,
        userEmail: current.user.email,
        authorizationRequest: rawQuery,
        scope: authorization.scope,
      }),
      { formActions: [formActionSourceFor(authorization.redirectUri)] },
    );
  });

  app.post('/oauth2/authorize/decision', { preHandler: app.csrfProtection }, async (request, reply) => {
    const body = (request.body ?? {}) as Record<string, unknown>;
    const rawQuery = typeof body.authorization_request === 'string' ? body.authorization_request : '';
    if (rawQuery === '' || rawQuery.length > MAX_AUTHORIZATION_QUERY_LENGTH) {
      throw new InvalidRequest('The consent form was incomplete; start again from the application', { redirectable: false });
    }
    const authorization = await validate(request, parseQueryString(rawQuery) as RawParams);

    const current = await readBrowserSession(storage, config, request);
    if (!current) {
      return reply.redirect(`/login?return_to=${encodeURIComponent(`/oauth2/authorize?${rawQuery}`)}`, 303);
    }
    if (body.decision === 'deny') throw new AccessDenied('The user denied the request');
    if (body.decision !== 'allow') throw new InvalidRequest('decision must be allow or deny', { redirectable: false });

    await storage.consents.grant(current.user.id, authorization.client.clientId, authorization.scope, new Date());
    return redirectWithCode(reply, authorization, current.user.id, current.session.authTime, 303);
  });
}
