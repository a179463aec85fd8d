/**
 * GET /account and its forms: profile (name; the picture, uploaded or by address, in one form), password change
 * (ends the other sessions), active sessions, connected apps with "Remove access" (withdraws the consent and
 * revokes that app's tokens, docs/protocol-decisions.md "Consent"). Every form posts back here with CSRF
 * protection and redirects (303) to the page with a fixed notice beside the section it changed (`#apps`), or
 * re-renders it with the error next to the field. What a change was about (the app, the device) rides to the
 * notice in a one-minute cookie, never in the URL, so that no link can make the page say something.
 */
import fastifyMultipart from '@fastify/multipart';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { pageErrorHandler } from '../oauth/error-surfaces.js';
import { readUploadForm, UploadProblem } from '../http/form-body.js';
import { formField, noticeFor } from '../http/form-fields.js';
import { outboxPageIsAvailable } from '../mail/outbox-routes.js';
import { enrolledFactors } from './second-factor/second-factors.js';
import { noteRequestFailure } from '../http/request-failure.js';
import { clearSessionCookie, readBrowserSession, type CurrentSession } from '../session/browser-session.js';
import { endBrowserSessions } from '../session/session-endings.js';
import { requireBrowserSession } from '../session/require-session.js';
import { renderPage } from '../http/render-page.js';
import { pageTranslator } from '../http/page-locale.js';
import {
  ACCOUNT_NOTICES,
  AccountPage,
  describeSession,
  userAgentWords,
  NOTICE_SECTIONS,
  type AccountField,
  type AccountNotice,
  type AccountPageProps,
} from '../views/pages/account-page.js';
import { avatarUrlProblem, nameProblem, passwordProblem, PASSWORD_MIN_LENGTH, type RuleProblem } from './account-rules.js';
import { avatarUploadProblem, isUploadedAvatar, MAX_AVATAR_BYTES, storeAvatarImage } from './avatar-images.js';
import { listAccountActivity } from './account-activity.js';
import type { AccountPageDeps } from './page-deps.js';
import { hashPassword, verifyPassword } from './passwords.js';
import { SignInThrottle } from './sign-in-throttle.js';

const NOTICE_SUBJECT_MAX_LENGTH = 200;

