/**
 * GET/POST /login: the sign-in page, then the browser session, then back to where the user was going
 * (usually the authorization request). POST /logout ends the session.
 *
 * Failed attempts are throttled per account and per address; a wrong password and an unknown email give the
 * same answer in the same time (OWASP Authentication Cheat Sheet).
 */
import type { FastifyInstance } from 'fastify';
import type { SignInThrottle } from '../accounts/sign-in-throttle.js';
import { verifyAgainstDummyHash, verifyPassword } from '../accounts/passwords.js';
import type { Config } from '../config.js';
import type { Storage } from '../storage/storage.js';
import { renderPage } from '../views/render.js';
import { SignInPage } from '../views/pages/sign-in-page.js';
import { HomePage } from '../views/pages/home-page.js';
import { endBrowserSession, readBrowserSession, startBrowserSession } from './browser-session.js';
import { safeReturnTo } from './return-to.js';

export interface LoginRouteDeps {
  storage: Storage;
  config: Config;
  signInThrottle: SignInThrottle;
}

const WRONG_CREDENTIALS = 'Email or password is incorrect.';
const THROTTLED = 'Too many failed sign-in attempts. Wait a few minutes, then try again.';

function formField(body: unknown, name: string): string {
  const value = (body as Record<string, unknown> | undefined)?.[name];
  return typeof value === 'string' ? value : '';
}

export function registerLoginRoutes(app: FastifyInstance, { storage, config, signInThrottle }: LoginRouteDeps): void {
  app.get('/', async (request, reply) => {
    const current = await readBrowserSession(storage, config, request);
    return renderPage(reply, HomePage({ user: current?.user ?? null, csrfToken: reply.generateCsrf(), signupEnabled: config.signupEnabled }));
  });

  app.get('/login', async (request, reply) => {
    const query = request.query as Record<string, unknown>;
    const loginHint = typeof query.login_hint === 'string' ? query.login_hint.slice(0, 254) : undefined;
    // Only fixed texts: nothing from the query string is shown as a message.
    const notice = query.notice === 'password-reset' ? 'Your password was changed and you were signed out everywhere. Sign in with your new password.' : undefined;
    return renderPage(
      reply,
      SignInPage({ csrfToken: reply.generateCsrf(), returnTo: safeReturnTo(query.return_to), email: loginHint, notice, signupEnabled: config.signupEnabled }),
    );
  });

  app.post('/login', { preHandler: app.csrfProtection }, async (request, reply) => {
    const email = formField(request.body, 'email').trim().slice(0, 254);
    const password = formField(request.body, 'password').slice(0, 1024);
    const returnTo = safeReturnTo(formField(request.body, 'return_to'));
    const now = new Date();
    const rerender = (error: string, status: number) =>
      renderPage(reply.code(status), SignInPage({ csrfToken: reply.generateCsrf(), returnTo, email, error, signupEnabled: config.signupEnabled }));

    if (email === '' || password === '') return rerender('Enter your email and password.', 400);
    if (await signInThrottle.isThrottled(email, request.ip, now)) return rerender(THROTTLED, 429);

    const user = await storage.users.findByEmail(email);
    const passwordMatches = user ? await verifyPassword(user.passwordHash, password) : await verifyAgainstDummyHash(password);
    if (!user || !passwordMatches) {
      await signInThrottle.recordFailure(email, request.ip, now);
      request.log.info({ event: 'signin_failed' }, 'sign-in failed');
      return rerender(WRONG_CREDENTIALS, 401);
    }
    await signInThrottle.recordSuccess(email);
    // A fresh session id at every sign-in (no session fixation); the previous one, if any, ends.
    await endBrowserSession(storage, config, request, reply);
    await startBrowserSession(storage, config, request, reply, user, now);
    request.log.info({ event: 'signin', userId: user.id }, 'signed in');
    return reply.redirect(returnTo, 303);
  });

  app.post('/logout', { preHandler: app.csrfProtection }, async (request, reply) => {
    await endBrowserSession(storage, config, request, reply);
    return reply.redirect('/', 303);
  });
}
