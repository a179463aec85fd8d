/**
 * Password reset by mail (OWASP Forgot Password Cheat Sheet): GET/POST /forgot-password sends a single-use,
 * expiring link and answers the same whether or not the email has an account; GET/POST /reset-password sets
 * the new password, voids the other reset links and ends every session of the account.
 */
import type { FastifyInstance } from 'fastify';
import { formField } from '../http/form-fields.js';
import { passwordResetMessage } from '../mail/messages.js';
import { renderPage } from '../http/render-page.js';
import { pageTranslator } from '../http/page-locale.js';
import { asSentence } from '../views/format.js';
import { endBrowserSessions } from '../session/session-endings.js';
import { outboxPageIsAvailable } from '../mail/outbox-routes.js';
import { ForgotPasswordPage, ResetMailSentPage } from '../views/pages/forgot-password-page.js';
import { ResetLinkNotUsablePage, ResetPasswordPage } from '../views/pages/reset-password-page.js';
import { emailProblem, passwordProblem, PASSWORD_MIN_LENGTH } from './account-rules.js';
import { ActionLimiter } from './action-limiter.js';
import { consumeEmailLink, findUsableEmailLink, issueEmailLink } from './email-links.js';
import type { AccountPageDeps } from './page-deps.js';
import { hashPassword } from './passwords.js';

const RESET_MAILS_PER_ACCOUNT_PER_HOUR = 3;
const RESET_REQUESTS_PER_ADDRESS_PER_HOUR = 30;

export function registerPasswordResetRoutes(app: FastifyInstance, deps: AccountPageDeps): void {
  const { storage, config, mailer } = deps;
  const perAccount = new ActionLimiter(deps.attemptCounter, 'reset-mail:account', RESET_MAILS_PER_ACCOUNT_PER_HOUR, 3600);
  const perAddress = new ActionLimiter(deps.attemptCounter, 'reset-mail:address', RESET_REQUESTS_PER_ADDRESS_PER_HOUR, 3600);

  app.get('/forgot-password', async (_request, reply) => renderPage(reply, ForgotPasswordPage({ csrfToken: reply.generateCsrf() })));

  app.post('/forgot-password', { preHandler: app.csrfProtection }, async (request, reply) => {
    const email = formField(request.body, 'email', 300).trim();
    const { t, locale } = pageTranslator(request);
    const problem = emailProblem(email);
    if (problem) return renderPage(reply.code(400), ForgotPasswordPage({ csrfToken: reply.generateCsrf(), email, error: asSentence(t(problem.key, problem.params)) }));
    if (!(await perAddress.allow(request.ip))) {
      return renderPage(
        reply.code(429),
        ForgotPasswordPage({ csrfToken: reply.generateCsrf(), email, error: t('forgot.tooMany') }),
      );
    }

    const user = await storage.users.findByEmail(email);
    if (user && (await perAccount.allow(String(user.id)))) {
      const link = await issueEmailLink(storage, config, user, 'reset_password');
      deps.audit.record(request, { type: 'user.password.reset_requested', userId: user.id });
      const sending = mailer.send(passwordResetMessage(user, link, config.passwordResetTtlSeconds, config.brand.name, locale));
      const logFailure = (error: unknown) => request.log.error({ err: error, userId: user.id }, 'could not send the password reset mail');
      // Over SMTP the answer does not wait for the mail server, so that its timing does not tell whether the
      // account exists; the local outbox is fast and is awaited so that the mail is there when the page is.
      if (mailer.kind === 'smtp') sending.catch(logFailure);
      else await sending.catch(logFailure);
    }
    return renderPage(reply, ResetMailSentPage({ email, localOutbox: outboxPageIsAvailable(config) }));
  });

  app.get('/reset-password', async (request, reply) => {
    const token = formField(request.query, 'token', 200);
    const link = await findUsableEmailLink(storage, token, 'reset_password');
    if (!link) return renderPage(reply.code(400), ResetLinkNotUsablePage({}));
    return renderPage(reply, ResetPasswordPage({ csrfToken: reply.generateCsrf(), token, email: link.email, passwordMinLength: PASSWORD_MIN_LENGTH }));
  });

  app.post('/reset-password', { preHandler: app.csrfProtection }, async (request, reply) => {
    const token = formField(request.body, 'token', 200);
    const password = formField(request.body, 'password', 1024);
    const now = new Date();
    // Check the new password before using the link, so that a rejected password does not use it up.
    const link = await findUsableEmailLink(storage, token, 'reset_password', now);
    const user = link ? await storage.users.findById(link.userId) : null;
    if (!link || !user || user.email.toLowerCase() !== link.email.toLowerCase()) return renderPage(reply.code(400), ResetLinkNotUsablePage({}));
    const problem = passwordProblem(password, user.email);
    if (problem) {
      const error = asSentence(pageTranslator(request).t(problem.key, problem.params));
      return renderPage(reply.code(400), ResetPasswordPage({ csrfToken: reply.generateCsrf(), token, email: user.email, passwordMinLength: PASSWORD_MIN_LENGTH, error }));
    }

    const passwordHash = await hashPassword(password);
    if (!(await consumeEmailLink(storage, token, 'reset_password', now))) return renderPage(reply.code(400), ResetLinkNotUsablePage({}));
    await endBrowserSessions(deps, request.log, { userId: user.id, which: { allExcept: null }, reason: 'password_reset' }, async (tx) => {
      // Opening the mailed link proves control of the address, so it also counts as verification.
      await tx.users.update(user.id, { passwordHash, emailVerified: true }, now);
      await tx.emailLinks.invalidateByUser(user.id, 'reset_password', now);
    });
    request.log.info({ event: 'password_reset', userId: user.id }, 'password reset by mail link');
    deps.audit.record(request, { type: 'user.password.reset', userId: user.id });
    return reply.redirect(`/login?notice=password-reset&login_hint=${encodeURIComponent(user.email)}`, 303);
  });
}
