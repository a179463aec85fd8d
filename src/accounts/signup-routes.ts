/**
 * GET/POST /signup: create an account (when LATCH_SIGNUP_ENABLED is on), send the verification mail, sign the
 * new user in and continue where they were going (often an authorization request). The email is verified
 * later by the link in the mail; until then userinfo says `email_verified: false`.
 */
import type { FastifyInstance } from 'fastify';
import { formField } from '../http/form-fields.js';
import { PASSWORD_AMR } from '../session/authentication-methods.js';
import { startBrowserSession } from '../session/browser-session.js';
import { requestingApp } from './requesting-app.js';
import { safeReturnTo } from '../session/return-to.js';
import { renderPage } from '../http/render-page.js';
import { pageTranslator, TranslatedPageError } from '../http/page-locale.js';
import { asSentence } from '../views/format.js';
import { SignUpPage } from '../views/pages/sign-up-page.js';
import { PASSWORD_MIN_LENGTH } from './account-rules.js';
import { ActionLimiter } from './action-limiter.js';
import { sendVerificationMail } from './email-verification-routes.js';
import type { AccountPageDeps } from './page-deps.js';
import { AccountError, createUserAccount } from './user-accounts.js';

const SIGNUPS_PER_ADDRESS_PER_HOUR = 20;

export function registerSignupRoutes(app: FastifyInstance, deps: AccountPageDeps): void {
  const { storage, config } = deps;
  const signupLimiter = new ActionLimiter(deps.attemptCounter, 'signup:address', SIGNUPS_PER_ADDRESS_PER_HOUR, 3600);

  const signupDisabled = () =>
    new TranslatedPageError(400, { key: 'signUp.disabled', params: { brand: config.brand.name } });

  app.get('/signup', async (request, reply) => {
    if (!config.signupEnabled) throw signupDisabled();
    const returnTo = safeReturnTo((request.query as Record<string, unknown>).return_to);
    const app = await requestingApp(storage, returnTo);
    return renderPage(reply, SignUpPage({ csrfToken: reply.generateCsrf(), returnTo, app, passwordMinLength: PASSWORD_MIN_LENGTH, values: {}, errors: {} }));
  });

  app.post('/signup', { preHandler: app.csrfProtection }, async (request, reply) => {
    if (!config.signupEnabled) throw signupDisabled();
    const name = formField(request.body, 'name', 200);
    const email = formField(request.body, 'email', 300).trim();
    const password = formField(request.body, 'password', 1024);
    const returnTo = safeReturnTo(formField(request.body, 'return_to'));
    const { t } = pageTranslator(request);
    const rerender = async (errors: Record<string, string>, status = 400) =>
      renderPage(
        reply.code(status),
        SignUpPage({ csrfToken: reply.generateCsrf(), returnTo, app: await requestingApp(storage, returnTo), passwordMinLength: PASSWORD_MIN_LENGTH, values: { name, email }, errors }),
      );

    if (!(await signupLimiter.allow(request.ip))) {
      return rerender({ email: t('signUp.tooMany') }, 429);
    }
    let user;
    try {
      user = await createUserAccount(storage, { email, name, password });
    } catch (error) {
      if (error instanceof AccountError) {
        // Told in the page's language (account-rules.ts), as a sentence.
        return rerender({ [error.field]: error.problem ? asSentence(t(error.problem.key, error.problem.params)) : asSentence(error.message) });
      }
      throw error;
    }
    request.log.info({ event: 'signup', userId: user.id }, 'account created');
    deps.audit.record(request, { type: 'user.created', userId: user.id, details: { via: 'signup' } });
    await sendVerificationMail(deps, user, request.log, pageTranslator(request).locale);
    await startBrowserSession(deps, config, request, reply, user, PASSWORD_AMR);
    return reply.redirect(returnTo === '/' ? '/account?notice=welcome' : returnTo, 303);
  });
}
