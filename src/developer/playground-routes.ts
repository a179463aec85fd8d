/**
 * The playground (issue 22 item 3): "Try sign-in" runs an app's real sign-in, step by step, with Latch standing
 * in for the app's back end at a test callback Latch hosts, `<issuer>/developer/apps/:clientId/playground/callback`.
 * That callback is a redirect URI like any other: added to the app only when its developer asks, shown as
 * Latch's in the console, removable.
 *
 * 1. Start: a fresh state, nonce and PKCE verifier (RFC 7636, S256) are sealed into a cookie scoped to the
 *    playground (console-state.ts); the page shows the authorization request before the developer follows it.
 * 2. Callback: what came back (code, state, iss of RFC 9207, or an error) is checked against the sealed state and
 *    kept in the cookie; the browser is sent on to the playground page (the code leaves the address bar).
 * 3. Exchange: the code is exchanged at the real token endpoint, authenticated as the app, then userinfo is called
 *    with the access token and the id_token is checked against the JWKS (playground-checks.ts). Both endpoints are
 *    reached through Fastify's inject: the same routes, hooks and checks as over the network, without Latch
 *    calling its own public address (which a server behind a proxy may not reach).
 *
 * The client secret: Latch keeps only its hash, so it cannot authenticate as a confidential app by itself. The
 * developer pastes the secret into the exchange form; it is used for that one token request (client_secret_basic)
 * and is never stored, logged, put in a cookie or shown again. A public app needs none: PKCE alone, as in its
 * real flow. Every step is a form post answered with a redirect, so a reload repeats nothing (the code is used
 * once, and a second exchange would revoke what the first issued, RFC 6749 §4.1.2).
 */
import { createHash, randomBytes } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { decodeJwt, decodeProtectedHeader, type JSONWebKeySet } from 'jose';
import { addRedirectUri, ClientRegistrationError } from '../clients/client-registration.js';
import { redirectUriProblem } from '../clients/redirect-uri-policy.js';
import type { Config } from '../config.js';
import { PageError } from '../errors.js';
import { formField } from '../http/form-fields.js';
import { pageTranslator, TranslatedPageError } from '../http/page-locale.js';
import { renderPage } from '../http/render-page.js';
import type { CurrentSession } from '../session/browser-session.js';
import type { AuditLog } from '../audit/audit-log.js';
import type { Client, Storage } from '../storage/storage.js';
import { DeveloperPlaygroundPage, type PlaygroundHttpResult, type PlaygroundRun } from '../views/pages/developer-playground-page.js';
import { PLAYGROUND_COOKIE, type ConsoleState } from './console-state.js';
import { translator, type CatalogueText } from '../i18n/translator.js';
import { checkIdToken, sameString, type IdTokenCheck, type IdTokenCheckName } from './playground-checks.js';

/** The scope the playground asks for: the one the console's snippets ask for. */
export const PLAYGROUND_SCOPE = 'openid email profile';
/** A browser keeps at least 4096 bytes per cookie (RFC 6265 §6.1): above this, the run keeps shortened tokens. */
const MAX_SEALED_COOKIE = 3800;

export function playgroundCallbackUri(issuer: string, clientId: string): string {
  return `${issuer}/developer/apps/${encodeURIComponent(clientId)}/playground/callback`;
}

export interface PlaygroundDeps {
  storage: Storage;
  config: Config;
  audit: AuditLog;
  consoleState: ConsoleState;
  ownApp(request: FastifyRequest, reply: FastifyReply): Promise<{ current: CurrentSession; client: Client } | null>;
}

/** What the sealed cookie holds between the steps. */
interface SealedRun {
  state: string;
  nonce: string;
  verifier: string;
  /** Step 2: what came back to the callback. */
  returned?: { code?: string; state?: string; iss?: string; error?: string; errorDescription?: string };
  /**
   * Step 3: the answers of the token and userinfo endpoints, and the id_token checks made at the exchange (the
   * header and claims are decoded again from the token for display: kept once, the run fits its cookie).
   */
  exchange?: { token: PlaygroundHttpResult; userinfo: PlaygroundHttpResult | null; checks: SealedCheck[] | null };
}

