/**
 * GET/POST /login: the sign-in page, then the browser session, then back to where the user was going
 * (usually the authorization request). POST /logout ends the session.
 *
 * Failed attempts are throttled per account and per address; a wrong password and an unknown email give the
 * same answer in the same time (OWASP Authentication Cheat Sheet).
 */
import type { FastifyInstance } from 'fastify';
import type { AuditLog } from '../audit/audit-log.js';
import type { Config } from '../config.js';
import { formField, noticeFor } from '../http/form-fields.js';
import { renderPage } from '../http/render-page.js';
import { noteSignIn } from '../observability/request-outcome.js';
import { PASSWORD_AMR } from '../session/authentication-methods.js';
import { disabledAccountError, endCurrentBrowserSession, startBrowserSession } from '../session/browser-session.js';
import type { SessionEndings } from '../session/session-endings.js';
import { safeReturnTo } from '../session/return-to.js';
import { requestingApp } from './requesting-app.js';
import type { Storage } from '../storage/storage.js';
import { SIGN_IN_NOTICES, SignInPage, type SignInProblem } from '../views/pages/sign-in-page.js';
import { verifyAgainstDummyHash, verifyPassword } from './passwords.js';
import type { SignInThrottle } from './sign-in-throttle.js';
import { startPendingSignIn } from './second-factor/pending-sign-in.js';
import { deriveSecondFactorKeys } from './second-factor/second-factor-keys.js';
import { hasSecondFactor } from './second-factor/second-factors.js';
import { registerTwoStepSignInRoutes } from './second-factor/two-step-sign-in-routes.js';

export interface SignInRouteDeps {
  storage: Storage;
  config: Config;
  signInThrottle: SignInThrottle;
  sessionEndings: SessionEndings;
  audit: AuditLog;
}

export function registerSignInRoutes(app: FastifyInstance, { storage, config, signInThrottle, sessionEndings, audit }: SignInRouteDeps): void {
  const endingDeps = { storage, sessionEndings };
  const secondFactorKeys = deriveSecondFactorKeys(config.secret);
  registerTwoStepSignInRoutes(app, { storage, config, signInThrottle, sessionEndings, audit, secondFactorKeys });
  app.get('/login', async (request, reply) => {
    const query = request.query as Record<string, unknown>;
    const loginHint = typeof query.login_hint === 'string' ? query.login_hint.slice(0, 254) : undefined;
    const notice = noticeFor(query, SIGN_IN_NOTICES);
    return renderPage(
      reply,
      SignInPage({
        csrfToken: reply.generateCsrf(),
        returnTo: safeReturnTo(query.return_to),
        app: await requestingApp(storage, safeReturnTo(query.return_to)),
        email: loginHint,
        notice,
        signupEnabled: config.signupEnabled,
      }),
    );
  });

  app.post('/login', { preHandler: app.csrfProtection }, async (request, reply) => {
    const email = formField(request.body, 'email').trim().slice(0, 254);
    const password = formField(request.body, 'password', 1024);
    const returnTo = safeReturnTo(formField(request.body, 'return_to'));
    const now = new Date();
    // The email is put back in the form, unless it does not look like one: a password typed into the email field
    // must not come back in the page (issue 22 item 6).
    const shownEmail = /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email) ? email : undefined;
    const rerender = async (error: SignInProblem, status: number) =>
      renderPage(
        reply.code(status),
        SignInPage({ csrfToken: reply.generateCsrf(), returnTo, app: await requestingApp(storage, returnTo), email: shownEmail, error, signupEnabled: config.signupEnabled }),
      );

    if (email === '' || password === '') {
      noteSignIn(request, 'incomplete');
      return rerender('missing', 400);
    }
    if (await signInThrottle.isThrottled(email, request.ip, now)) {
      noteSignIn(request, 'throttled');
      // Answered before the account is looked up: no user is recorded (docs/protocol-decisions.md "Audit events").
      audit.record(request, { type: 'user.signin.failed', details: { reason: 'throttled' } });
      return rerender('throttled', 429);
    }

    const user = await storage.users.findByEmail(email);
    const passwordMatches = user ? await verifyPassword(user.passwordHash, password) : await verifyAgainstDummyHash(password);
    if (!user || !passwordMatches) {
      // For operators' metrics only (never the email); the person sees the same answer either way.
      noteSignIn(request, user ? 'wrong_password' : 'unknown_account');
      await signInThrottle.recordFailure(email, request.ip, now);
      // An unknown account: nothing that identifies what was typed (docs/protocol-decisions.md "Audit events").
      audit.record(request, { type: 'user.signin.failed', userId: user?.id ?? null, details: { reason: user ? 'wrong_password' : 'unknown_account' } });
      request.log.info({ event: 'signin_failed' }, 'sign-in failed');
      return rerender('wrong', 401);
    }
    if (user.disabledAt) {
      // Told only to whoever knows the password: to anyone else a disabled account looks like any other.
      audit.record(request, { type: 'user.signin.failed', userId: user.id, details: { reason: 'account_disabled' } });
      throw disabledAccountError();
    }
    if (await hasSecondFactor(storage, user.id)) {
      // The password was right; the session waits for the second factor (/login/two-step). The account's failures
      // are not cleared yet: re-entering the password must not reset the count of wrong codes.
      startPendingSignIn(config, secondFactorKeys, reply, user, returnTo, now);
      return reply.redirect('/login/two-step', 303);
    }
    await signInThrottle.recordSuccess(email);
    // A fresh session id at every sign-in (no session fixation); another person's session, if any, ends.
    await startBrowserSession(endingDeps, config, request, reply, user, PASSWORD_AMR, now);
    noteSignIn(request, 'success');
    audit.record(request, { type: 'user.signin.succeeded', userId: user.id });
    request.log.info({ event: 'signin', userId: user.id }, 'signed in');
    return reply.redirect(returnTo, 303);
  });

  app.post('/logout', { preHandler: app.csrfProtection }, async (request, reply) => {
    const ended = await endCurrentBrowserSession(endingDeps, config, request, reply, 'signed_out');
    if (ended) audit.record(request, { type: 'user.session.signed_out', userId: ended.user.id, details: { reason: 'signed_out' } });
    // "Not you? Use another account" on the consent page signs out and comes back to the app's request (a local
    // path only: session/return-to.ts), which then asks for a sign-in.
    return reply.redirect(safeReturnTo(formField(request.body, 'return_to', 8192)), 303);
  });
}
