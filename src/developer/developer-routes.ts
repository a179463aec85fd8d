/**
 * The developer console for signed-in users: GET /developer (your apps, register a new one) and each app's
 * page GET /developer/apps/:clientId (client id, secret rotation with a grace period, settings with the same
 * redirect URI checks as the CLI, recent failed requests with one-click "add this redirect URL", an
 * integration guide with the app's real values, deletion). A secret is shown only in the response that
 * creates it. An app is visible only to the user who registered it; anyone else gets a 404.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { isRegisteredRedirectUri, type RedirectUriMismatch } from '../clients/redirect-uri-match.js';
import { checkRedirectUri } from '../clients/redirect-uri-policy.js';
import {
  addRedirectUri,
  checkClientName,
  checkRedirectUris,
  ClientRegistrationError,
  MAX_REDIRECT_URIS,
  registerClient,
  rotateClientSecret,
} from '../clients/client-registration.js';
import type { Config } from '../config.js';
import { InvalidRequest } from '../errors.js';
import { formField, noticeFor } from '../http/form-fields.js';
import type { CurrentSession } from '../interaction/browser-session.js';
import { requireBrowserSession } from '../interaction/require-session.js';
import { describeDuration } from '../mail/messages.js';
import type { Client, ClientEvent, Storage } from '../storage/storage.js';
import { formatTime } from '../views/format.js';
import { ClientSecretPage } from '../views/pages/client-secret-page.js';
import { DeveloperAppPage, type FailedRequestView } from '../views/pages/developer-app-page.js';
import { DeveloperPage, type RegisterAppField } from '../views/pages/developer-page.js';
import { renderErrorPage, renderPage } from '../views/render.js';
import { checkAppUrl, parseRedirectUriLines } from './app-details.js';
import { buildIntegrationGuide } from './integration-guide.js';

export interface DeveloperRouteDeps {
  storage: Storage;
  config: Config;
}

const FAILED_REQUESTS_SHOWN = 20;
const APP_NOTICES = {
  saved: 'Settings saved.',
  'redirect-added': 'Redirect URL added. Try the sign-in again.',
};
const CONSOLE_NOTICES = { deleted: 'The app was deleted. Its tokens no longer work.' };

type AppForm = Record<RegisterAppField, string>;

function readAppForm(body: unknown): AppForm {
  return {
    name: formField(body, 'name', 200),
    redirectUris: formField(body, 'redirect_uris', 50_000),
    homepageUrl: formField(body, 'homepage_url', 2100).trim(),
    logoUrl: formField(body, 'logo_url', 2100).trim(),
  };
}

/** Every problem of the form, keyed by field: the same checks as `latch client create`, plus the optional URLs. */
function checkAppForm(form: AppForm, config: Config): { errors: Partial<Record<RegisterAppField, string>>; redirectUris: string[] } {
  const errors: Partial<Record<RegisterAppField, string>> = {};
  const nameProblem = checkClientName(form.name);
  if (nameProblem) errors.name = nameProblem;
  let redirectUris: string[] = [];
  try {
    redirectUris = checkRedirectUris(parseRedirectUriLines(form.redirectUris), { developmentMode: config.developmentMode });
  } catch (error) {
    if (!(error instanceof ClientRegistrationError)) throw error;
    errors.redirectUris = error.message;
  }
  const homepageProblem = form.homepageUrl ? checkAppUrl('Homepage URL', form.homepageUrl, config) : null;
  if (homepageProblem) errors.homepageUrl = homepageProblem;
  const logoProblem = form.logoUrl ? checkAppUrl('Logo URL', form.logoUrl, config) : null;
  if (logoProblem) errors.logoUrl = logoProblem;
  return { errors, redirectUris };
}

function readMismatch(details: Record<string, unknown> | null): RedirectUriMismatch | null {
  const mismatch = details?.redirectUriMismatch as Partial<RedirectUriMismatch> | undefined;
  if (!mismatch || typeof mismatch.received !== 'string') return null;
  return {
    received: mismatch.received,
    registered: Array.isArray(mismatch.registered) ? mismatch.registered.filter((u): u is string => typeof u === 'string') : [],
    closest: typeof mismatch.closest === 'string' ? mismatch.closest : null,
    differingPart: (typeof mismatch.differingPart === 'string' ? mismatch.differingPart : null) as RedirectUriMismatch['differingPart'],
  };
}

function toFailedRequestView(event: ClientEvent, client: Client, config: Config): FailedRequestView {
  const mismatch = readMismatch(event.details);
  let view: FailedRequestView['mismatch'] = null;
  if (mismatch) {
    const alreadyRegistered = isRegisteredRedirectUri(client.redirectUris, mismatch.received);
    const policyProblem = checkRedirectUri(mismatch.received, { developmentMode: config.developmentMode });
    const addProblem = alreadyRegistered
      ? null
      : (policyProblem ?? (client.redirectUris.length >= MAX_REDIRECT_URIS ? `at most ${MAX_REDIRECT_URIS} redirect URLs per app` : null));
    view = { received: mismatch.received, closest: mismatch.closest, differingPart: mismatch.differingPart, canAdd: !alreadyRegistered && addProblem === null, addProblem };
  }
  return { createdAt: event.createdAt, endpoint: event.endpoint, error: event.error, description: event.description, requestId: event.requestId, mismatch: view };
}

