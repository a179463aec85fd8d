/**
 * GET/POST /login/two-step: the second step of a sign-in. After a correct password on an account with an
 * authenticator app, /login sets a pending sign-in (pending-sign-in.ts) instead of a session; the session starts
 * here, once a code from the app (or a recovery code) is right.
 *
 * Wrong codes count in the sign-in throttle like wrong passwords, per account and per address (RFC 4226 §7.3,
 * NIST SP 800-63B §5.2.2), and a throttled account is answered before any code is checked.
 */
import type { FastifyInstance } from 'fastify';
import type { AuditLog } from '../../audit/audit-log.js';
import type { Config } from '../../config.js';
import { formField } from '../../http/form-fields.js';
import { renderPage } from '../../http/render-page.js';
import { noteSignIn } from '../../observability/request-outcome.js';
import { withSecondStep } from '../../session/authentication-methods.js';
import { startBrowserSession } from '../../session/browser-session.js';
import type { SessionEndings } from '../../session/session-endings.js';
import type { Storage } from '../../storage/storage.js';
import { TwoStepSignInPage, type TwoStepSignInProblem } from '../../views/pages/two-step-sign-in-page.js';
import type { SignInThrottle } from '../sign-in-throttle.js';
import { endPendingSignIn, readPendingSignIn } from './pending-sign-in.js';
import { registerPasskeySignInRoutes } from './passkey-routes.js';
import type { SecondFactorKeys } from './second-factor-keys.js';
import { enrolledFactors, useAuthenticatorCode, useRecoveryCode } from './second-factors.js';

export interface TwoStepSignInDeps {
  storage: Storage;
  config: Config;
  signInThrottle: SignInThrottle;
  sessionEndings: SessionEndings;
  audit: AuditLog;
  secondFactorKeys: SecondFactorKeys;
}

export function registerTwoStepSignInRoutes(app: FastifyInstance, deps: TwoStepSignInDeps): void {
  const { storage, config, signInThrottle, sessionEndings, audit, secondFactorKeys: keys } = deps;
  const findUser = (id: number) => storage.users.findById(id);
  registerPasskeySignInRoutes(app, { storage, config, signInThrottle, sessionEndings, audit, keys });

  app.get('/login/two-step', async (request, reply) => {
    const pending = await readPendingSignIn(config, keys, request, findUser, new Date());
    if (!pending) return reply.redirect('/login', 303);
    // The page is in the language of the authorization request it continues (ui_locales, http/page-locale.ts).
    request.flowReturnTo = pending.returnTo;
    const method = (request.query as Record<string, unknown>).method === 'recovery' ? 'recovery' : 'app';
    const factors = await enrolledFactors(storage, pending.userId);
    return renderPage(
      reply,
      TwoStepSignInPage({ csrfToken: reply.generateCsrf(), method, hasPasskeys: factors.passkeys.length > 0, hasApp: factors.authenticatorApp, stepUp: pending.stepUp }),
    );
  });

  app.post('/login/two-step', { preHandler: app.csrfProtection }, async (request, reply) => {
    const now = new Date();
    const pending = await readPendingSignIn(config, keys, request, findUser, now);
    if (!pending) return reply.redirect('/login', 303);
    request.flowReturnTo = pending.returnTo;
    const { user } = pending;
    const method = formField(request.body, 'method') === 'recovery' ? 'recovery' : 'app';
    const code = formField(request.body, 'code', 100);
    const rerender = (error: TwoStepSignInProblem, status: number) =>
      renderPage(reply.code(status), TwoStepSignInPage({ csrfToken: reply.generateCsrf(), method, error, stepUp: pending.stepUp }));
    // A step-up that only a passkey can satisfy takes no code: a code would not reach the level the app asked for.
    if (pending.stepUp === 'passkey' || pending.stepUp === 'device-bound passkey') return reply.redirect('/login/two-step', 303);

    if (await signInThrottle.isThrottled(user.email, request.ip, now)) {
      noteSignIn(request, 'throttled');
      audit.record(request, { type: 'user.signin.failed', userId: user.id, details: { reason: 'throttled' } });
      return rerender('throttled', 429);
    }
    const right = method === 'app' ? await useAuthenticatorCode(storage, keys, user.id, code, now) : await useRecoveryCode(storage, keys, user.id, code, now);
    if (!right) {
      await signInThrottle.recordFailure(user.email, request.ip, now);
      audit.record(request, { type: 'user.signin.failed', userId: user.id, details: { reason: method === 'app' ? 'wrong_code' : 'wrong_recovery_code' } });
      request.log.info({ event: 'signin_second_factor_failed', userId: user.id }, 'second factor refused');
      return rerender(method === 'app' ? 'wrong' : 'wrong-recovery', 401);
    }
    await signInThrottle.recordSuccess(user.email);
    endPendingSignIn(config, reply);
    // Disabled while the second step waited: startBrowserSession refuses it (a 403 page); recorded here.
    if (user.disabledAt) audit.record(request, { type: 'user.signin.failed', userId: user.id, details: { reason: 'account_disabled' } });
    await startBrowserSession({ storage, sessionEndings }, config, request, reply, user, withSecondStep(pending.amr, method === 'app' ? 'otp' : 'recovery_code'), now);
    noteSignIn(request, 'success');
    audit.record(request, { type: 'user.signin.succeeded', userId: user.id, details: { second_factor: method === 'app' ? 'totp' : 'recovery_code' } });
    request.log.info({ event: 'signin', userId: user.id, secondFactor: method }, 'signed in');
    // A recovery code used: the person lands where they can see how many are left and make new ones.
    // (Not in a step-up: the app that asked for it is waiting.)
    return reply.redirect(method === 'recovery' && !pending.stepUp ? '/account/two-step' : pending.returnTo, 303);
  });
}
