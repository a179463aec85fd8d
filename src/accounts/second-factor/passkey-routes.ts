/**
 * Passkey endpoints (issue 17). The ceremonies are driven by /assets/passkeys.js: each has an `/options` step
 * (JSON, the page's CSRF token as `_csrf` in the body) and a step that checks the browser's answer and replies
 * `{ redirect }`, or `{ error, error_description }` with status 400.
 *
 * - POST /account/passkeys[/options]: add a passkey to the signed-in account; POST /account/passkeys/remove
 *   (a plain form) removes one. Both ask for the account's password or a current code from its authenticator app
 *   (`proof`, as the app's removal does: a borrowed signed-in browser must not add a passkey of its own, which
 *   would sign in by itself, nor remove the owner's). The owner is mailed of both.
 * - POST /login/passkey[/options]: sign in with a passkey alone (discoverable credentials).
 * - POST /login/two-step/passkey[/options]: a passkey of the pending account as the second step.
 *
 * Failed passkey sign-ins count in the sign-in throttle per address (and per account when the passkey names
 * one), like passwords.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AuditLog } from '../../audit/audit-log.js';
import type { Config } from '../../config.js';
import { formField } from '../../http/form-fields.js';
import type { Mailer } from '../../mail/mailer.js';
import { passkeyChangedMessage } from '../../mail/messages.js';
import { noteSignIn } from '../../observability/request-outcome.js';
import { passkeyAmr, withSecondStep } from '../../session/authentication-methods.js';
import { startBrowserSession } from '../../session/browser-session.js';
import { requireBrowserSession } from '../../session/require-session.js';
import type { SessionEndings } from '../../session/session-endings.js';
import { safeReturnTo } from '../../session/return-to.js';
import type { Storage, User } from '../../storage/storage.js';
import { PASSKEY_SCRIPT } from '../../views/passkey-script.js';
import type { SignInThrottle } from '../sign-in-throttle.js';
import { endPendingSignIn, readPendingSignIn } from './pending-sign-in.js';
import { authenticationOptions, PasskeyRefused, registrationOptions, verifyAuthentication, verifyRegistration } from './passkeys.js';
import { handOverRecoveryCodes, NEW_RECOVERY_CODES_PATH } from './new-recovery-codes.js';
import type { SecondFactorKeys } from './second-factor-keys.js';
import { hasSecondFactor, replaceRecoveryCodes } from './second-factors.js';
import { pageLocale } from '../../http/page-locale.js';
import { inEnglish } from '../../i18n/translator.js';

/**
 * A passkey alone names no account until it is checked: its failures count per address only (under an
 * account key of the address's own, so that no shared key locks everyone out).
 */
const addressOnly = (request: FastifyRequest) => `passkey@${request.ip}`;

const refuse = (reply: FastifyReply, description: string) => reply.code(400).send({ error: 'invalid_request', error_description: description });

async function tellOwner(request: FastifyRequest, mailer: Mailer, config: Config, user: User, change: 'added' | 'removed', name: string) {
  const sending = mailer.send(passkeyChangedMessage(user, change, name, `${config.issuer}/account/two-step`, config.brand.name, pageLocale(request)));
  const logFailure = (error: unknown) => request.log.error({ err: error, userId: user.id }, 'could not send the passkey mail');
  if (mailer.kind === 'smtp') sending.catch(logFailure);
  else await sending.catch(logFailure);
}

/** The name a person gave a passkey: trimmed, at most 60 characters, "Passkey" when empty. */
export function passkeyName(input: unknown): string {
  const name = typeof input === 'string' ? input.trim().replace(/\s+/g, ' ').slice(0, 60) : '';
  return name === '' ? 'Passkey' : name;
}

/** The password-or-code check of two-step-routes.ts: wrong proofs count in the sign-in throttle. */
export type ProofResult = 'ok' | 'wrong' | 'throttled';

export interface AccountPasskeyDeps {
  storage: Storage;
  config: Config;
  mailer: Mailer;
  keys: SecondFactorKeys;
  audit: AuditLog;
  /** Whether the request's `proof` is the account's password or a current code (two-step-routes.ts). */
  proofHolds: (request: FastifyRequest, user: User, now: Date) => Promise<ProofResult>;
  /** The two-step page again, the refused proof's reason beside the remove form of that passkey. */
  refuseRemoval: (reply: FastifyReply, user: User, proof: Exclude<ProofResult, 'ok'>, credentialId: string) => Promise<unknown>;
}