export function registerDeveloperRoutes(app: FastifyInstance, { storage, config }: DeveloperRouteDeps): void {
  async function renderConsole(reply: FastifyReply, current: CurrentSession, extra: { status?: number; notice?: string; values?: Partial<AppForm>; errors?: Partial<AppForm> } = {}) {
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
    extra: { status?: number; notice?: string; values?: Partial<AppForm>; errors?: Partial<Record<RegisterAppField | 'confirmDelete', string>> } = {},
  ) {
    const events = await storage.clientEvents.listRecent(client.clientId, FAILED_REQUESTS_SHOWN);
    return renderPage(
      reply.code(extra.status ?? 200),
      DeveloperAppPage({
        csrfToken: reply.generateCsrf(),
        issuer: config.issuer,
        app: client,
        now: new Date(),
        graceSeconds: config.secretRotationGraceSeconds,
        notice: extra.notice,
        values: extra.values ?? {},
        errors: extra.errors ?? {},
        failedRequests: events.map((event) => toFailedRequestView(event, client, config)),
        guide: buildIntegrationGuide(config.issuer, client),
      }),
    );
  }

  /** The signed-in user and their app named in the URL; null after sending a sign-in redirect. */
  async function ownApp(request: FastifyRequest, reply: FastifyReply): Promise<{ current: CurrentSession; client: Client } | null> {
    const { clientId } = request.params as { clientId: string };
    const current = await requireBrowserSession(storage, config, request, reply, `/developer/apps/${encodeURIComponent(clientId)}`);
    if (!current) return null;
    const client = await storage.clients.findById(clientId);
    if (!client || client.ownerUserId !== current.user.id) {
      renderErrorPage(reply.code(404), request, new InvalidRequest('None of your apps has this client id. Apps registered with the CLI do not appear in the console.'));
      return null;
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
    const { errors, redirectUris } = checkAppForm(form, config);
    if (Object.keys(errors).length > 0) return renderConsole(reply, current, { status: 400, values: form, errors });
    const { client, clientSecret } = await registerClient(
      storage,
      { name: form.name, redirectUris, ownerUserId: current.user.id, homepageUrl: form.homepageUrl || null, logoUrl: form.logoUrl || null },
      { developmentMode: config.developmentMode },
    );
    request.log.info({ event: 'client_registered', clientId: client.clientId, userId: current.user.id }, 'app registered');
    return renderPage(reply.code(201), ClientSecretPage({ appName: client.name, clientId: client.clientId, clientSecret, reason: 'registered' }));
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
    const { errors, redirectUris } = checkAppForm(form, config);
    if (Object.keys(errors).length > 0) return renderApp(reply, owned.client, { status: 400, values: form, errors });
    await storage.clients.update(
      owned.client.clientId,
      { name: form.name.trim(), redirectUris, homepageUrl: form.homepageUrl || null, logoUrl: form.logoUrl || null },
      new Date(),
    );
    return reply.redirect(`/developer/apps/${owned.client.clientId}?notice=saved`, 303);
  });

  app.post('/developer/apps/:clientId/redirect-uris/add', { preHandler: app.csrfProtection }, async (request, reply) => {
    const owned = await ownApp(request, reply);
    if (!owned) return reply;
    const uri = formField(request.body, 'redirect_uri', 2100);
    if (!isRegisteredRedirectUri(owned.client.redirectUris, uri)) {
      try {
        await addRedirectUri(storage, owned.client.clientId, uri, { developmentMode: config.developmentMode });
      } catch (error) {
        if (!(error instanceof ClientRegistrationError)) throw error;
        return renderApp(reply, owned.client, { status: 400, errors: { redirectUris: error.message } });
      }
    }
    request.log.info({ event: 'redirect_uri_added', clientId: owned.client.clientId }, 'redirect URI added from a failed request');
    return reply.redirect(`/developer/apps/${owned.client.clientId}?notice=redirect-added`, 303);
  });

  app.post('/developer/apps/:clientId/secret', { preHandler: app.csrfProtection }, async (request, reply) => {
    const owned = await ownApp(request, reply);
    if (!owned) return reply;
    const graceSeconds = formField(request.body, 'grace') === 'none' ? 0 : config.secretRotationGraceSeconds;
    const now = new Date();
    const { client, clientSecret } = await rotateClientSecret(storage, owned.client.clientId, graceSeconds, now);
    request.log.info({ event: 'client_secret_rotated', clientId: client.clientId, graceSeconds }, 'client secret rotated');
    const previousSecretStatement =
      graceSeconds > 0 && client.previousSecretExpiresAt
        ? `The previous secret keeps working for ${describeDuration(graceSeconds)}, until ${formatTime(client.previousSecretExpiresAt)}; then it stops. Deploy the new secret before then.`
        : 'The previous secret stopped working immediately.';
    return renderPage(reply, ClientSecretPage({ appName: client.name, clientId: client.clientId, clientSecret, reason: 'rotated', previousSecretStatement }));
  });

  app.post('/developer/apps/:clientId/delete', { preHandler: app.csrfProtection }, async (request, reply) => {
    const owned = await ownApp(request, reply);
    if (!owned) return reply;
    if (formField(request.body, 'confirm') !== 'yes') {
      return renderApp(reply, owned.client, { status: 400, errors: { confirmDelete: 'Tick the box to confirm that you want to delete this app' } });
    }
    // Deleting the client deletes its codes, tokens, consents and events with it (ON DELETE CASCADE).
    await storage.clients.delete(owned.client.clientId);
    request.log.info({ event: 'client_deleted', clientId: owned.client.clientId, userId: owned.current.user.id }, 'app deleted');
    return reply.redirect('/developer?notice=deleted', 303);
  });
}
