/**
 * The developer console for signed-in users: GET /developer (your apps, register a new one) and each app's
 * page GET /developer/apps/:clientId (client id, secret rotation with a grace period, settings with the same
 * redirect URI checks as the CLI, recent failed requests with one-click "add this redirect URL", an
 * integration guide with the app's real values, the playground (playground-routes.ts), deletion). Every form
 * answers with a redirect (post/redirect/get): a new secret is shown once, on a page that a reload cannot
 * show again (console-state.ts). An app is visible only to the user who registered it; anyone else gets a 404.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AuditLog } from '../audit/audit-log.js';
import { changedFields } from '../audit/changed-fields.js';
import { closestRegisteredUri, isRegisteredRedirectUri } from '../clients/redirect-uri-match.js';
import { backchannelLogoutUriProblem, postLogoutRedirectUriProblems } from '../clients/logout-uri-policy.js';
import { redirectUriProblem } from '../clients/redirect-uri-policy.js';
import {
  addRedirectUri,
  checkRedirectUris,
  clientNameProblem,
  ClientRegistrationError,
  MAX_REDIRECT_URIS,
  registerClientOfAnyKind,
  rotateClientSecret,
} from '../clients/client-registration.js';
import type { Config } from '../config.js';
import { formField, noticeFor } from '../http/form-fields.js';
import { pageTranslator, TranslatedPageError } from '../http/page-locale.js';
import type { Translator } from '../i18n/translator.js';
import type { CurrentSession } from '../session/browser-session.js';
import { requireBrowserSession } from '../session/require-session.js';
import type { Client, ClientEvent, Storage } from '../storage/storage.js';
import { ClientSecretPage } from '../views/pages/client-secret-page.js';
import { APP_NOTICES, DeveloperAppPage, type AppNotice, type DeveloperAppPageProps, type FailedRequestView } from '../views/pages/developer-app-page.js';
import { CONSOLE_NOTICES, DeveloperPage, type ConsoleNotice, type RegisterAppField } from '../views/pages/developer-page.js';
import { renderPage } from '../http/render-page.js';
import { appUrlProblem, parseRedirectUriLines } from './app-details.js';
import { createConsoleState, NEW_SECRET_COOKIE } from './console-state.js';
import { playgroundCallbackUri, registerPlaygroundRoutes } from './playground-routes.js';
import { buildEnvironmentBlock, buildIntegrationGuide } from './integration-guide.js';

export interface DeveloperRouteDeps {
  storage: Storage;
  config: Config;
  audit: AuditLog;
}

const FAILED_REQUESTS_SHOWN = 20;
const NOTES_SHOWN = 5;
/** Records read for the page: the failures shown, plus room for declines and notes among them. */
const EVENTS_READ = 60;

type AppForm = Record<RegisterAppField, string>;

function readAppForm(body: unknown): AppForm {
  return {
    name: formField(body, 'name', 200),
    redirectUris: formField(body, 'redirect_uris', 50_000),
    homepageUrl: formField(body, 'homepage_url', 2100).trim(),
    logoUrl: formField(body, 'logo_url', 2100).trim(),
    policyUrl: formField(body, 'policy_url', 2100).trim(),
    termsUrl: formField(body, 'terms_url', 2100).trim(),
    postLogoutRedirectUris: formField(body, 'post_logout_redirect_uris', 50_000),
    backchannelLogoutUri: formField(body, 'backchannel_logout_uri', 2100).trim(),
  };
}

/** A refused registration or change, its problems told in the page's language, one after the other as the CLI joins them. */
function describeRegistrationError({ text }: Translator, error: ClientRegistrationError): string {
  return error.problems.length > 0 ? error.problems.map(text).join('; ') : error.message;
}

/**
 * Every problem of the form, keyed by field, told in the page's language: the same checks as `latch client
 * create` (whose English words they are), plus the optional URLs.
 */