export function registerAccountRoutes(app: FastifyInstance, deps: AccountPageDeps): void {
  const { storage, config, audit } = deps;
  /**
   * The cookie that carries a notice's subject ("Orbit Notes", "Firefox 133 on Windows, 203.0.113.5") to the next
   * GET. On https its __Host- prefix keeps other hosts of the domain from setting it (RFC 6265bis §4.1.3.2), as
   * for the session cookie; the prefix asks for path /.
   */
  const NOTICE_SUBJECT_COOKIE = config.secureCookies ? '__Host-latch_account_notice' : 'latch_account_notice';

  /** 303 to the account page's notice, beside the section it is about; `subject` names what changed. */
  function redirectToNotice(reply: FastifyReply, notice: AccountNotice, subject?: string): FastifyReply {
    if (subject) {
      reply.setCookie(NOTICE_SUBJECT_COOKIE, subject.slice(0, NOTICE_SUBJECT_MAX_LENGTH), {
        path: '/',
        httpOnly: true,
        sameSite: 'lax',
        secure: config.secureCookies,
        maxAge: 60,
      });
    }
    return reply.redirect(`/account?notice=${notice}#${NOTICE_SECTIONS[notice]}`, 303);
  }

  async function renderAccount(
    reply: FastifyReply,
    current: CurrentSession,
    extra: { status?: number; notice?: AccountNotice; noticeSubject?: string; errors?: AccountPageProps['errors']; values?: AccountPageProps['values'] } = {},
  ) {
    const now = new Date();
    // The person's own latest events are written first, so that the page shows what they just did.
    await audit.flush();
    const [sessions, consents, activity, factors] = await Promise.all([
      storage.browserSessions.listByUser(current.user.id, now),
      storage.consents.listByUser(current.user.id),
      listAccountActivity(storage, current.user.id),
      enrolledFactors(storage, current.user.id),
    ]);
    const clients = await Promise.all(consents.map((consent) => storage.clients.findById(consent.clientId)));
    const apps = consents.flatMap((consent, i) => {
      const client = clients[i];
      return client
        ? [{ clientId: client.clientId, name: client.name, homepageUrl: client.homepageUrl, logoUrl: client.logoUrl, scope: consent.scope, grantedAt: consent.updatedAt, lastUsedAt: consent.lastUsedAt }]
        : [];
    });
    return renderPage(
      reply.code(extra.status ?? 200),
      AccountPage({
        csrfToken: reply.generateCsrf(),
        user: current.user,
        usesUploadedAvatar: isUploadedAvatar(config.issuer, current.user.avatarUrl),
        passwordMinLength: PASSWORD_MIN_LENGTH,
        notice: extra.notice,
        noticeSubject: extra.noticeSubject,
        localOutbox: outboxPageIsAvailable(config),
        errors: extra.errors ?? {},
        values: extra.values ?? {},
        sessions: sessions
          .sort((a, b) => Number(b.sessionHash === current.session.sessionHash) - Number(a.sessionHash === current.session.sessionHash) || b.lastSeenAt.getTime() - a.lastSeenAt.getTime())
          .map((session) => ({
            id: session.sessionHash,
            isCurrent: session.sessionHash === current.session.sessionHash,
            userAgent: session.userAgent,
            ipAddress: session.ipAddress,
            createdAt: session.createdAt,
            lastSeenAt: session.lastSeenAt,
          })),
        apps,
        activity,
        factors: { authenticatorApp: factors.authenticatorApp, passkeys: factors.passkeys.length },
      }),
    );
  }

  /**
   * The page again with the field's problem beside it, in the page's language: a message of the catalogue, or
   * an English text from where there is none (an upload the parser could not read), told in another language
   * by the general "could not be read".
   */
  const rerenderWithError = (reply: FastifyReply, current: CurrentSession, field: AccountField, problem: RuleProblem | string, values: AccountPageProps['values'] = {}, status = 400) => {
    const { t, locale } = pageTranslator(reply.request);
    const message = typeof problem !== 'string' ? t(problem.key, problem.params) : locale === 'en' ? problem : t('account.error.unreadable');
    return renderAccount(reply, current, { status, errors: { [field]: message }, values });
  };

  // A wrong current password counts like a failed sign-in, per account and per address, and past the sign-in
  // limit no password is checked, as for the two-step settings' proof: a borrowed signed-in browser or a stolen
  // session cookie must not become a way to guess the password without the sign-in page's limit (OWASP
  // Authentication Cheat Sheet, "Protect against automated attacks"; NIST SP 800-63B §5.2.2).
  const passwordThrottle = new SignInThrottle(deps.attemptCounter, {
    maxFailuresPerAccount: config.signInMaxFailuresPerAccount,
    maxFailuresPerAddress: config.signInMaxFailuresPerAddress,
    windowSeconds: config.signInWindowSeconds,
  });

  app.get('/account', async (request, reply) => {
    const current = await requireBrowserSession(storage, config, request, reply);
    if (!current) return reply;
    const notice = noticeFor(request.query, ACCOUNT_NOTICES);
    // Read once: a reload shows the notice's general words.
    const subject = request.cookies[NOTICE_SUBJECT_COOKIE];
    if (subject !== undefined) reply.clearCookie(NOTICE_SUBJECT_COOKIE, { path: '/', httpOnly: true, sameSite: 'lax', secure: config.secureCookies });
    return renderAccount(reply, current, { notice, noticeSubject: notice && subject ? subject.slice(0, NOTICE_SUBJECT_MAX_LENGTH) : undefined });
  });

  app.post('/account/profile', { preHandler: app.csrfProtection }, async (request, reply) => {
    const current = await requireBrowserSession(storage, config, request, reply);
    if (!current) return reply;
    const name = formField(request.body, 'name', 200);
    // The name form sends only the name; a post that also sends avatar_url (scripts, the earlier form) sets both.
    const withAvatar = typeof (request.body as Record<string, unknown> | undefined)?.avatar_url === 'string';
    const avatarUrl = formField(request.body, 'avatar_url', 2100).trim();
    const values = { name, ...(withAvatar && { avatarUrl }) };
    const problemOfName = nameProblem(name);
    if (problemOfName) return rerenderWithError(reply, current, 'name', problemOfName, values);
    const avatarProblem = !withAvatar || avatarUrl === '' ? null : avatarUrlProblem(avatarUrl);
    if (avatarProblem) return rerenderWithError(reply, current, 'avatarUrl', avatarProblem, values);

    const keepsAvatar = !withAvatar || (avatarUrl === '' && isUploadedAvatar(config.issuer, current.user.avatarUrl));
    const now = new Date();
    await storage.transaction(async (tx) => {
      await tx.users.update(current.user.id, { name: name.trim(), ...(!keepsAvatar && { avatarUrl: avatarUrl || null }) }, now);
      if (!keepsAvatar) await tx.avatarImages.deleteByUserExcept(current.user.id, null);
    });
    return redirectToNotice(reply, 'profile-saved');
  });

  // The upload form is the one multipart page form: its parser lives in its own scope, limited to one file.
  // The body is read before the CSRF check (which needs its _csrf field); a body that cannot be read is shown
  // on the account page, next to the upload field, as what went wrong (re-rendering it changes nothing).
  app.register(async function avatarUpload(scope) {
    await scope.register(fastifyMultipart, {
      // One byte over the limit is enough to tell "too large" without reading (or failing on) the rest.
      throwFileSizeLimit: false,
      // fieldSize: the picture's address may be as long as checkAvatarUrl allows (2,000 characters).
      limits: { files: 1, fileSize: MAX_AVATAR_BYTES + 1, fields: 5, fieldSize: 4096, parts: 6, headerPairs: 50 },
    });
    scope.addHook('preValidation', async (request) => {
      if (!request.isMultipart()) return;
      const form = await readUploadForm(request);
      request.body = Object.assign(Object.create(null) as Record<string, unknown>, form.fields, form.files);
    });
    const pageHandler = pageErrorHandler();
    scope.setErrorHandler(async (error: Error, request, reply) => {
      const current = error instanceof UploadProblem ? await readBrowserSession(storage, config, request) : null;
      if (!current || !(error instanceof UploadProblem)) return pageHandler(error, request, reply);
      noteRequestFailure(request, { error: 'bad_request', reason: error.description, outcome: 'page failed' });
      return rerenderWithError(reply, current, 'avatarFile', error.description);
    });
    scope.post('/account/avatar', { preHandler: scope.csrfProtection }, async (request, reply) => {
      const current = await requireBrowserSession(storage, config, request, reply);
      if (!current) return reply;
      // One form for the picture (issue 19 item 3): "Remove picture", or a file, or else the address of one.
      const body = request.body as Record<string, unknown> | undefined;
      if (formField(body, 'action', 20) === 'remove') {
        await removeAvatar(current.user.id);
        return redirectToNotice(reply, 'avatar-removed');
      }
      const file = body?.avatar;
      if (file !== undefined && !Buffer.isBuffer(file)) return rerenderWithError(reply, current, 'avatarFile', { key: 'account.error.chooseImage' });
      const avatarUrl = formField(body, 'avatar_url', 2100).trim();
      if ((file === undefined || file.length === 0) && avatarUrl !== '') {
        const problem = avatarUrlProblem(avatarUrl);
        if (problem) return rerenderWithError(reply, current, 'avatarUrl', problem, { avatarUrl });
        await storage.transaction(async (tx) => {
          await tx.users.update(current.user.id, { avatarUrl }, new Date());
          await tx.avatarImages.deleteByUserExcept(current.user.id, null);
        });
        return redirectToNotice(reply, 'avatar-saved');
      }
      const data = file ?? Buffer.alloc(0);
      const problem: RuleProblem | null = data.length === 0 ? { key: 'account.error.chooseImageOrUrl' } : avatarUploadProblem(data);
      if (problem) return rerenderWithError(reply, current, 'avatarFile', problem);
      await storeAvatarImage(storage, config.issuer, current.user, data);
      request.log.info({ event: 'avatar_uploaded', userId: current.user.id, bytes: data.length }, 'avatar uploaded');
      return redirectToNotice(reply, 'avatar-uploaded');
    });
  });

  async function removeAvatar(userId: number): Promise<void> {
    await storage.transaction(async (tx) => {
      await tx.users.update(userId, { avatarUrl: null }, new Date());
      await tx.avatarImages.deleteByUserExcept(userId, null);
    });
  }

  // Kept for forms and scripts made before the one picture form ("Remove picture" posts to /account/avatar).
  app.post('/account/avatar/remove', { preHandler: app.csrfProtection }, async (request, reply) => {
    const current = await requireBrowserSession(storage, config, request, reply);
    if (!current) return reply;
    await removeAvatar(current.user.id);
    return redirectToNotice(reply, 'avatar-removed');
  });

  app.get('/avatars/:id', async (request, reply) => {
    const { id } = request.params as { id: string };
    const image = /^[A-Za-z0-9_-]{10,40}$/.test(id) ? await storage.avatarImages.findById(id) : null;
    if (!image) {
      return reply.code(404).type('text/plain; charset=utf-8').send('No such avatar');
    }
    return reply
      .type(image.contentType)
      // The id changes with every upload, so the bytes behind one URL never change.
      .header('cache-control', 'public, max-age=86400, immutable')
      // Client apps show avatar_url on their own pages: allow cross-origin embedding of this image only.
      .header('cross-origin-resource-policy', 'cross-origin')
      .header('content-security-policy', "default-src 'none'; sandbox")
      .header('content-disposition', 'inline')
      .send(image.data);
  });

  app.post('/account/password', { preHandler: app.csrfProtection }, async (request, reply) => {
    const current = await requireBrowserSession(storage, config, request, reply);
    if (!current) return reply;
    const currentPassword = formField(request.body, 'current_password', 1024);
    const newPassword = formField(request.body, 'new_password', 1024);
    const now = new Date();
    if (await passwordThrottle.isThrottled(current.user.email, request.ip, now)) {
      return rerenderWithError(reply, current, 'currentPassword', { key: 'account.error.currentPasswordThrottled' }, {}, 429);
    }
    if (!(await verifyPassword(current.user.passwordHash, currentPassword))) {
      await passwordThrottle.recordFailure(current.user.email, request.ip, now);
      return rerenderWithError(reply, current, 'currentPassword', { key: 'account.error.currentPassword' });
    }
    const problem = passwordProblem(newPassword, current.user.email);
    if (problem) return rerenderWithError(reply, current, 'newPassword', problem);
    const passwordHash = await hashPassword(newPassword);
    // Whoever else knew the old password is signed out everywhere but here (OWASP Session Management).
    const others = { allExcept: current.session.sessionHash };
    await endBrowserSessions(deps, request.log, { userId: current.user.id, which: others, reason: 'password_changed' }, async (tx) => {
      await tx.users.update(current.user.id, { passwordHash }, now);
      await tx.emailLinks.invalidateByUser(current.user.id, 'reset_password', now);
    });
    request.log.info({ event: 'password_changed', userId: current.user.id }, 'password changed');
    audit.record(request, { type: 'user.password.changed', userId: current.user.id });
    return redirectToNotice(reply, 'password-changed');
  });

  app.post('/account/sessions/end', { preHandler: app.csrfProtection }, async (request, reply) => {
    const current = await requireBrowserSession(storage, config, request, reply);
    if (!current) return reply;
    const sessionHash = formField(request.body, 'session', 100);
    // Named in the notice as the list showed it, read before it ends (only this user's own sessions are looked at).
    const ending = (await storage.browserSessions.listByUser(current.user.id, new Date())).find((session) => session.sessionHash === sessionHash);
    // Only one of the signed-in user's own sessions can be ended here: the ending is limited to this user's.
    const ended = await endBrowserSessions(deps, request.log, { userId: current.user.id, which: { sessionHash }, reason: 'session_ended_from_account' });
    if (ended.length > 0) audit.record(request, { type: 'user.session.signed_out', userId: current.user.id, details: { reason: 'session_ended_from_account' } });
    if (sessionHash === current.session.sessionHash) {
      clearSessionCookie(config, reply);
      return reply.redirect('/', 303);
    }
    // Named in the words of the page that asked (the notice shows it as it is).
    const words = userAgentWords(pageTranslator(request).t);
    return redirectToNotice(reply, 'session-ended', ended.length > 0 && ending ? describeSession(ending, words) : undefined);
  });

  // "Sign out everywhere": every session of this person, this one included (issue 14 item 5).
  app.post('/account/sessions/end-all', { preHandler: app.csrfProtection }, async (request, reply) => {
    const current = await requireBrowserSession(storage, config, request, reply);
    if (!current) return reply;
    const ended = await endBrowserSessions(deps, request.log, { userId: current.user.id, which: { allExcept: null }, reason: 'signed_out_everywhere' });
    audit.record(request, { type: 'user.session.signed_out_everywhere', userId: current.user.id, details: { sessions: ended.length } });
    clearSessionCookie(config, reply);
    return reply.redirect('/login?notice=signed-out-everywhere', 303);
  });

  app.post('/account/apps/remove', { preHandler: app.csrfProtection }, async (request, reply) => {
    const current = await requireBrowserSession(storage, config, request, reply);
    if (!current) return reply;
    const clientId = formField(request.body, 'client_id', 200);
    const now = new Date();
    const { withdrawn, revoked } = await storage.transaction(async (tx) => ({
      withdrawn: await tx.consents.revoke(current.user.id, clientId),
      revoked: await tx.tokens.revokeByUserAndClient(current.user.id, clientId, now),
    }));
    request.log.info({ event: 'consent_withdrawn', userId: current.user.id, clientId, tokensRevoked: revoked }, 'app access removed');
    if (withdrawn) audit.record(request, { type: 'consent.withdrawn', userId: current.user.id, clientId, details: { tokens_revoked: revoked } });
    // The notice names the app, from its registration (the form's client_id only chose which).
    const client = withdrawn ? await storage.clients.findById(clientId) : null;
    return redirectToNotice(reply, 'access-removed', client?.name);
  });
}

