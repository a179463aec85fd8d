/**
 * The verification page of the device authorization grant (RFC 8628 §3.3; docs/protocol-decisions.md "Device
 * authorization grant"): GET /device (the code field, filled in from verification_uri_complete), POST /device
 * (the code checked, then the consent page), POST /device/decision (allow or deny).
 *
 * - A person who is not signed in signs in first and comes back here, code kept.
 * - The consent page is always shown, even when the app was allowed before: a code typed here may have come from
 *   someone else (remote phishing, §5.4), so the person confirms the app, the scope and the code every time.
 * - Wrong codes are counted per account and per client address (§5.1: "rate-limit … user code" guesses), on the code
 *   page and at the decision alike (both look a code up); past the limit both refuse every code, right or wrong,
 *   until the window ends.
 * - An app that requires a second factor gets the same step-up as at the authorization endpoint.
 * - "Allow" records the consent and, in one transaction with the decision, an authorization code whose hash is the
 *   device code's, bound to the user and this sign-in: the token endpoint redeems it (grants/device-code.ts).
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AuditLog } from '../../audit/audit-log.js';
import type { Config } from '../../config.js';
import { generateTimeOrderedIdentifier } from '../../crypto/secrets.js';
import { formField } from '../../http/form-fields.js';
import { renderPage } from '../../http/render-page.js';
import { pageTranslator, TranslatedPageError } from '../../http/page-locale.js';
import { chooseAcr, levelOf, stepUpFor, wantedLevel, type EnrolledFactors, type StepUpKind } from '../../session/authentication-methods.js';
import { readBrowserSession, type CurrentSession } from '../../session/browser-session.js';
import type { Client, DeviceAuthorization, ResourceServer, Storage } from '../../storage/storage.js';
import { ConsentPage } from '../../views/pages/consent-page.js';
import { DeviceApprovedPage, DeviceCodePage, DeviceDeniedPage } from '../../views/pages/device-page.js';
import { consentScope } from '../request/consent-scope.js';
import { DEVICE_PAGE_PATH } from './device-authorization.js';
import { createUserCodeHasher, formatUserCode, normalizeUserCode } from './user-code.js';

export interface DevicePageDeps {
  storage: Storage;
  config: Config;
  audit: AuditLog;
  /** The shared failure counters (accounts/sign-in-throttle.ts AttemptCounter, Redis when configured), given by app.ts. */
  attemptCounter: {
    count(key: string, now: Date): Promise<number>;
    increment(key: string, windowSeconds: number, now: Date): Promise<number>;
  };
  /** The second step of a sign-in, for an app that requires one (accounts/second-factor/step-up.ts, given by app.ts). */
  stepUp: {
    enrolledFactors(userId: number): Promise<EnrolledFactors>;
    begin(reply: FastifyReply, user: CurrentSession['user'], returnTo: string, from: { amr: string[]; stepUp: StepUpKind }, now: Date): void;
  };
}

/** Wrong codes allowed per window (§5.1). Per account: a person mistypes a few times; per address: a household or office. */
const WRONG_CODES_PER_ACCOUNT = 10;
const WRONG_CODES_PER_ADDRESS = 30;
const WRONG_CODE_WINDOW_SECONDS = 900;

/** What the person reads about a code, as messages of the catalogue (told in the page's language). */
const MALFORMED_CODE = 'device.problem.malformed';
const UNKNOWN_CODE = 'device.problem.unknown';
const EXPIRED_CODE = 'device.problem.expired';
const USED_CODE = 'device.problem.used';
const TOO_MANY_CODES = 'device.problem.tooMany';
type CodeProblem = typeof MALFORMED_CODE | typeof UNKNOWN_CODE | typeof EXPIRED_CODE | typeof USED_CODE | typeof TOO_MANY_CODES;

/** Where a request stands for the person who typed its code; null while it can still be decided. */
function unusableReason(authorization: DeviceAuthorization, now: Date): CodeProblem | null {
  if (authorization.expiresAt <= now) return EXPIRED_CODE;
  if (authorization.status !== 'pending') return USED_CODE;
  return null;
}