/**
 * An id_token check as the cookie keeps it: its name, whether it passed, its message's key after the prefix below
 * and the message's parameters. Short, so that a run with its whole tokens fits the cookie; told in the language of
 * the page that shows it.
 */
type SealedCheck = [name: IdTokenCheckName, passed: 0 | 1, key: string, params?: CatalogueText['params']];
const CHECK_KEY_PREFIX = 'developer.check.';

function sealChecks(checks: IdTokenCheck[]): SealedCheck[] {
  return checks.map(({ name, passed, detail }) => {
    const sealed: SealedCheck = [name, passed ? 1 : 0, detail.key.slice(CHECK_KEY_PREFIX.length)];
    if (detail.params) sealed.push(detail.params);
    return sealed;
  });
}

/** The checks of a sealed run; null when they are not in this form (a cookie sealed by an older Latch). */
function openChecks(sealed: unknown): IdTokenCheck[] | null {
  if (!Array.isArray(sealed)) return null;
  const catalogue = translator();
  const checks: IdTokenCheck[] = [];
  for (const entry of sealed as unknown[]) {
    if (!Array.isArray(entry) || typeof entry[0] !== 'string' || typeof entry[2] !== 'string') return null;
    const key = `${CHECK_KEY_PREFIX}${entry[2]}`;
    if (!catalogue.has(key)) return null;
    const params = entry[3] as CatalogueText['params'] | undefined;
    checks.push({ name: entry[0] as IdTokenCheckName, passed: entry[1] === 1, detail: params ? { key, params } : { key } });
  }
  return checks;
}

const randomValue = () => randomBytes(32).toString('base64url');
const s256 = (verifier: string) => createHash('sha256').update(verifier).digest('base64url');

function readRun(value: Record<string, unknown> | null): SealedRun | null {
  if (!value || typeof value.state !== 'string' || typeof value.nonce !== 'string' || typeof value.verifier !== 'string') return null;
  return value as unknown as SealedRun;
}

function queryString(query: unknown, name: string): string | undefined {
  const value = (query as Record<string, unknown> | undefined)?.[name];
  // A parameter given twice is no answer Latch sends: keep neither.
  return typeof value === 'string' ? value.slice(0, 4096) : undefined;
}

async function parseJson(body: string): Promise<unknown> {
  try {
    return JSON.parse(body) as unknown;
  } catch {
    return body;
  }
}

/** Tokens cut to their prefix, for a run too large for its cookie: the id_token's claims are kept decoded. */
function shorten(value: unknown): unknown {
  if (!value || typeof value !== 'object') return value;
  const copy: Record<string, unknown> = { ...(value as Record<string, unknown>) };
  for (const key of ['access_token', 'refresh_token', 'id_token']) {
    const token = copy[key];
    if (typeof token === 'string' && token.length > 24) copy[key] = `${token.slice(0, 16)}… (${token.length} characters; shortened to fit the playground's cookie)`;
  }
  return copy;
}