export function registerAccountPasskeyRoutes(app: FastifyInstance, deps: AccountPasskeyDeps): void {
  const { storage, config, mailer, keys, audit, proofHolds, refuseRemoval } = deps;

  app.get('/assets/passkeys.js', async (_request, reply) =>
    reply.type('text/javascript; charset=utf-8').header('cache-control', 'public, max-age=3600').send(PASSKEY_SCRIPT),
  );

  app.post('/account/passkeys/options', { preHandler: app.csrfProtection }, async (request, reply) => {
    const current = await requireBrowserSession(storage, config, request, reply);
    if (!current) return reply;
    const now = new Date();
    // The proof is asked for here, before any challenge exists: the page script sends the field with `_csrf`.
    // The error codes tell the script to show the reason beside the field (in the page's words).
    const proof = await proofHolds(request, current.user, now);
    if (proof === 'throttled') return reply.code(429).send({ error: 'slow_down', error_description: inEnglish({ key: 'twoStepSettings.proof.throttled' }) });
    if (proof === 'wrong') return reply.code(400).send({ error: 'invalid_proof', error_description: inEnglish({ key: 'twoStepSettings.proof.wrong' }) });
    const existing = await storage.passkeys.listByUser(current.user.id);
    return registrationOptions(config, keys, reply, current.user, existing, now);
  });

  // No proof asked again here, and none needed: verifyRegistration accepts only the challenge sealed (encrypted
  // and authenticated, for the "register" ceremony and this account, for 5 minutes) in the httpOnly cookie that
  // /options sets, and /options sets it only after the proof. Without a proven /options there is no challenge
  // to answer, so its check cannot be skipped (test/accounts/passkey-proof.test.ts).

  app.post('/account/passkeys', { preHandler: app.csrfProtection }, async (request, reply) => {
    const current = await requireBrowserSession(storage, config, request, reply);
    if (!current) return reply;
    const body = (request.body ?? {}) as Record<string, unknown>;
    const now = new Date();
    let passkey;
    try {
      passkey = await verifyRegistration(config, keys, storage.webauthnChallenges, request, reply, current.user, body.credential, passkeyName(body.name), now);
    } catch (error) {
      if (!(error instanceof PasskeyRefused)) throw error;
      request.log.info({ event: 'passkey_refused', userId: current.user.id, reason: (error.cause as Error | undefined)?.message }, 'passkey registration refused');
      return refuse(reply, error.message);
    }
    const firstFactor = !(await hasSecondFactor(storage, current.user.id));
    if (!(await storage.passkeys.insert(passkey))) return refuse(reply, 'This passkey is registered already.');
    request.log.info({ event: 'passkey_added', userId: current.user.id }, 'passkey added');
    audit.record(request, { type: 'user.second_factor.added', userId: current.user.id, details: { factor: 'passkey', name: passkey.name } });
    await tellOwner(request, mailer, config, current.user, 'added', passkey.name);
    // The first second factor comes with recovery codes, shown once (as for an authenticator app); an account
    // that kept a set keeps it.
    const unused = (await storage.secondFactors.listRecoveryCodes(current.user.id)).filter((code) => code.usedAt === null);
    if (firstFactor && unused.length === 0) {
      handOverRecoveryCodes(config, keys, reply, current.user.id, await replaceRecoveryCodes(storage, keys, current.user.id, now), now);
      return { redirect: NEW_RECOVERY_CODES_PATH };
    }
    return { redirect: '/account/two-step?notice=passkey-added' };
  });

  app.post('/account/passkeys/remove', { preHandler: app.csrfProtection }, async (request, reply) => {
    const current = await requireBrowserSession(storage, config, request, reply);
    if (!current) return reply;
    const credentialId = formField(request.body, 'credential_id', 1400);
    const proof = await proofHolds(request, current.user, new Date());
    if (proof !== 'ok') return refuseRemoval(reply, current.user, proof, credentialId);
    const passkey = (await storage.passkeys.listByUser(current.user.id)).find((candidate) => candidate.credentialId === credentialId);
    if (passkey && (await storage.passkeys.delete(current.user.id, credentialId))) {
      // Recovery codes are never the only factor: they go with the last one.
      if (!(await hasSecondFactor(storage, current.user.id))) await storage.secondFactors.deleteRecoveryCodes(current.user.id);
      request.log.info({ event: 'passkey_removed', userId: current.user.id }, 'passkey removed');
      audit.record(request, { type: 'user.second_factor.removed', userId: current.user.id, details: { factor: 'passkey', name: passkey.name } });
      await tellOwner(request, mailer, config, current.user, 'removed', passkey.name);
    }
    return reply.redirect('/account/two-step?notice=passkey-removed', 303);
  });
}

export interface PasskeySignInDeps {
  storage: Storage;
  config: Config;
  signInThrottle: SignInThrottle;
  sessionEndings: SessionEndings;
  audit: AuditLog;
  keys: SecondFactorKeys;
}

