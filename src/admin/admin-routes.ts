/**
 * The admin console (issue 16 item 3; README "Admin console"; docs/protocol-decisions.md "Admin console"), for
 * accounts with the admin role:
 *
 * - GET /admin/users (search by email or name), GET /admin/users/:id, and POST …/disable, …/enable,
 *   …/sign-out-everywhere, …/resend-verification, …/reset-second-factors, …/delete (user-administration.ts);
 * - GET /admin/clients and /admin/clients/:clientId: every client, the CLI's and self-registered ones included;
 * - GET /admin/events: the audit trail with the filters of `latch events` (audit/event-filter.ts);
 * - GET /admin/keys: the signing keys and their states.
 *
 * Plain pages: every form posts with the CSRF token and answers with a 303 to the page it came from
 * (post/redirect/get); nothing needs JavaScript. Pages are never framed and never cached (renderPage: the page
 * CSP with frame-ancestors 'none', no-store). Access: admin-access.ts.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AccountPageDeps } from '../accounts/page-deps.js';
import { describeAccountFactors } from '../accounts/second-factor/account-factors.js';
import { auditEventFamilies, EventFilterError, parseSince, parseTypeFilter } from '../audit/event-filter.js';
import { AUDIT_EVENT_TYPE_NAMES } from '../audit/event-types.js';
import { formField, noticeFor } from '../http/form-fields.js';
import { renderPage } from '../http/render-page.js';
import { pageTranslator, TranslatedPageError } from '../http/page-locale.js';
import type { MessageKey } from '../i18n/messages/index.js';
import { signingKeyState } from '../keys/signing-keys.js';
import type { AuditEventFilter, User } from '../storage/storage.js';
import { AdminClientPage, AdminClientsPage } from '../views/pages/admin-clients-page.js';
import { AdminEventsPage, type EventFilterField } from '../views/pages/admin-events-page.js';
import { AdminKeysPage } from '../views/pages/admin-keys-page.js';
import { ADMIN_USER_NOTICES, AdminUserPage, type AdminUserNotice, type AdminUserPageProps } from '../views/pages/admin-user-page.js';
import { ADMIN_USERS_NOTICES, AdminUsersPage } from '../views/pages/admin-users-page.js';
import { requireAdministrator } from './admin-access.js';
import { clientSummaries, clientView, eventRows, userSummary } from './admin-views.js';
import { deleteAccount, disableAccount, enableAccount, resendVerification, resetSecondFactors, signOutEverywhere, type AdminAction } from './user-administration.js';

const USERS_SHOWN = 100;
const EVENTS_SHOWN = 100;
const RECENT_EVENTS_SHOWN = 20;

export function registerAdminRoutes(app: FastifyInstance, deps: AccountPageDeps): void {
  const { storage, config, audit } = deps;

  /** The account named in the URL; 404 when there is none (an id that is not a number names none). */
  async function targetUser(request: FastifyRequest): Promise<User> {
    const { id } = request.params as { id: string };
    const user = /^[1-9]\d{0,14}$/.test(id) ? await storage.users.findById(Number(id)) : null;
    if (!user) throw new TranslatedPageError(404, { key: 'admin.error.noUser' });
    return user;
  }

  async function renderUser(reply: FastifyReply, admin: User, user: User, extra: Pick<AdminUserPageProps, 'notice' | 'error' | 'deleteError'> & { status?: number } = {}) {
    // The events this page's own forms just recorded are written first, so that the page lists them.
    await audit.flush();
    const now = new Date();
    const [factors, sessions, consents, owned, events] = await Promise.all([
      describeAccountFactors(storage, user.id),
      storage.browserSessions.listByUser(user.id, now),
      storage.consents.listByUser(user.id),
      storage.clients.listByOwner(user.id),
      storage.auditEvents.list({ userId: user.id, limit: RECENT_EVENTS_SHOWN }),
    ]);
    const consented = await Promise.all(consents.map((consent) => storage.clients.findById(consent.clientId)));
    return renderPage(
      reply.code(extra.status ?? 200),
      AdminUserPage({
        csrfToken: reply.generateCsrf(),
        user: { id: user.id, email: user.email, name: user.name, emailVerified: user.emailVerified, isAdmin: user.isAdmin, disabledAt: user.disabledAt, createdAt: user.createdAt, updatedAt: user.updatedAt },
        isSelf: user.id === admin.id,
        factors: { authenticatorApp: factors.authenticatorApp !== null, recoveryCodesLeft: factors.recoveryCodesLeft, passkeys: factors.passkeys.length },
        activeSessions: sessions.length,
        apps: consented.flatMap((client) => (client ? [{ clientId: client.clientId, name: client.name }] : [])),
        ownedClients: owned.map((client) => ({ clientId: client.clientId, name: client.name })),
        events: await eventRows(storage, events),
        notice: extra.notice,
        error: extra.error,
        deleteError: extra.deleteError,
      }),
    );
  }

  app.get('/admin', async (request, reply) => {
    if (!(await requireAdministrator(storage, config, request, reply))) return reply;
    return reply.redirect('/admin/users', 303);
  });

  app.get('/admin/users', async (request, reply) => {
    if (!(await requireAdministrator(storage, config, request, reply))) return reply;
    const query = formField(request.query, 'q', 200).trim();
    // One more than shown: whether there are more to narrow down.
    const found = await storage.users.search(query, USERS_SHOWN + 1);
    return renderPage(
      reply,
      AdminUsersPage({ query, users: found.slice(0, USERS_SHOWN).map(userSummary), truncated: found.length > USERS_SHOWN, notice: noticeFor(request.query, ADMIN_USERS_NOTICES) }),
    );
  });

  app.get('/admin/users/:id', async (request, reply) => {
    const current = await requireAdministrator(storage, config, request, reply);
    if (!current) return reply;
    return renderUser(reply, current.user, await targetUser(request), { notice: noticeFor(request.query, ADMIN_USER_NOTICES) });
  });

  /**
   * One action on one account: the administrator, the account, then `act`; afterwards a 303 to the account's page
   * with `notice`. `refuse` names a reason not to act, shown on the page with a 400 instead.
   */
  function userAction(path: string, notice: AdminUserNotice | null, act: (action: AdminAction) => Promise<void>, refuse?: (action: AdminAction) => MessageKey | null) {
    app.post(`/admin/users/:id/${path}`, { preHandler: app.csrfProtection }, async (request, reply) => {
      const current = await requireAdministrator(storage, config, request, reply);
      if (!current) return reply;
      const action: AdminAction = { deps, request, admin: current.user, target: await targetUser(request) };
      const refusal = refuse?.(action) ?? null;
      if (refusal) return renderUser(reply, current.user, action.target, { status: 400, error: pageTranslator(request).t(refusal) });
      await act(action);
      request.log.info({ event: 'admin_action', action: path, userId: action.target.id, adminUserId: current.user.id }, 'admin action');
      return reply.redirect(notice ? `/admin/users/${action.target.id}?notice=${notice}` : '/admin/users?notice=deleted', 303);
    });
  }

  // An administrator cannot lock themselves out from here: another administrator, or the CLI, can.
  const notSelf = (action: AdminAction) => (action.target.id === action.admin.id ? ('admin.user.error.selfDisable' as const) : null);
  userAction('disable', 'disabled', disableAccount, notSelf);
  userAction('enable', 'enabled', enableAccount);
  userAction('sign-out-everywhere', 'signed-out', signOutEverywhere);
  userAction('resend-verification', 'verification-sent', resendVerification, (action) => (action.target.emailVerified ? 'admin.user.error.confirmedAlready' : null));
  userAction('reset-second-factors', 'factors-reset', resetSecondFactors);

  app.post('/admin/users/:id/delete', { preHandler: app.csrfProtection }, async (request, reply) => {
    const current = await requireAdministrator(storage, config, request, reply);
    if (!current) return reply;
    const target = await targetUser(request);
    const { t } = pageTranslator(request);
    if (target.id === current.user.id) return renderUser(reply, current.user, target, { status: 400, error: t('admin.user.error.self') });
    const typed = formField(request.body, 'confirm_email', 400).trim();
    if (typed.toLowerCase() !== target.email.toLowerCase()) {
      return renderUser(reply, current.user, target, { status: 400, deleteError: t('admin.user.error.typeEmail', { email: target.email }) });
    }
    await deleteAccount({ deps, request, admin: current.user, target });
    request.log.info({ event: 'admin_action', action: 'delete', userId: target.id, adminUserId: current.user.id }, 'admin action');
    return reply.redirect('/admin/users?notice=deleted', 303);
  });

  app.get('/admin/clients', async (request, reply) => {
    if (!(await requireAdministrator(storage, config, request, reply))) return reply;
    const clients = await storage.clients.list();
    return renderPage(reply, AdminClientsPage({ clients: await clientSummaries(storage, clients) }));
  });

  app.get('/admin/clients/:clientId', async (request, reply) => {
    if (!(await requireAdministrator(storage, config, request, reply))) return reply;
    const { clientId } = request.params as { clientId: string };
    const client = await storage.clients.findById(clientId);
    if (!client) throw new TranslatedPageError(404, { key: 'admin.error.noClient' });
    const now = new Date();
    const [liveGrants, events] = await Promise.all([storage.tokens.countLiveGrants(client.clientId, now), storage.auditEvents.list({ clientId: client.clientId, limit: RECENT_EVENTS_SHOWN })]);
    return renderPage(reply, AdminClientPage({ client: await clientView(storage, client, now), liveGrants, events: await eventRows(storage, events) }));
  });

  app.get('/admin/events', async (request, reply) => {
    if (!(await requireAdministrator(storage, config, request, reply))) return reply;
    const values: Record<EventFilterField, string> = {
      user: formField(request.query, 'user', 400).trim(),
      client: formField(request.query, 'client', 200).trim(),
      type: formField(request.query, 'type', 200).trim(),
      since: formField(request.query, 'since', 100).trim(),
    };
    const errors: Partial<Record<EventFilterField, string>> = {};
    const filter: AuditEventFilter = { limit: EVENTS_SHOWN };
    const { t, locale } = pageTranslator(request);
    const readFilter = (field: 'type' | 'since', read: () => void) => {
      try {
        read();
      } catch (error) {
        if (!(error instanceof EventFilterError)) throw error;
        // The CLI's own words in English (they list the types); another language says what the field needs.
        errors[field] = locale === 'en' ? error.message.charAt(0).toUpperCase() + error.message.slice(1) : t(field === 'type' ? 'admin.events.error.type' : 'admin.events.error.since');
      }
    };
    if (values.type) readFilter('type', () => Object.assign(filter, parseTypeFilter(values.type)));
    if (values.since) readFilter('since', () => (filter.since = parseSince(values.since, new Date())));
    if (values.client) filter.clientId = values.client;
    if (values.user) {
      if (/^\d{1,15}$/.test(values.user)) filter.userId = Number(values.user);
      else {
        const user = await storage.users.findByEmail(values.user);
        if (user) filter.userId = user.id;
        // Failed sign-ins to unknown accounts record no email: there is nothing to find by it.
        else errors.user = t('admin.events.error.noUser');
      }
    }
    // The next page starts after the last event shown (its time in seconds and its id), whatever arrived meanwhile.
    const olderThan = formField(request.query, 'older_than', 40);
    if (olderThan) {
      const cursor = /^(\d{1,12})\.(\d{1,15})$/.exec(olderThan);
      if (!cursor) throw new TranslatedPageError(400, { key: 'admin.error.olderLink' });
      filter.after = { createdAt: new Date(Number(cursor[1]) * 1000), id: Number(cursor[2]) };
    }
    const typeOptions = { families: auditEventFamilies(), types: [...AUDIT_EVENT_TYPE_NAMES] };
    if (Object.keys(errors).length > 0) return renderPage(reply.code(400), AdminEventsPage({ values, errors, typeOptions, events: [], limit: EVENTS_SHOWN }));
    await audit.flush();
    const events = await storage.auditEvents.list(filter);
    const withFilters = (extra: Record<string, string>) =>
      `/admin/events?${new URLSearchParams({ ...Object.fromEntries(Object.entries(values).filter(([, value]) => value !== '')), ...extra })}`;
    const last = events.at(-1);
    return renderPage(
      reply,
      AdminEventsPage({
        values,
        errors,
        typeOptions,
        events: await eventRows(storage, events),
        limit: EVENTS_SHOWN,
        olderHref: events.length === EVENTS_SHOWN && last ? withFilters({ older_than: `${Math.floor(last.createdAt.getTime() / 1000)}.${last.id}` }) : undefined,
        newestHref: olderThan ? withFilters({}) : undefined,
      }),
    );
  });

  app.get('/admin/keys', async (request, reply) => {
    if (!(await requireAdministrator(storage, config, request, reply))) return reply;
    const now = new Date();
    const keys = await storage.signingKeys.listAll();
    return renderPage(
      reply,
      AdminKeysPage({
        keys: keys.map((key) => ({ kid: key.kid, alg: key.alg, state: signingKeyState(key, now), createdAt: key.createdAt, activatesAt: key.activatesAt, deactivatesAt: key.deactivatesAt, retiresAt: key.retiresAt })),
      }),
    );
  });
}
