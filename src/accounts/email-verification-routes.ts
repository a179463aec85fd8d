/**
 * Email verification: GET /verify-email?token=… shows a confirm button, POST /verify-email uses the
 * single-use link; POST /account/verification-email sends a new link. A link verifies the address it was
 * sent to, and only while the account still has that address.
 */
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import { formField } from '../http/form-fields.js';
import { readBrowserSession } from '../session/browser-session.js';
import { requireBrowserSession } from '../session/require-session.js';
import { emailVerificationMessage } from '../mail/messages.js';
import type { Locale } from '../i18n/locales.js';
import type { User } from '../storage/storage.js';
import { renderPage } from '../http/render-page.js';
import { EmailConfirmedPage, EmailLinkNotUsablePage, VerifyEmailPage } from '../views/pages/verify-email-page.js';
import { ActionLimiter } from './action-limiter.js';
import { consumeEmailLink, findUsableEmailLink, issueEmailLink } from './email-links.js';
import type { AccountPageDeps } from './page-deps.js';

const VERIFICATION_MAILS_PER_ACCOUNT_PER_HOUR = 5;

/** `locale`: the language of the page that sends it (the sign-up page's; mail/messages.ts). */
export async function sendVerificationMail(deps: AccountPageDeps, user: User, log: FastifyBaseLogger, locale?: Locale): Promise<void> {
  const link = await issueEmailLink(deps.storage, deps.config, user, 'verify_email');
  try {
    await deps.mailer.send(emailVerificationMessage(user, link, deps.config.emailVerificationTtlSeconds, deps.config.brand.name, locale));
  } catch (error) {
    // The account exists either way; the person can ask for a new link from the account page.
    log.error({ err: error, userId: user.id }, 'could not send the verification mail');
  }
}

export function registerEmailVerificationRoutes(app: FastifyInstance, deps: AccountPageDeps): void {
  const { storage, config } = deps;
  const resendLimiter = new ActionLimiter(deps.attemptCounter, 'verify-mail:account', VERIFICATION_MAILS_PER_ACCOUNT_PER_HOUR, 3600);

  app.get('/verify-email', async (request, reply) => {
    const token = formField(request.query, 'token', 200);
    const link = await findUsableEmailLink(storage, token, 'verify_email');
    if (!link) {
      const current = await readBrowserSession(storage, config, request);
      return renderPage(reply.code(400), EmailLinkNotUsablePage({ signedIn: !!current }));
    }
    return renderPage(reply, VerifyEmailPage({ csrfToken: reply.generateCsrf(), token, email: link.email }));
  });

  app.post('/verify-email', { preHandler: app.csrfProtection }, async (request, reply) => {
    const token = formField(request.body, 'token', 200);
    const link = await consumeEmailLink(storage, token, 'verify_email');
    const current = await readBrowserSession(storage, config, request);
    const user = link ? await storage.users.findById(link.userId) : null;
    if (!link || !user || user.email.toLowerCase() !== link.email.toLowerCase()) return renderPage(reply.code(400), EmailLinkNotUsablePage({ signedIn: !!current }));
    await storage.users.update(user.id, { emailVerified: true }, new Date());
    request.log.info({ event: 'email_verified', userId: user.id }, 'email verified');
    deps.audit.record(request, { type: 'user.email.verified', userId: user.id });
    return renderPage(reply, EmailConfirmedPage({ email: user.email, signedIn: !!current }));
  });

  app.post('/account/verification-email', { preHandler: app.csrfProtection }, async (request, reply) => {
    const current = await requireBrowserSession(storage, config, request, reply);
    if (!current) return reply;
    if (current.user.emailVerified) return reply.redirect('/account', 303);
    if (!(await resendLimiter.allow(String(current.user.id)))) return reply.redirect('/account?notice=verification-limit', 303);
    await sendVerificationMail(deps, current.user, request.log);
    return reply.redirect('/account?notice=verification-sent', 303);
  });
}