export function registerPlaygroundRoutes(app: FastifyInstance, deps: PlaygroundDeps): void {
  const { storage, config, audit, consoleState, ownApp } = deps;
  const pagePath = (clientId: string) => `/developer/apps/${encodeURIComponent(clientId)}/playground`;
  const ownerOf = (owned: { current: CurrentSession; client: Client }) => ({ userId: owned.current.user.id, clientId: owned.client.clientId });

  function authorizeUrl(client: Client, run: SealedRun): string {
    const params = new URLSearchParams({
      response_type: 'code',
      client_id: client.clientId,
      redirect_uri: playgroundCallbackUri(config.issuer, client.clientId),
      scope: PLAYGROUND_SCOPE,
      state: run.state,
      nonce: run.nonce,
      code_challenge: s256(run.verifier),
      code_challenge_method: 'S256',
    });
    return `${config.issuer}/oauth2/authorize?${params}`;
  }

  function seal(reply: FastifyReply, owned: { current: CurrentSession; client: Client }, run: SealedRun) {
    consoleState.seal(reply, PLAYGROUND_COOKIE, ownerOf(owned), run as unknown as Record<string, unknown>, new Date());
  }

  app.post('/developer/apps/:clientId/playground/callback-uri', { preHandler: app.csrfProtection }, async (request, reply) => {
    const owned = await ownApp(request, reply);
    if (!owned) return reply;
    const uri = playgroundCallbackUri(config.issuer, owned.client.clientId);
    if (!owned.client.redirectUris.includes(uri)) {
      try {
        await addRedirectUri(storage, owned.client.clientId, uri, { developmentMode: config.developmentMode });
      } catch (error) {
        if (!(error instanceof ClientRegistrationError)) throw error;
        const problem = error.problems.length > 0 ? error.problems.map(pageTranslator(request).text).join('; ') : error.message;
        throw new TranslatedPageError(400, { key: 'developer.playground.error.cannotAdd', params: { problem } });
      }
      audit.record(request, { type: 'client.updated', userId: owned.current.user.id, clientId: owned.client.clientId, details: { changed: ['redirect_uris'], via: 'console' } });
    }
    return reply.redirect(`${pagePath(owned.client.clientId)}?notice=callback-added`, 303);
  });

  app.post('/developer/apps/:clientId/playground/callback-uri/remove', { preHandler: app.csrfProtection }, async (request, reply) => {
    const owned = await ownApp(request, reply);
    if (!owned) return reply;
    const uri = playgroundCallbackUri(config.issuer, owned.client.clientId);
    if (owned.client.redirectUris.includes(uri)) {
      const remaining = owned.client.redirectUris.filter((registered) => registered !== uri);
      if (remaining.length === 0) throw new TranslatedPageError(400, { key: 'developer.playground.error.onlyRedirect' });
      await storage.clients.update(owned.client.clientId, { redirectUris: remaining }, new Date());
      audit.record(request, { type: 'client.updated', userId: owned.current.user.id, clientId: owned.client.clientId, details: { changed: ['redirect_uris'], via: 'console' } });
    }
    consoleState.clear(reply, PLAYGROUND_COOKIE, owned.client.clientId);
    return reply.redirect(`/developer/apps/${encodeURIComponent(owned.client.clientId)}?notice=playground-callback-removed`, 303);
  });

  app.post('/developer/apps/:clientId/playground/start', { preHandler: app.csrfProtection }, async (request, reply) => {
    const owned = await ownApp(request, reply);
    if (!owned) return reply;
    if (!owned.client.redirectUris.includes(playgroundCallbackUri(config.issuer, owned.client.clientId))) {
      throw new TranslatedPageError(400, { key: 'developer.playground.error.addFirst' });
    }
    seal(reply, owned, { state: randomValue(), nonce: randomValue(), verifier: randomValue() });
    return reply.redirect(pagePath(owned.client.clientId), 303);
  });

  app.post('/developer/apps/:clientId/playground/reset', { preHandler: app.csrfProtection }, async (request, reply) => {
    const owned = await ownApp(request, reply);
    if (!owned) return reply;
    consoleState.clear(reply, PLAYGROUND_COOKIE, owned.client.clientId);
    return reply.redirect(pagePath(owned.client.clientId), 303);
  });

  // The redirect URI: Latch's authorization endpoint sends the browser here, as it would send it to the app.
  app.get('/developer/apps/:clientId/playground/callback', async (request, reply) => {
    const owned = await ownApp(request, reply).catch((error: unknown) => {
      // Most likely the developer signed in as someone else at the authorization step: say so (an unknown app
      // gets the same words, so they tell nothing about which apps exist).
      if (error instanceof PageError && error.status === 404) {
        throw new TranslatedPageError(404, { key: 'developer.playground.error.notYours' });
      }
      throw error;
    });
    if (!owned) return reply;
    const run = readRun(consoleState.open(request, PLAYGROUND_COOKIE, ownerOf(owned), new Date()));
    if (!run || run.returned) {
      // No run waiting for an answer (expired, another browser, already answered): nothing to keep.
      return reply.redirect(`${pagePath(owned.client.clientId)}?notice=no-run`, 303);
    }
    const returned: NonNullable<SealedRun['returned']> = {};
    for (const [key, name] of [['code', 'code'], ['state', 'state'], ['iss', 'iss'], ['error', 'error'], ['errorDescription', 'error_description']] as const) {
      const value = queryString(request.query, name);
      if (value !== undefined) returned[key] = value;
    }
    seal(reply, owned, { ...run, returned });
    return reply.redirect(pagePath(owned.client.clientId), 303);
  });

  app.post('/developer/apps/:clientId/playground/exchange', { preHandler: app.csrfProtection }, async (request, reply) => {
    const owned = await ownApp(request, reply);
    if (!owned) return reply;
    const { client } = owned;
    const run = readRun(consoleState.open(request, PLAYGROUND_COOKIE, ownerOf(owned), new Date()));
    const code = run?.returned?.code;
    if (!run || (run.exchange && !clientAuthenticationFailed(run.exchange.token)) || code === undefined || !returnedStateMatches(run)) {
      // Nothing to exchange (no run, already exchanged, or an answer a real app must refuse): the page says which.
      return reply.redirect(pagePath(client.clientId), 303);
    }
    const form: Record<string, string> = { grant_type: 'authorization_code', code, redirect_uri: playgroundCallbackUri(config.issuer, client.clientId), code_verifier: run.verifier };
    const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' };
    if (client.tokenEndpointAuthMethod === 'none') {
      form.client_id = client.clientId;
    } else {
      // Used for this request only: never stored, logged or put in the cookie.
      const secret = formField(request.body, 'client_secret', 512);
      // RFC 6749 §2.3.1: id and secret form-urlencoded before Base64.
      headers.authorization = `Basic ${Buffer.from(`${encodeURIComponent(client.clientId)}:${encodeURIComponent(secret)}`).toString('base64')}`;
    }
    const tokenAnswer = await app.inject({ method: 'POST', url: '/oauth2/token', headers, payload: new URLSearchParams(form).toString() });
    const tokenBody = await parseJson(tokenAnswer.body);
    const token: PlaygroundHttpResult = { status: tokenAnswer.statusCode, body: tokenBody };

    let userinfo: PlaygroundHttpResult | null = null;
    let checks: SealedCheck[] | null = null;
    const tokens = tokenAnswer.statusCode === 200 && tokenBody && typeof tokenBody === 'object' ? (tokenBody as Record<string, unknown>) : null;
    if (tokens && typeof tokens.access_token === 'string') {
      const answer = await app.inject({ method: 'GET', url: '/oauth2/userinfo', headers: { authorization: `Bearer ${tokens.access_token}`, accept: 'application/json' } });
      userinfo = { status: answer.statusCode, body: await parseJson(answer.body) };
    }
    if (tokens && typeof tokens.id_token === 'string') {
      const jwksAnswer = await app.inject({ method: 'GET', url: '/oauth2/jwks' });
      const decoded = await checkIdToken(tokens.id_token, { jwks: JSON.parse(jwksAnswer.body) as JSONWebKeySet, issuer: config.issuer, clientId: client.clientId, nonce: run.nonce, now: new Date() });
      checks = sealChecks(decoded.checks);
    }
    request.log.info({ event: 'playground_exchange', clientId: client.clientId, status: tokenAnswer.statusCode }, 'playground code exchange');
    // The code is spent, unless the app's authentication failed (which never consumes it): then the developer may
    // paste the right secret and try again. A spent code is kept only as its start, to show.
    const spent = !clientAuthenticationFailed(token);
    let next: SealedRun = { ...run, returned: { ...run.returned, code: spent ? `${code.slice(0, 12)}…` : code }, exchange: { token, userinfo, checks } };
    const sealedSize = JSON.stringify(next).length * 1.4 + 100;
    if (sealedSize > MAX_SEALED_COOKIE) next = { ...next, exchange: { token: { ...token, body: shorten(token.body) }, userinfo, checks } };
    consoleState.seal(reply, PLAYGROUND_COOKIE, ownerOf(owned), next as unknown as Record<string, unknown>, new Date());
    return reply.redirect(pagePath(client.clientId), 303);
  });

  app.get('/developer/apps/:clientId/playground', async (request, reply) => {
    const owned = await ownApp(request, reply);
    if (!owned) return reply;
    const { client } = owned;
    const callback = playgroundCallbackUri(config.issuer, client.clientId);
    const run = readRun(consoleState.open(request, PLAYGROUND_COOKIE, ownerOf(owned), new Date()));
    const notice = queryString(request.query, 'notice');
    const i18n = pageTranslator(request);
    const cannotAdd = redirectUriProblem(callback, { developmentMode: config.developmentMode });
    return renderPage(
      reply,
      DeveloperPlaygroundPage({
        csrfToken: reply.generateCsrf(),
        issuer: config.issuer,
        app: { clientId: client.clientId, name: client.name, isPublic: client.tokenEndpointAuthMethod === 'none' },
        callback: {
          uri: callback,
          registered: client.redirectUris.includes(callback),
          cannotAdd: cannotAdd && i18n.text(cannotAdd),
        },
        scope: PLAYGROUND_SCOPE,
        notice: notice === 'callback-added' || notice === 'no-run' ? notice : undefined,
        run: run && {
          authorizeUrl: authorizeUrl(client, run),
          sent: { state: run.state, nonce: run.nonce, codeChallenge: s256(run.verifier) },
          returned: run.returned
            ? {
                ...run.returned,
                stateMatches: returnedStateMatches(run),
                issMatches: run.returned.iss === undefined ? null : run.returned.iss === config.issuer,
              }
            : null,
          token: run.exchange?.token ?? null,
          userinfo: run.exchange?.userinfo ?? null,
          idToken: idTokenView(run),
        },
      }),
    );
  });
}

