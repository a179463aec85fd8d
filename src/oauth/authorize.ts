/**
 * GET and POST /oauth2/authorize, and the consent decision, POST /oauth2/authorize/decision.
 *
 * RFC 6749 §4.1.1–4.1.2.1, RFC 7636 §4.3, RFC 9207, OIDC Core §3.1.2;
 * docs/protocol-decisions.md "Authorization request" and "Consent".
 * Steps: verify client_id and redirect_uri (errors: page) → validate the rest (errors: redirect) →
 * require a browser session fresh enough for prompt/max_age/id_token_hint (else sign-in, or login_required
 * with prompt=none) → remembered consent unless prompt=consent, or the consent page (consent_required with
 * prompt=none) → issue the code.
 *
 * The request is not stored between the steps: the sign-in page returns to the same authorize URL, and the
 * consent form posts the original query back, where it is validated again from scratch. Nothing the browser
 * sends is trusted that the first validation would not have accepted.
 */
import { parse as parseQueryString } from 'node:querystring';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AuditLog } from '../audit/audit-log.js';
import type { Config } from '../config.js';
import type { SigningKeyCache } from '../keys/signing-key-cache.js';
import { AccessDenied, ConsentRequired, InteractionRequired, InvalidRequest, LoginRequired, UnmetAuthenticationRequirements } from '../errors.js';
import { chooseAcr, levelOf, stepUpFor, wantedLevel, type EnrolledFactors, type StepUpKind } from '../session/authentication-methods.js';
import { formActionSourceFor } from '../http/security-headers.js';
import { readBrowserSession, type CurrentSession } from '../session/browser-session.js';
import type { Storage } from '../storage/storage.js';
import { ConsentPage } from '../views/pages/consent-page.js';
import { renderPage } from '../http/render-page.js';
import { recordClientNote } from './client-failure-log.js';
import { buildCodeRedirect, issueAuthorizationCode } from './tokens/authorization-code-issuer.js';
import { signInRequirement, type SignInReason } from './request/authentication-requirement.js';
import { parseAuthorizationRequest, stateForErrorRedirect, verifyClientAndRedirectUri, type AuthorizationRequest } from './request/authorize-request.js';
import { createMetadataDocumentResolver } from './request/client-metadata-document.js';
import { isMetadataDocumentClientId } from '../clients/metadata-document.js';
import { verifyIdTokenHint } from './request/id-token-hint.js';
import { AUTHENTICATED_AFTER_PARAM } from './request/oidc-request.js';
import type { RawParams } from '../http/form-body.js';
import { consentScope } from './request/consent-scope.js';
import { includesAll } from './request/scope.js';
import { findRequestedResources, readResourceParams } from './request/resource.js';

export interface AuthorizeRouteDeps {
  storage: Storage;
  config: Config;
  signingKeys: SigningKeyCache;
  audit: AuditLog;
  /** The second step of a sign-in, for a step-up (accounts/second-factor/step-up.ts, given by app.ts). */
  stepUp: {
    enrolledFactors(userId: number): Promise<EnrolledFactors>;
    begin(reply: FastifyReply, user: CurrentSession['user'], returnTo: string, from: { amr: string[]; stepUp: StepUpKind }, now: Date): void;
  };
}

const LOGIN_REQUIRED_BECAUSE: Record<SignInReason, string> = {
  no_session: 'The user is not signed in, and prompt=none forbids showing the sign-in page',
  prompt_login: 'prompt=login asks for a new sign-in, which prompt=none forbids',
  max_age: 'The user signed in longer ago than max_age allows, and prompt=none forbids asking again',
  other_user: 'The signed-in user is not the one id_token_hint names, and prompt=none forbids asking',
};

/** The query without Latch's own fresh-sign-in marker, so that a new round trip sets a new one. */
function withoutMarker(rawQuery: string): string {
  return rawQuery
    .split('&')
    .filter((pair) => !pair.startsWith(`${AUTHENTICATED_AFTER_PARAM}=`))
    .join('&');
}

/** The form body of a POST authorization request as a query string (OIDC Core §3.1.2.1, form serialization). */
function formToQuery(body: unknown): string {
  if (body === null || typeof body !== 'object') {
    throw new InvalidRequest('The authorization request has no parameters; send a form with client_id, redirect_uri and response_type=code', { redirectable: false });
  }
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(body as Record<string, unknown>)) {
    for (const item of Array.isArray(value) ? value : [value]) {
      if (typeof item !== 'string') throw new InvalidRequest(`${name} must be a plain form field`, { redirectable: false });
      query.append(name, item);
    }
  }
  return query.toString();
}

const MAX_AUTHORIZATION_QUERY_LENGTH = 8192;

