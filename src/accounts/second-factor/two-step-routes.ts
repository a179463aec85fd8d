/**
 * Two-step verification (issue 17), the account's side: GET /account/two-step shows the authenticator app and
 * the recovery codes; POST /account/two-step/app turns the app on (confirmed by a first code), …/app/remove
 * turns it off, …/recovery-codes makes a new set. Removing and regenerating ask for the password or a current
 * code, as adding and removing a passkey do (passkey-routes.ts, given `proofHolds` from here). Every form has a
 * CSRF token and works without JavaScript; the owner is mailed of every change.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { renderSVG } from 'uqr';
import { formField, noticeFor } from '../../http/form-fields.js';
import { renderPage } from '../../http/render-page.js';
import { secondFactorChangedMessage } from '../../mail/messages.js';
import { requireBrowserSession } from '../../session/require-session.js';
import type { User } from '../../storage/storage.js';
import { RecoveryCodesPage } from '../../views/pages/recovery-codes-page.js';
import { TWO_STEP_NOTICES, TwoStepPage, type TwoStepField, type TwoStepProblem } from '../../views/pages/two-step-page.js';
import type { AccountPageDeps } from '../page-deps.js';
import { SignInThrottle } from '../sign-in-throttle.js';
import { registerAccountPasskeyRoutes, type ProofResult } from './passkey-routes.js';
import { NEW_RECOVERY_CODES_PATH, takeRecoveryCodes } from './new-recovery-codes.js';
import { checkPasswordOrCode, hasSecondFactor, replaceRecoveryCodes } from './second-factors.js';
import { deriveSecondFactorKeys, totpSecretAssociatedData } from './second-factor-keys.js';
import { openState, sealState } from './sealed-state.js';
import { createTotpSecret, groupSecret, matchTotpCode, totpUri } from './totp.js';
import { pageLocale } from '../../http/page-locale.js';

/** How long a QR code shown on the page stays good for confirming (then the page shows a new one). */
const ENROLMENT_TTL_SECONDS = 30 * 60;
const enrolmentPurpose = (userId: number) => `totp enrolment:${userId}`;