export function registerPasskeySignInRoutes(app: FastifyInstance, deps: PasskeySignInDeps): void {
  const { storage, config, signInThrottle, sessionEndings, audit, keys } = deps;
  const findUser = (id: number) => storage.users.findById(id);
  const findPasskey = (credentialId: string) => storage.passkeys.findByCredentialId(credentialId);

  /** A verified assertion: the new counter (compare-and-set), then the session. */
  /** `first`: the methods of the sign-in's first step when the passkey is its second; absent for a passkey alone. */
  async function finish(
    request: FastifyRequest,
    reply: FastifyReply,
    verified: Awaited<ReturnType<typeof verifyAuthentication>>,
    first: readonly string[] | null,
    now: Date,
  ): Promise<User | null> {
    const used = await storage.passkeys.recordUse(verified.passkey.credentialId, verified.passkey.counter, { counter: verified.counter, backedUp: verified.backedUp, at: now });
    const user = used ? await findUser(verified.passkey.userId) : null;
    if (!user) return null;
    await signInThrottle.recordSuccess(user.email);
    // BE (backup eligible) off: the key cannot leave its authenticator (RFC 8176 hwk); on: it may be synced (swk).
    const deviceBound = !verified.passkey.backupEligible;
    const amr = first === null ? passkeyAmr(deviceBound) : withSecondStep(first, { passkey: { deviceBound } });
    // startBrowserSession refuses a disabled account (a 403 page); the refusal is recorded here, where the audit log is.
    if (user.disabledAt) audit.record(request, { type: 'user.signin.failed', userId: user.id, details: { reason: 'account_disabled' } });
    await startBrowserSession({ storage, sessionEndings }, config, request, reply, user, amr, now);
    noteSignIn(request, 'success');
    return user;
  }

  async function refused(request: FastifyRequest, reply: FastifyReply, error: unknown, email: string | null, now: Date) {
    if (!(error instanceof PasskeyRefused)) throw error;
    await signInThrottle.recordFailure(email ?? addressOnly(request), request.ip, now);
    audit.record(request, { type: 'user.signin.failed', details: { reason: 'passkey_refused' } });
    request.log.info({ event: 'passkey_signin_refused', reason: (error.cause as Error | undefined)?.message }, 'passkey sign-in refused');
    return refuse(reply, error.message);
  }

  app.post('/login/passkey/options', { preHandler: app.csrfProtection }, async (_request, reply) =>
    authenticationOptions(config, keys, reply, 'sign-in', null, new Date()),
  );

  app.post('/login/passkey', { preHandler: app.csrfProtection }, async (request, reply) => {
    const body = (request.body ?? {}) as Record<string, unknown>;
    const now = new Date();
    if (await signInThrottle.isThrottled(addressOnly(request), request.ip, now)) {
      noteSignIn(request, 'throttled');
      return reply.code(429).send({ error: 'slow_down', error_description: 'Too many failed attempts. Wait a few minutes, then try again.' });
    }
    let verified;
    try {
      verified = await verifyAuthentication(config, keys, storage.webauthnChallenges, request, reply, 'sign-in', body.credential, findPasskey, now);
    } catch (error) {
      return refused(request, reply, error, null, now);
    }
    const user = await finish(request, reply, verified, null, now);
    if (!user) return refuse(reply, 'This passkey was just used. Try again.');
    audit.record(request, { type: 'user.signin.succeeded', userId: user.id, details: { method: 'passkey' } });
    request.log.info({ event: 'signin', userId: user.id, method: 'passkey' }, 'signed in');
    return { redirect: safeReturnTo(body.return_to) };
  });

  app.post('/login/two-step/passkey/options', { preHandler: app.csrfProtection }, async (request, reply) => {
    const now = new Date();
    const pending = await readPendingSignIn(config, keys, request, findUser, now);
    if (!pending) return refuse(reply, 'Your sign-in has expired. Sign in again.');
    const passkeys = await storage.passkeys.listByUser(pending.userId);
    // A step-up to phrh: only the keys that cannot leave their device are offered.
    const offered = pending.stepUp === 'device-bound passkey' ? passkeys.filter((passkey) => !passkey.backupEligible) : passkeys;
    return authenticationOptions(config, keys, reply, 'second-factor', { id: pending.userId, passkeys: offered }, now);
  });

  app.post('/login/two-step/passkey', { preHandler: app.csrfProtection }, async (request, reply) => {
    const now = new Date();
    const pending = await readPendingSignIn(config, keys, request, findUser, now);
    if (!pending) return refuse(reply, 'Your sign-in has expired. Sign in again.');
    if (await signInThrottle.isThrottled(pending.user.email, request.ip, now)) {
      noteSignIn(request, 'throttled');
      return reply.code(429).send({ error: 'slow_down', error_description: 'Too many failed attempts. Wait a few minutes, then try again.' });
    }
    let verified;
    try {
      verified = await verifyAuthentication(config, keys, storage.webauthnChallenges, request, reply, 'second-factor', ((request.body ?? {}) as Record<string, unknown>).credential, findPasskey, now);
    } catch (error) {
      return refused(request, reply, error, pending.user.email, now);
    }
    if (pending.stepUp === 'device-bound passkey' && verified.passkey.backupEligible) {
      return refuse(reply, 'The app asks for a passkey that cannot leave its device, such as a security key. Use one of those.');
    }
    const user = await finish(request, reply, verified, pending.amr, now);
    if (!user) return refuse(reply, 'This passkey was just used. Try again.');
    endPendingSignIn(config, reply);
    audit.record(request, { type: 'user.signin.succeeded', userId: user.id, details: { second_factor: 'passkey' } });
    return { redirect: pending.returnTo };
  });
}