export function registerAuthorizeRoutes(app: FastifyInstance, { storage, config, signingKeys, audit, stepUp: secondStep }: AuthorizeRouteDeps): void {
  /**
   * Whether the session reaches the level of authentication the request wants (acr_values, or a client that
   * requires a second factor; session/authentication-methods.ts). Null when it does, or when nothing the
   * person has enrolled could raise it and the request only wished for more (acr_values are voluntary, OIDC Core
   * §3.1.2.1); otherwise the second step that would (a step-up). A client that requires a second factor of a
   * person who has none is refused: unmet_authentication_requirements.
   */
  async function stepUpNeeded(authorization: AuthorizationRequest, current: CurrentSession): Promise<StepUpKind | null> {
    const wanted = wantedLevel(authorization.acrValues, authorization.client.requireMfa);
    if (wanted === null || (levelOf(current.session.amr) ?? 0) >= wanted.level) return null;
    const stepUp = stepUpFor(wanted.level, await secondStep.enrolledFactors(current.user.id));
    if (stepUp === null && wanted.essential) {
      throw new UnmetAuthenticationRequirements(
        `${authorization.client.name} requires two-step verification, and this account has none yet: the user can add an authenticator app or a passkey at ${config.issuer}/account/two-step, then sign in again`,
      );
    }
    return stepUp;
  }

  // Client ID Metadata Documents (LATCH_CIMD): a URL client_id is the client its document describes. Off, a URL is
  // an unknown client like any other, even one resolved while it was on.
  const metadataDocuments = config.cimd
    ? createMetadataDocumentResolver(storage, { developmentMode: config.developmentMode, allowPrivateAddresses: config.developmentMode || config.outboundAllowPrivate })
    : null;
  async function findClient(request: FastifyRequest, clientId: string) {
    if (!isMetadataDocumentClientId(clientId)) return storage.clients.findById(clientId);
    if (metadataDocuments === null) return null;
    return metadataDocuments.resolve(clientId, new Date(), (client) => {
      // The first time Latch stores a client from a document: an app came to exist here, as with registration.
      audit.record(request, { type: 'client.created', clientId: client.clientId, details: { name: client.name, via: 'metadata_document' } });
    });
  }

  async function validate(request: FastifyRequest, params: RawParams): Promise<AuthorizationRequest> {
    const verified = await verifyClientAndRedirectUri(
      params,
      storage,
      (client) => {
        request.latchClient = client;
      },
      (clientId) => findClient(request, clientId),
    );
    request.authorizeErrorTarget = { redirectUri: verified.redirectUri, state: stateForErrorRedirect(params) };
    // RFC 8707 §2.1: the APIs the token is for; errors are invalid_target, redirected like the others.
    const requested = readResourceParams(params);
    const resources = requested.length === 0 ? [] : await findRequestedResources(storage, requested);
    return parseAuthorizationRequest(params, verified, resources);
  }

  async function redirectWithCode(request: FastifyRequest, reply: FastifyReply, authorization: AuthorizationRequest, current: CurrentSession, status: 302 | 303) {
    const { session } = current;
    if (authorization.ignoredScope.length > 0) {
      // Once per code (not per round trip of the request): the developer sees what their library sent in vain.
      const ignored = authorization.ignoredScope.map((value) => `'${value}'`).join(', ');
      await recordClientNote(
        storage,
        request,
        'authorize',
        'scope_ignored',
        `Latch ignored the scope ${ignored} (values it does not know are ignored in OpenID Connect requests, OIDC Core §3.1.2.1); granted: ${authorization.scope.join(' ')}`,
        { ignored: authorization.ignoredScope, granted: authorization.scope },
      );
    }
    const code = await issueAuthorizationCode(storage, config, authorization, {
      userId: current.user.id,
      authTime: session.authTime,
      sid: session.sid,
      amr: session.amr,
      acr: chooseAcr(session.amr, authorization.acrValues),
    });
    return reply.header('referrer-policy', 'no-referrer').redirect(buildCodeRedirect(config, authorization, code), status);
  }

  // No automatic HEAD route: HEAD is a safe method (RFC 9110 §9.2.1), and this GET issues codes.
  app.get('/oauth2/authorize', { exposeHeadRoute: false }, async (request, reply) => {
    const rawQuery = request.url.slice(request.url.indexOf('?') + 1);
    if (!request.url.includes('?')) throw new InvalidRequest('The authorization request has no parameters; send client_id, redirect_uri and response_type=code', { redirectable: false });
    if (rawQuery.length > MAX_AUTHORIZATION_QUERY_LENGTH) throw new InvalidRequest('The authorization request is too long', { redirectable: false });

    const authorization = await validate(request, request.query as RawParams);
    const now = new Date();
    const hint = authorization.idTokenHint === null ? null : await verifyIdTokenHint(signingKeys, authorization.idTokenHint, { issuer: config.issuer, clientId: authorization.client.clientId });
    const current = await readBrowserSession(storage, config, request);
    const signInReason = signInRequirement({
      session: current && { userId: current.user.id, authTime: current.session.authTime },
      prompt: authorization.prompt,
      maxAgeSeconds: authorization.maxAgeSeconds,
      hintedSubject: hint?.sub ?? null,
      authenticatedAfter: authorization.authenticatedAfter,
      now,
    });
    if (signInReason !== null) {
      // OIDC Core §3.1.2.6: prompt=none never shows a page; the client learns why instead.
      if (authorization.prompt.has('none')) throw new LoginRequired(LOGIN_REQUIRED_BECAUSE[signInReason]);
      // Back here after the sign-in, with the time from which a sign-in counts as the fresh one asked for.
      const returnTo = `/oauth2/authorize?${withoutMarker(rawQuery)}&${AUTHENTICATED_AFTER_PARAM}=${Math.floor(now.getTime() / 1000)}`;
      const loginHint = authorization.loginHint ?? hint?.email;
      const loginQuery = new URLSearchParams({ return_to: returnTo, ...(loginHint && { login_hint: loginHint }) });
      return reply.redirect(`/login?${loginQuery.toString()}`, 302);
    }
    const user = current!.user;

    const stepUp = await stepUpNeeded(authorization, current!);
    if (stepUp !== null) {
      if (authorization.prompt.has('none')) {
        throw new InteractionRequired('The request asks for a stronger sign-in than the session has (a second factor), and prompt=none forbids asking');
      }
      // The second step only: the password was given for this session already. Back here afterwards, where the
      // renewed session (same sid, new auth_time and methods) reaches the level.
      secondStep.begin(reply, user, `/oauth2/authorize?${rawQuery}`, { amr: current!.session.amr, stepUp }, now);
      return reply.redirect('/login/two-step', 302);
    }

    const consent = await storage.consents.find(user.id, authorization.client.clientId);
    const hasConsent = consent !== null && includesAll(consent.scope, consentScope(authorization.scope, authorization.resources));
    if (hasConsent && !authorization.prompt.has('consent')) {
      return redirectWithCode(request, reply, authorization, current!, 302);
    }
    if (authorization.prompt.has('none')) {
      throw new ConsentRequired('The user has not allowed this client these scopes yet, and prompt=none forbids asking');
    }

    return renderPage(
      reply,
      ConsentPage({
        csrfToken: reply.generateCsrf(),
        clientName: authorization.client.name,
        clientHomepage: authorization.client.homepageUrl,
        redirectHost: new URL(authorization.redirectUri).host || authorization.redirectUri,
        registeredDynamically: authorization.client.registeredDynamically,
        ...(authorization.client.metadataDocumentExpiresAt && { metadataDocumentHost: new URL(authorization.client.clientId).host }),
        policyUrl: authorization.client.policyUrl ?? null,
        termsUrl: authorization.client.termsUrl ?? null,
        userEmail: user.email,
        authorizationRequest: rawQuery,
        scope: authorization.scope,
        resources: authorization.resources.map((resource) => ({ name: resource.name, identifier: resource.identifier, scope: resource.scope.filter((s) => authorization.scope.includes(s)) })),
      }),
      { formActions: [formActionSourceFor(authorization.redirectUri)] },
    );
  });

  // OIDC Core §3.1.2.1: the same request as a form POST. It is answered with a redirect to the GET form, so
  // that one code path handles both, and so that the browser session cookie (SameSite=Lax, sent on cross-site
  // top-level GETs but not POSTs) comes along: otherwise a POST from the client's site could never see it.
  app.post('/oauth2/authorize', async (request, reply) => {
    const rawQuery = formToQuery(request.body);
    if (rawQuery === '') throw new InvalidRequest('The authorization request has no parameters; send client_id, redirect_uri and response_type=code', { redirectable: false });
    if (rawQuery.length > MAX_AUTHORIZATION_QUERY_LENGTH) throw new InvalidRequest('The authorization request is too long', { redirectable: false });
    return reply.redirect(`/oauth2/authorize?${rawQuery}`, 303);
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
    // The consent page is shown only to a session that reached the level; a session changed since starts over.
    if ((await stepUpNeeded(authorization, current)) !== null) {
      return reply.redirect(`/oauth2/authorize?${rawQuery}`, 303);
    }

    await storage.consents.grant(current.user.id, authorization.client.clientId, consentScope(authorization.scope, authorization.resources), new Date());
    audit.record(request, { type: 'consent.granted', userId: current.user.id, clientId: authorization.client.clientId, details: { scope: authorization.scope } });
    return redirectWithCode(request, reply, authorization, current, 303);
  });
}