export function registerTwoStepRoutes(app: FastifyInstance, deps: AccountPageDeps): void {
  const { storage, config, mailer } = deps;
  const keys = deriveSecondFactorKeys(config.secret);
  // A wrong password or code given as the proof counts like a failed sign-in: a borrowed signed-in browser
  // must not become a way to guess the password.
  const throttle = new SignInThrottle(deps.attemptCounter, {
    maxFailuresPerAccount: config.signInMaxFailuresPerAccount,
    maxFailuresPerAddress: config.signInMaxFailuresPerAddress,
    windowSeconds: config.signInWindowSeconds,
  });
  async function proofHolds(request: FastifyRequest, user: User, now: Date): Promise<ProofResult> {
    if (await throttle.isThrottled(user.email, request.ip, now)) return 'throttled';
    if (await checkPasswordOrCode(storage, keys, user, formField(request.body, 'proof', 1024), now)) return 'ok';
    await throttle.recordFailure(user.email, request.ip, now);
    return 'wrong';
  }
  const PROOF_PROBLEMS = {
    wrong: 'twoStepSettings.proof.wrong',
    throttled: 'twoStepSettings.proof.throttled',
  } as const;
  registerAccountPasskeyRoutes(app, {
    storage,
    config,
    mailer,
    keys,
    audit: deps.audit,
    proofHolds,
    // The remove form's own field shows why, as for the app's remove form.
    refuseRemoval: (reply, user, proof, credentialId) =>
      renderTwoStep(reply, user, { status: proof === 'throttled' ? 429 : 400, errors: { removePasskeyProof: PROOF_PROBLEMS[proof] }, removingPasskey: credentialId }),
  });

  function newEnrolment(user: User, now: Date, secret = createTotpSecret()) {
    // The authenticator app lists the account under the operator's product name (LATCH_BRAND_NAME).
    const uri = totpUri(secret, config.brand.name, user.email);
    return {
      sealed: sealState(keys.pendingState, enrolmentPurpose(user.id), { s: secret }, new Date(now.getTime() + ENROLMENT_TTL_SECONDS * 1000)),
      secretGrouped: groupSecret(secret),
      qrDataUri: `data:image/svg+xml;base64,${Buffer.from(renderSVG(uri, { border: 2 })).toString('base64')}`,
      accountName: user.email,
    };
  }

  async function renderTwoStep(
    reply: FastifyReply,
    user: User,
    extra: { status?: number; errors?: Partial<Record<TwoStepField, TwoStepProblem>>; notice?: keyof typeof TWO_STEP_NOTICES; secret?: string; removingPasskey?: string } = {},
  ) {
    const now = new Date();
    const [totp, codes, passkeys] = await Promise.all([
      storage.secondFactors.findTotp(user.id),
      storage.secondFactors.listRecoveryCodes(user.id),
      storage.passkeys.listByUser(user.id),
    ]);
    return renderPage(
      reply.code(extra.status ?? 200),
      TwoStepPage({
        csrfToken: reply.generateCsrf(),
        app: totp && { createdAt: totp.createdAt, lastUsedAt: totp.lastUsedAt },
        enrolment: totp ? null : newEnrolment(user, now, extra.secret),
        recoveryCodesLeft: codes.filter((code) => code.usedAt === null).length,
        passkeys: passkeys.map((passkey) => ({ credentialId: passkey.credentialId, name: passkey.name, createdAt: passkey.createdAt, lastUsedAt: passkey.lastUsedAt, synced: passkey.backedUp })),
        notice: extra.notice,
        errors: extra.errors ?? {},
        removingPasskey: extra.removingPasskey,
      }),
    );
  }

  async function tellOwner(request: FastifyRequest, user: User, change: Parameters<typeof secondFactorChangedMessage>[1]) {
    const sending = mailer.send(secondFactorChangedMessage(user, change, `${config.issuer}/account/two-step`, config.brand.name, pageLocale(request)));
    const logFailure = (error: unknown) => request.log.error({ err: error, userId: user.id }, 'could not send the two-step verification mail');
    if (mailer.kind === 'smtp') sending.catch(logFailure);
    else await sending.catch(logFailure);
  }

  app.get('/account/two-step', async (request, reply) => {
    const current = await requireBrowserSession(storage, config, request, reply);
    if (!current) return reply;
    return renderTwoStep(reply, current.user, { notice: noticeFor(request.query, TWO_STEP_NOTICES) });
  });

  app.post('/account/two-step/app', { preHandler: app.csrfProtection }, async (request, reply) => {
    const current = await requireBrowserSession(storage, config, request, reply);
    if (!current) return reply;
    const { user } = current;
    const now = new Date();
    const enrolment = openState(keys.pendingState, enrolmentPurpose(user.id), formField(request.body, 'enrolment', 500), now);
    if (!enrolment || typeof enrolment.s !== 'string') {
      return renderTwoStep(reply, user, { status: 400, errors: { code: 'twoStepSettings.app.expired' } });
    }
    const step = matchTotpCode(enrolment.s, formField(request.body, 'code', 50), now);
    if (step === null) {
      // The same secret again: the app already holds it; only the code was wrong (or the phone's clock is off).
      return renderTwoStep(reply, user, { status: 400, secret: enrolment.s, errors: { code: 'twoStepSettings.app.wrongCode' } });
    }
    const added = await storage.secondFactors.insertTotp({
      userId: user.id,
      secretEncrypted: keys.totpSecrets.encrypt(enrolment.s, totpSecretAssociatedData(user.id)),
      // The confirming code is used: it cannot sign in a second time (RFC 6238 §5.2).
      lastUsedStep: step,
      createdAt: now,
      lastUsedAt: now,
    });
    if (!added) return reply.redirect('/account/two-step', 303);
    request.log.info({ event: 'second_factor_added', userId: user.id, factor: 'totp' }, 'authenticator app added');
    deps.audit.record(request, { type: 'user.second_factor.added', userId: user.id, details: { factor: 'totp' } });
    await tellOwner(request, user, 'app-added');
    // The first second factor comes with recovery codes, shown once; an account that kept a set keeps it.
    const unused = (await storage.secondFactors.listRecoveryCodes(user.id)).filter((code) => code.usedAt === null);
    if (unused.length > 0) return reply.redirect('/account/two-step', 303);
    const codes = await replaceRecoveryCodes(storage, keys, user.id, now);
    return renderPage(reply, RecoveryCodesPage({ codes, reason: 'enabled' }));
  });

  app.get(NEW_RECOVERY_CODES_PATH, async (request, reply) => {
    const current = await requireBrowserSession(storage, config, request, reply);
    if (!current) return reply;
    const codes = takeRecoveryCodes(config, keys, request, reply, current.user.id, new Date());
    // Shown once: a reload (or a stranger's link) finds nothing and lands on the two-step page.
    if (!codes) return reply.redirect('/account/two-step', 303);
    reply.header('cache-control', 'no-store');
    return renderPage(reply, RecoveryCodesPage({ codes, reason: 'enabled' }));
  });

  app.post('/account/two-step/app/remove', { preHandler: app.csrfProtection }, async (request, reply) => {
    const current = await requireBrowserSession(storage, config, request, reply);
    if (!current) return reply;
    const { user } = current;
    const now = new Date();
    const proof = await proofHolds(request, user, now);
    if (proof !== 'ok') return renderTwoStep(reply, user, { status: proof === 'throttled' ? 429 : 400, errors: { removeProof: PROOF_PROBLEMS[proof] } });
    // Recovery codes are never the only factor: they go with the last one (the app, when no passkey is left).
    const removed = await storage.transaction(async (tx) => {
      const gone = await tx.secondFactors.deleteTotp(user.id);
      if ((await tx.passkeys.listByUser(user.id)).length === 0) await tx.secondFactors.deleteRecoveryCodes(user.id);
      return gone;
    });
    if (removed) {
      request.log.info({ event: 'second_factor_removed', userId: user.id, factor: 'totp' }, 'authenticator app removed');
      deps.audit.record(request, { type: 'user.second_factor.removed', userId: user.id, details: { factor: 'totp' } });
      await tellOwner(request, user, 'app-removed');
    }
    return reply.redirect('/account/two-step?notice=app-removed', 303);
  });

  app.post('/account/two-step/recovery-codes', { preHandler: app.csrfProtection }, async (request, reply) => {
    const current = await requireBrowserSession(storage, config, request, reply);
    if (!current) return reply;
    const { user } = current;
    const now = new Date();
    if (!(await hasSecondFactor(storage, user.id))) return reply.redirect('/account/two-step', 303);
    const proof = await proofHolds(request, user, now);
    if (proof !== 'ok') return renderTwoStep(reply, user, { status: proof === 'throttled' ? 429 : 400, errors: { regenerateProof: PROOF_PROBLEMS[proof] } });
    const codes = await replaceRecoveryCodes(storage, keys, user.id, now);
    request.log.info({ event: 'recovery_codes_regenerated', userId: user.id }, 'recovery codes regenerated');
    deps.audit.record(request, { type: 'user.recovery_codes.regenerated', userId: user.id });
    await tellOwner(request, user, 'recovery-codes-regenerated');
    return renderPage(reply, RecoveryCodesPage({ codes, reason: 'regenerated' }));
  });
}