/** The id_token step of the page: its checks as made at the exchange, its header and claims decoded for display. */
function idTokenView(run: SealedRun): PlaygroundRun['idToken'] {
  const checks = run.exchange?.checks ? openChecks(run.exchange.checks) : null;
  return run.exchange && checks ? { ...decodeForDisplay(run.exchange.token.body), checks } : null;
}

/** The id_token's header and claims, decoded without trust for display (its checks were made at the exchange). */
function decodeForDisplay(tokenBody: unknown): { header: Record<string, unknown> | null; claims: Record<string, unknown> | null } {
  const idToken = tokenBody && typeof tokenBody === 'object' ? (tokenBody as Record<string, unknown>).id_token : undefined;
  try {
    if (typeof idToken !== 'string') throw new Error('no id_token');
    return { header: decodeProtectedHeader(idToken) as Record<string, unknown>, claims: decodeJwt(idToken) as Record<string, unknown> };
  } catch {
    return { header: null, claims: null };
  }
}

/** RFC 6749 §5.2 invalid_client: the code was not consumed (a failed client authentication never consumes it). */
function clientAuthenticationFailed(token: PlaygroundHttpResult): boolean {
  return token.status === 401;
}

/** RFC 6749 §10.12: the state that came back is the one this browser sent. */
function returnedStateMatches(run: SealedRun): boolean {
  const returned = run.returned?.state;
  return returned !== undefined && sameString(returned, run.state);
}