function checkAppForm(
  form: AppForm,
  config: Config,
  i18n: Translator,
): { errors: Partial<Record<RegisterAppField, string>>; redirectUris: string[]; postLogoutRedirectUris: string[]; backchannelLogoutUri: string | null } {
  const errors: Partial<Record<RegisterAppField, string>> = {};
  const nameProblem = clientNameProblem(form.name);
  if (nameProblem) errors.name = i18n.text(nameProblem);
  let redirectUris: string[] = [];
  try {
    redirectUris = checkRedirectUris(parseRedirectUriLines(form.redirectUris), { developmentMode: config.developmentMode });
  } catch (error) {
    if (!(error instanceof ClientRegistrationError)) throw error;
    errors.redirectUris = describeRegistrationError(i18n, error);
  }
  const urls = [
    ['homepageUrl', 'rules.appUrl.subject.homepage'],
    ['logoUrl', 'rules.appUrl.subject.logo'],
    ['policyUrl', 'rules.appUrl.subject.policy'],
    ['termsUrl', 'rules.appUrl.subject.terms'],
  ] as const;
  for (const [field, subject] of urls) {
    const problem = form[field] ? appUrlProblem(subject, form[field], config) : null;
    if (problem) errors[field] = i18n.text(problem);
  }
  const policy = { developmentMode: config.developmentMode };
  const postLogout = postLogoutRedirectUriProblems(parseRedirectUriLines(form.postLogoutRedirectUris), policy);
  if (postLogout.problems.length > 0) errors.postLogoutRedirectUris = postLogout.problems.map(i18n.text).join('; ');
  const backchannelLogoutUri = form.backchannelLogoutUri || null;
  const backchannelProblem = backchannelLogoutUri === null ? null : backchannelLogoutUriProblem(backchannelLogoutUri, policy);
  if (backchannelProblem) errors.backchannelLogoutUri = i18n.text(backchannelProblem);
  return { errors, redirectUris, postLogoutRedirectUris: postLogout.uris, backchannelLogoutUri };
}

/** The redirect_uri a failed authorization request sent, from its record (authorize-request.ts). */
function readReceivedRedirectUri(details: Record<string, unknown> | null): string | null {
  const mismatch = details?.redirectUriMismatch as { received?: unknown } | undefined;
  return typeof mismatch?.received === 'string' ? mismatch.received : null;
}

function toFailedRequestView(event: ClientEvent, client: Client, config: Config, i18n: Translator): FailedRequestView {
  const received = readReceivedRedirectUri(event.details);
  let view: FailedRequestView['mismatch'] = null;
  if (received !== null) {
    // Compared again with the URLs registered now (by the matcher's own rules), not with those of the moment:
    // a URL added since shows as registered.
    const closest = closestRegisteredUri(received, client.redirectUris);
    const alreadyRegistered = isRegisteredRedirectUri(client.redirectUris, received);
    const policyProblem = redirectUriProblem(received, { developmentMode: config.developmentMode });
    const addProblem = alreadyRegistered
      ? null
      : policyProblem
        ? i18n.text(policyProblem)
        : client.redirectUris.length >= MAX_REDIRECT_URIS
          ? i18n.t('developer.failure.tooMany', { max: String(MAX_REDIRECT_URIS) })
          : null;
    view = {
      received,
      closest: closest?.uri ?? null,
      difference: closest?.difference ?? null,
      alreadyRegistered,
      canAdd: !alreadyRegistered && addProblem === null,
      addProblem,
    };
  }
  return { createdAt: event.createdAt, endpoint: event.endpoint, error: event.error, description: event.description, requestId: event.requestId, mismatch: view };
}

/** The snippets are for the app's own callback: Latch's test callback is left out while the app has another. */
function withoutPlaygroundCallback(client: Client, config: Config): Client {
  const own = client.redirectUris.filter((uri) => uri !== playgroundCallbackUri(config.issuer, client.clientId));
  return own.length > 0 ? { ...client, redirectUris: own } : client;
}

/**
 * The app's recent records, told apart: its failures; people who chose "Deny" on the consent page (RFC 6749
 * §4.1.2.1 access_denied at the authorization endpoint: a person's answer, not a fault of the app); and notes
 * about requests that succeeded (scope values ignored).
 */
