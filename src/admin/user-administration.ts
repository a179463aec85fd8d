/**
 * What an administrator does to an account from the admin console, each recorded as an audit event with the
 * administrator as its actor (`actorUserId`) and `via: admin`:
 *
 * - disable: the account cannot sign in (session/browser-session.ts refuses it), its sessions end (and apps are
 *   told, session/session-endings.ts) and every token and unused code of it stops working, in one transaction;
 * - enable: it can sign in again (what ended stays ended);
 * - sign out everywhere: every session and token ends; the person can sign in again;
 * - resend verification: a new confirmation link, as the account page sends one;
 * - reset second factors: what `latch user reset-mfa` does;
 * - delete: the sessions end first (so that apps are told), then the row goes, with everything that cascades from it.
 */
import type { FastifyRequest } from 'fastify';
import { sendVerificationMail } from '../accounts/email-verification-routes.js';
import type { AccountPageDeps } from '../accounts/page-deps.js';
import { resetAccountFactors } from '../accounts/second-factor/account-factors.js';
import type { AuditDetail } from '../audit/audit-log.js';
import type { AuditEventType } from '../audit/event-types.js';
import { endBrowserSessions } from '../session/session-endings.js';
import type { User } from '../storage/storage.js';

export const VIA_ADMIN = 'admin';

/** One administrator acting on one account in one request. */
export interface AdminAction {
  deps: AccountPageDeps;
  request: FastifyRequest;
  admin: User;
  target: User;
}

function recordAdminEvent({ deps, request, admin, target }: AdminAction, type: AuditEventType, details: Record<string, AuditDetail> = {}): void {
  deps.audit.record(request, { type, userId: target.id, actorUserId: admin.id, details: { ...details, via: VIA_ADMIN } });
}

/** Ends every session and revokes every token of the account, `alsoWrite` in the same transaction. */
async function endEverything(action: AdminAction, alsoWrite?: Parameters<typeof endBrowserSessions>[3]): Promise<{ sessions: number; tokensRevoked: number }> {
  const { deps, request, target } = action;
  let tokensRevoked = 0;
  const ended = await endBrowserSessions(deps, request.log, { userId: target.id, which: { allExcept: null }, reason: 'ended_by_administrator' }, async (tx) => {
    await alsoWrite?.(tx);
    tokensRevoked = await tx.tokens.revokeByUser(target.id, new Date());
  });
  return { sessions: ended.length, tokensRevoked };
}

export async function disableAccount(action: AdminAction): Promise<void> {
  const now = new Date();
  const ended = await endEverything(action, (tx) => tx.users.update(action.target.id, { disabledAt: now }, now));
  recordAdminEvent(action, 'user.disabled', { sessions: ended.sessions, tokens_revoked: ended.tokensRevoked });
}

export async function enableAccount(action: AdminAction): Promise<void> {
  await action.deps.storage.users.update(action.target.id, { disabledAt: null }, new Date());
  recordAdminEvent(action, 'user.enabled');
}

export async function signOutEverywhere(action: AdminAction): Promise<void> {
  const ended = await endEverything(action);
  recordAdminEvent(action, 'user.session.signed_out_everywhere', { sessions: ended.sessions, tokens_revoked: ended.tokensRevoked });
}

export async function resendVerification(action: AdminAction): Promise<void> {
  await sendVerificationMail(action.deps, action.target, action.request.log);
  recordAdminEvent(action, 'user.email.verification_resent');
}

export async function resetSecondFactors(action: AdminAction): Promise<void> {
  const removed = await resetAccountFactors(action.deps.storage, action.target.id);
  recordAdminEvent(action, 'user.second_factor.reset', { authenticator_app: removed.authenticatorApp, recovery_codes: removed.recoveryCodes, passkeys: removed.passkeys });
}

export async function deleteAccount(action: AdminAction): Promise<void> {
  const ended = await endEverything(action);
  await action.deps.storage.users.delete(action.target.id);
  // By id only, like every event (docs/protocol-decisions.md "Audit events"): the trail keeps no copy of the
  // address of an account that was erased.
  recordAdminEvent(action, 'user.deleted', { sessions: ended.sessions });
}