export function registerDevicePageRoutes(app: FastifyInstance, deps: DevicePageDeps): void {
  const { storage, config, audit, attemptCounter } = deps;
  const hashUserCode = createUserCodeHasher(config.secret);
  const accountKey = (userId: number) => `device-code:account:${userId}`;
  const addressKey = (request: FastifyRequest) => `device-code:address:${request.ip}`;

  /** The current session, or a redirect to sign-in that comes back to /device with the code filled in. */
  async function sessionOrSignIn(request: FastifyRequest, reply: FastifyReply, typed: string): Promise<CurrentSession | null> {
    const current = await readBrowserSession(storage, config, request);
    if (current) return current;
    const normalized = normalizeUserCode(typed);
    const back = normalized === null ? DEVICE_PAGE_PATH : `${DEVICE_PAGE_PATH}?user_code=${encodeURIComponent(formatUserCode(normalized))}`;
    reply.redirect(`/login?return_to=${encodeURIComponent(back)}`, request.method === 'GET' ? 302 : 303);
    return null;
  }

  /** Whether this account or address has guessed wrong too often in the window: then every code is refused (§5.1). */
  async function tooManyWrongCodes(request: FastifyRequest, current: CurrentSession, now: Date): Promise<boolean> {
    const [byAccount, byAddress] = await Promise.all([attemptCounter.count(accountKey(current.user.id), now), attemptCounter.count(addressKey(request), now)]);
    return byAccount >= WRONG_CODES_PER_ACCOUNT || byAddress >= WRONG_CODES_PER_ADDRESS;
  }

  /** A well-formed code that no device is waiting for: one wrong guess for the account and for the address. */
  async function countWrongCode(request: FastifyRequest, current: CurrentSession, now: Date): Promise<void> {
    await Promise.all([
      attemptCounter.increment(accountKey(current.user.id), WRONG_CODE_WINDOW_SECONDS, now),
      attemptCounter.increment(addressKey(request), WRONG_CODE_WINDOW_SECONDS, now),
    ]);
  }

  /** The registered APIs the device's request named, in its order; one deleted since is left out (its tokens are refused). */
  async function requestedResources(authorization: DeviceAuthorization): Promise<ResourceServer[]> {
    if (authorization.resources.length === 0) return [];
    const found = await storage.resourceServers.findMany(authorization.resources);
    return authorization.resources.flatMap((identifier) => found.filter((resource) => resource.identifier === identifier));
  }

  function codePage(reply: FastifyReply, current: CurrentSession, { error, ...props }: { userCode?: string; prefilled?: boolean; error?: CodeProblem }, status = 200) {
    const problem = error && pageTranslator(reply.request).t(error, { brand: config.brand.name });
    return renderPage(reply.code(status), DeviceCodePage({ csrfToken: reply.generateCsrf(), userEmail: current.user.email, ...props, ...(problem && { error: problem }) }));
  }

  /**
   * The app's requirement of a second factor (session/authentication-methods.ts), as at the authorization
   * endpoint: null when the session reaches it; else the redirect to the second step, sent.
   */
  async function stepUpIfNeeded(reply: FastifyReply, current: CurrentSession, client: Client, userCode: string): Promise<FastifyReply | null> {
    const wanted = wantedLevel([], client.requireMfa);
    if (wanted === null || (levelOf(current.session.amr) ?? 0) >= wanted.level) return null;
    const stepUp = stepUpFor(wanted.level, await deps.stepUp.enrolledFactors(current.user.id));
    if (stepUp === null) {
      throw new TranslatedPageError(403, { key: 'device.problem.needsSecondFactor', params: { app: client.name } });
    }
    deps.stepUp.begin(reply, current.user, `${DEVICE_PAGE_PATH}?user_code=${encodeURIComponent(userCode)}`, { amr: current.session.amr, stepUp }, new Date());
    return reply.redirect('/login/two-step', 303);
  }

  app.get(DEVICE_PAGE_PATH, async (request, reply) => {
    const typed = formField(request.query, 'user_code', 64);
    const current = await sessionOrSignIn(request, reply, typed);
    if (!current) return reply;
    const normalized = normalizeUserCode(typed);
    // Only a well-formed code is put back in the field: the page never repeats arbitrary text from its URL.
    return codePage(reply, current, normalized === null ? {} : { userCode: formatUserCode(normalized), prefilled: true });
  });

  app.post(DEVICE_PAGE_PATH, { preHandler: app.csrfProtection }, async (request, reply) => {
    const typed = formField(request.body, 'user_code', 64);
    const current = await sessionOrSignIn(request, reply, typed);
    if (!current) return reply;
    const now = new Date();
    const normalized = normalizeUserCode(typed);
    if (normalized === null) return codePage(reply, current, { userCode: typed.slice(0, 20), error: MALFORMED_CODE }, 400);
    const userCode = formatUserCode(normalized);

    if (await tooManyWrongCodes(request, current, now)) return codePage(reply, current, { userCode, error: TOO_MANY_CODES }, 429);
    const authorization = await storage.deviceAuthorizations.findByUserCodeHash(hashUserCode(normalized));
    if (!authorization) {
      await countWrongCode(request, current, now);
      return codePage(reply, current, { userCode, error: UNKNOWN_CODE }, 400);
    }
    const unusable = unusableReason(authorization, now);
    if (unusable) return codePage(reply, current, { userCode, error: unusable }, 400);
    const client = await storage.clients.findById(authorization.clientId);
    if (!client) return codePage(reply, current, { userCode, error: UNKNOWN_CODE }, 400);
    const steppingUp = await stepUpIfNeeded(reply, current, client, userCode);
    if (steppingUp) return steppingUp;
    const resources = await requestedResources(authorization);

    return renderPage(
      reply,
      ConsentPage({
        csrfToken: reply.generateCsrf(),
        clientName: client.name,
        clientHomepage: client.homepageUrl,
        redirectHost: '',
        registeredDynamically: client.registeredDynamically,
        userEmail: current.user.email,
        authorizationRequest: '',
        scope: authorization.scope,
        resources: resources.map((resource) => ({ name: resource.name, identifier: resource.identifier, scope: resource.scope.filter((scope) => authorization.scope.includes(scope)) })),
        device: { userCode },
      }),
    );
  });

  app.post(`${DEVICE_PAGE_PATH}/decision`, { preHandler: app.csrfProtection }, async (request, reply) => {
    const typed = formField(request.body, 'user_code', 64);
    const current = await sessionOrSignIn(request, reply, typed);
    if (!current) return reply;
    const now = new Date();
    const normalized = normalizeUserCode(typed);
    // The form carries the code the page was rendered with: anything else did not come from it.
    if (normalized === null) throw new TranslatedPageError(400, { key: 'device.problem.incomplete' });
    const userCode = formatUserCode(normalized);
    // The decision looks the code up too, so it counts as a guess here as on the code page (§5.1): else a form posted
    // straight to this path, without the consent page before it, would try codes with no limit, and approve or deny
    // whichever device it hit.
    if (await tooManyWrongCodes(request, current, now)) return codePage(reply, current, { userCode, error: TOO_MANY_CODES }, 429);
    const authorization = await storage.deviceAuthorizations.findByUserCodeHash(hashUserCode(normalized));
    if (!authorization) {
      await countWrongCode(request, current, now);
      return codePage(reply, current, { userCode, error: UNKNOWN_CODE }, 400);
    }
    const unusable = unusableReason(authorization, now);
    if (unusable) return codePage(reply, current, { userCode, error: unusable }, 400);
    const client = await storage.clients.findById(authorization.clientId);
    if (!client) return codePage(reply, current, { userCode, error: UNKNOWN_CODE }, 400);

    const decision = formField(request.body, 'decision', 16);
    if (decision === 'deny') {
      await storage.deviceAuthorizations.decide(authorization.deviceCodeHash, { status: 'denied', userId: current.user.id }, now);
      return renderPage(reply, DeviceDeniedPage({ clientName: client.name }));
    }
    if (decision !== 'allow') throw new TranslatedPageError(400, { key: 'device.problem.noDecision' });
    // The consent page is shown only to a session that reached the app's level; a session changed since starts over.
    const steppingUp = await stepUpIfNeeded(reply, current, client, userCode);
    if (steppingUp) return steppingUp;

    const { session, user } = current;
    const resources = await requestedResources(authorization);
    // A new grant starts here, as at the authorization endpoint (tokens/authorization-code-issuer.ts).
    const grantId = generateTimeOrderedIdentifier(now.getTime());
    const approved = await storage.transaction(async (tx) => {
      if (!(await tx.deviceAuthorizations.decide(authorization.deviceCodeHash, { status: 'approved', userId: user.id }, now))) return false;
      // RFC 8707 §2.2: the APIs the device's token requests may ask for are those its request named.
      if (resources.length > 0) await tx.resourceServers.recordGrantResources(grantId, resources.map((resource) => resource.identifier), now);
      await tx.authorizationCodes.insert({
        // The device code's hash: the device redeems this code with its device_code (grants/device-code.ts).
        codeHash: authorization.deviceCodeHash,
        grantId,
        clientId: client.clientId,
        userId: user.id,
        // No redirect in this grant: the verification URI stands in, and the token request never names one.
        redirectUri: `${config.issuer}${DEVICE_PAGE_PATH}`,
        scope: authorization.scope,
        nonce: null,
        codeChallenge: null,
        authTime: session.authTime,
        sid: session.sid,
        amr: session.amr,
        acr: chooseAcr(session.amr, []),
        createdAt: now,
        // Redeemable for as long as the device code lives (§3.2 expires_in), however late the person approved.
        expiresAt: authorization.expiresAt,
      });
      return true;
    });
    if (!approved) return codePage(reply, current, { userCode, error: USED_CODE }, 400);
    await storage.consents.grant(user.id, client.clientId, consentScope(authorization.scope, resources), now);
    audit.record(request, { type: 'consent.granted', userId: user.id, clientId: client.clientId, details: { scope: authorization.scope, via: 'device' } });
    return renderPage(reply, DeviceApprovedPage({ clientName: client.name }));
  });
}