function sortEvents(events: ClientEvent[], client: Client, config: Config, i18n: Translator): Pick<DeveloperAppPageProps, 'failedRequests' | 'declined' | 'notes'> {
  const failedRequests: FailedRequestView[] = [];
  const declined: Date[] = [];
  const notes: FailedRequestView[] = [];
  for (const event of events) {
    if (event.endpoint === 'authorize' && event.error === 'access_denied') declined.push(event.createdAt);
    else if (event.error === 'scope_ignored') notes.push(toFailedRequestView(event, client, config, i18n));
    else failedRequests.push(toFailedRequestView(event, client, config, i18n));
  }
  return { failedRequests: failedRequests.slice(0, FAILED_REQUESTS_SHOWN), declined, notes: notes.slice(0, NOTES_SHOWN) };
}

export function registerDeveloperRoutes(app: FastifyInstance, { storage, config, audit }: DeveloperRouteDeps): void {
  const consoleState = createConsoleState(config);
  async function renderConsole(reply: FastifyReply, current: CurrentSession, extra: { status?: number; notice?: ConsoleNotice; values?: Partial<AppForm> & { appType?: string }; errors?: Partial<AppForm> } = {}) {
    const clients = await storage.clients.listByOwner(current.user.id);
    return renderPage(
      reply.code(extra.status ?? 200),
      DeveloperPage({
        csrfToken: reply.generateCsrf(),
        apps: clients.map((c) => ({ clientId: c.clientId, name: c.name, logoUrl: c.logoUrl, redirectUriCount: c.redirectUris.length, createdAt: c.createdAt })),
        notice: extra.notice,
        values: extra.values ?? {},
        errors: extra.errors ?? {},
      }),
    );
  }

  async function renderApp(
    reply: FastifyReply,
    client: Client,
    extra: { status?: number; notice?: AppNotice; values?: Partial<AppForm>; errors?: DeveloperAppPageProps['errors'] } = {},
  ) {
    const now = new Date();
    const [events, liveGrants] = await Promise.all([storage.clientEvents.listRecent(client.clientId, EVENTS_READ), storage.tokens.countLiveGrants(client.clientId, now)]);
    return renderPage(
      reply.code(extra.status ?? 200),
      DeveloperAppPage({
        csrfToken: reply.generateCsrf(),
        issuer: config.issuer,
        app: client,
        now,
        graceSeconds: config.secretRotationGraceSeconds,
        notice: extra.notice,
        values: extra.values ?? {},
        errors: extra.errors ?? {},
        ...sortEvents(events, client, config, pageTranslator(reply.request)),
        guide: buildIntegrationGuide(config.issuer, withoutPlaygroundCallback(client, config)),
        liveGrants,
        playgroundCallback: { uri: playgroundCallbackUri(config.issuer, client.clientId), registered: client.redirectUris.includes(playgroundCallbackUri(config.issuer, client.clientId)) },
      }),
    );
  }

  /** The signed-in user and their app named in the URL; null after sending a sign-in redirect; 404 for anyone else's. */
  async function ownApp(request: FastifyRequest, reply: FastifyReply): Promise<{ current: CurrentSession; client: Client } | null> {
    const { clientId } = request.params as { clientId: string };
    const current = await requireBrowserSession(storage, config, request, reply, `/developer/apps/${encodeURIComponent(clientId)}`);
    if (!current) return null;
    const client = await storage.clients.findById(clientId);
    if (!client || client.ownerUserId !== current.user.id) {
      throw new TranslatedPageError(404, { key: 'developer.error.notYours' });
    }
    return { current, client };
  }

  app.get('/developer', async (request, reply) => {
    const current = await requireBrowserSession(storage, config, request, reply);
    if (!current) return reply;
    return renderConsole(reply, current, { notice: noticeFor(request.query, CONSOLE_NOTICES) });
  });

  app.post('/developer/apps', { preHandler: app.csrfProtection }, async (request, reply) => {
    const current = await requireBrowserSession(storage, config, request, reply, '/developer');
    if (!current) return reply;
    const form = readAppForm(request.body);
    const { errors, redirectUris, postLogoutRedirectUris, backchannelLogoutUri } = checkAppForm(form, config, pageTranslator(request));
    // The form's two choices (absent: the form's default, a web app); anything else is a mistake, told rather than guessed.
    const appType = formField(request.body, 'app_type', 16);
    if (appType !== '' && appType !== 'web' && appType !== 'public') throw new TranslatedPageError(400, { key: 'developer.error.unknownAppType' });
    if (Object.keys(errors).length > 0) return renderConsole(reply, current, { status: 400, values: { ...form, appType }, errors });
    // "Single-page or mobile app": a public client, no secret (issue 18).
    const isPublic = appType === 'public';
    const { client, clientSecret } = await registerClientOfAnyKind(
      storage,
      {
        isPublic,
        name: form.name,
        redirectUris,
        ownerUserId: current.user.id,
        homepageUrl: form.homepageUrl || null,
        logoUrl: form.logoUrl || null,
        policyUrl: form.policyUrl || null,
        termsUrl: form.termsUrl || null,
        postLogoutRedirectUris,
        backchannelLogoutUri,
      },
      { developmentMode: config.developmentMode },
    );
    request.log.info({ event: 'client_registered', clientId: client.clientId, userId: current.user.id }, 'app registered');
    audit.record(request, { type: 'client.created', userId: current.user.id, clientId: client.clientId, details: { name: client.name, via: 'console' } });
    // Post/redirect/get: the secret rides to the one-time page in a sealed cookie, so that reloading the page
    // shows it at most once and never registers the app again.
    consoleState.seal(reply, NEW_SECRET_COOKIE, { userId: current.user.id, clientId: client.clientId }, { reason: 'registered', secret: clientSecret }, new Date());
    return reply.redirect(`/developer/apps/${client.clientId}${NEW_SECRET_COOKIE.subPath}`, 303);
  });

  app.get('/developer/apps/:clientId', async (request, reply) => {
    const owned = await ownApp(request, reply);
    if (!owned) return reply;
    return renderApp(reply, owned.client, { notice: noticeFor(request.query, APP_NOTICES) });
  });

  app.post('/developer/apps/:clientId/settings', { preHandler: app.csrfProtection }, async (request, reply) => {
    const owned = await ownApp(request, reply);
    if (!owned) return reply;
    const form = readAppForm(request.body);
    const { errors, redirectUris, postLogoutRedirectUris, backchannelLogoutUri } = checkAppForm(form, config, pageTranslator(request));
    if (Object.keys(errors).length > 0) return renderApp(reply, owned.client, { status: 400, values: form, errors });
    const patch = {
      name: form.name.trim(),
      redirectUris,
      homepageUrl: form.homepageUrl || null,
      logoUrl: form.logoUrl || null,
      policyUrl: form.policyUrl || null,
      termsUrl: form.termsUrl || null,
      postLogoutRedirectUris,
      backchannelLogoutUri,
      // A checkbox: sent only when ticked.
      requireMfa: formField(request.body, 'require_mfa', 8) === 'yes',
    };
    await storage.clients.update(owned.client.clientId, patch, new Date());
    const changed = changedFields(owned.client, patch);
    audit.record(request, { type: 'client.updated', userId: owned.current.user.id, clientId: owned.client.clientId, details: { changed, via: 'console' } });
    return reply.redirect(`/developer/apps/${owned.client.clientId}?notice=saved`, 303);
  });

  app.post('/developer/apps/:clientId/redirect-uris/add', { preHandler: app.csrfProtection }, async (request, reply) => {
    const owned = await ownApp(request, reply);
    if (!owned) return reply;
    const uri = formField(request.body, 'redirect_uri', 2100);
    if (!isRegisteredRedirectUri(owned.client.redirectUris, uri)) {
      try {
        await addRedirectUri(storage, owned.client.clientId, uri, { developmentMode: config.developmentMode });
        audit.record(request, { type: 'client.updated', userId: owned.current.user.id, clientId: owned.client.clientId, details: { changed: ['redirect_uris'], via: 'console' } });
      } catch (error) {
        if (!(error instanceof ClientRegistrationError)) throw error;
        return renderApp(reply, owned.client, { status: 400, errors: { redirectUris: describeRegistrationError(pageTranslator(request), error) } });
      }
    }
    request.log.info({ event: 'redirect_uri_added', clientId: owned.client.clientId }, 'redirect URI added from a failed request');
    return reply.redirect(`/developer/apps/${owned.client.clientId}?notice=redirect-added`, 303);
  });

  app.post('/developer/apps/:clientId/secret', { preHandler: app.csrfProtection }, async (request, reply) => {
    const owned = await ownApp(request, reply);
    if (!owned) return reply;
    if (owned.client.tokenEndpointAuthMethod === 'none') throw new TranslatedPageError(400, { key: 'developer.error.publicNoSecret' });
    // The form's two choices (absent: its default, the configured grace period); anything else is told, not guessed.
    const grace = formField(request.body, 'grace', 16);
    if (grace !== '' && grace !== 'default' && grace !== 'none') throw new TranslatedPageError(400, { key: 'developer.error.unknownGrace' });
    const graceSeconds = grace === 'none' ? 0 : config.secretRotationGraceSeconds;
    const now = new Date();
    const { client, clientSecret } = await rotateClientSecret(storage, owned.client.clientId, graceSeconds, now);
    request.log.info({ event: 'client_secret_rotated', clientId: client.clientId, graceSeconds }, 'client secret rotated');
    audit.record(request, { type: 'client.secret_rotated', userId: owned.current.user.id, clientId: client.clientId, details: { grace_seconds: graceSeconds, via: 'console' } });
    // Post/redirect/get, as at registration: a reload shows no secret and rotates nothing.
    consoleState.seal(reply, NEW_SECRET_COOKIE, { userId: owned.current.user.id, clientId: client.clientId }, { reason: 'rotated', secret: clientSecret, grace: graceSeconds }, now);
    return reply.redirect(`/developer/apps/${client.clientId}${NEW_SECRET_COOKIE.subPath}`, 303);
  });

  // The one-time page: the cookie is cleared whatever it held, so a reload (or going back to it) finds nothing and
  // goes to the app's page. The page itself is never cached (renderPage: no-store).
  app.get('/developer/apps/:clientId/new-secret', async (request, reply) => {
    const owned = await ownApp(request, reply);
    if (!owned) return reply;
    const { client, current } = owned;
    const now = new Date();
    const handed = consoleState.open(request, NEW_SECRET_COOKIE, { userId: current.user.id, clientId: client.clientId }, now);
    consoleState.clear(reply, NEW_SECRET_COOKIE, client.clientId);
    const secret = typeof handed?.secret === 'string' ? handed.secret : null;
    const reason = handed?.reason === 'registered' || handed?.reason === 'rotated' ? handed.reason : null;
    if (reason === null || (secret === null && client.tokenEndpointAuthMethod !== 'none')) {
      return reply.redirect(`/developer/apps/${client.clientId}${client.tokenEndpointAuthMethod === 'none' ? '' : '?notice=secret-shown'}`, 303);
    }
    const environment = buildEnvironmentBlock(config.issuer, client, secret ?? undefined);
    const previousSecret = reason === 'rotated' ? { graceSeconds: typeof handed?.grace === 'number' ? handed.grace : 0, expiresAt: client.previousSecretExpiresAt } : undefined;
    return renderPage(reply, ClientSecretPage({ appName: client.name, clientId: client.clientId, clientSecret: secret, reason, previousSecret, environment }));
  });

  app.post('/developer/apps/:clientId/delete', { preHandler: app.csrfProtection }, async (request, reply) => {
    const owned = await ownApp(request, reply);
    if (!owned) return reply;
    if (formField(request.body, 'confirm') !== 'yes') {
      return renderApp(reply, owned.client, { status: 400, errors: { confirmDelete: true } });
    }
    // Deleting the client deletes its codes, tokens, consents and events with it (ON DELETE CASCADE).
    await storage.clients.delete(owned.client.clientId);
    request.log.info({ event: 'client_deleted', clientId: owned.client.clientId, userId: owned.current.user.id }, 'app deleted');
    audit.record(request, { type: 'client.deleted', userId: owned.current.user.id, clientId: owned.client.clientId, details: { name: owned.client.name, via: 'console' } });
    return reply.redirect('/developer?notice=deleted', 303);
  });

  registerPlaygroundRoutes(app, { storage, config, audit, consoleState, ownApp });
}
