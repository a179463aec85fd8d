/**
 * The audit trail's event types: one stable dotted name per security-relevant thing that happened, the first
 * part naming what it happened to (user, consent, token, client, signing_key). This list is an interface:
 * operators filter on it (`latch events --type user.signin.failed`, or a family: `--type user.*`) and webhooks
 * let them subscribe to these names (README "Audit events"). A name, once shipped, is never renamed or
 * reused for something else; new kinds of events get new names.
 *
 * Each event's `details` are small and never a secret, token, code or password (audit-log.ts). What each type's
 * details hold is listed beside it.
 */
export const AUDIT_EVENT_TYPES = {
  /** A new account; details: via (`signup`: the person at /signup; `cli`: an operator with `latch user create`). */
  'user.created': 'Account created',
  /** A password sign-in at /login. */
  'user.signin.succeeded': 'Signed in',
  /**
   * A sign-in refused; details: reason (`wrong_password`, `unknown_account`, `throttled`; at the second step
   * `wrong_code`, `wrong_recovery_code`; a passkey: `passkey_refused`; the right password of an account an administrator
   * disabled: `account_disabled`). For an unknown
   * account or a throttled one no user is recorded, and never what was typed (docs/protocol-decisions.md "Audit events").
   */
  'user.signin.failed': 'Sign-in failed',
  /**
   * One browser session signed out; details: reason (`signed_out`: Latch's Sign out; `rp_initiated_logout`: an app
   * sent the person to the logout endpoint, its client id recorded when known; `session_ended_from_account`).
   */
  'user.session.signed_out': 'Signed out',
  /**
   * "Sign out everywhere" on the account page; details: sessions (how many ended). From the admin console (the
   * administrator as actor): also tokens_revoked, and via `admin`.
   */
  'user.session.signed_out_everywhere': 'Signed out everywhere',
  /** The confirmation link of the mail was used. */
  'user.email.verified': 'Email address confirmed',
  /** On the account page; the other sessions ended. */
  'user.password.changed': 'Password changed',
  /**
   * A second factor added on /account/two-step; details: factor (`totp`: an authenticator app; `passkey`, with its
   * name).
   */
  'user.second_factor.added': 'Two-step verification added',
  /** A second factor removed by the person; details: factor (`totp` or `passkey`, with its name). */
  'user.second_factor.removed': 'Two-step verification removed',
  /** New recovery codes replaced the old ones. */
  'user.recovery_codes.regenerated': 'New recovery codes made',
  /**
   * `latch user reset-mfa` or the admin console (the administrator as actor) removed every second factor of a
   * locked-out account; details: authenticator_app, recovery_codes, passkeys (what was removed), via (`cli`, `admin`).
   */
  'user.second_factor.reset': 'Two-step verification reset by an administrator',
  /**
   * An administrator disabled the account in the admin console (the administrator as actor): it cannot sign in;
   * details: sessions (how many ended), tokens_revoked, via.
   */
  'user.disabled': 'Account disabled by an administrator',
  /** An administrator enabled a disabled account again (the administrator as actor); details: via. */
  'user.enabled': 'Account enabled by an administrator',
  /**
   * An administrator deleted the account (the administrator as actor); details: sessions, via. By user id, like
   * every event: no copy of the erased account's address is kept.
   */
  'user.deleted': 'Account deleted by an administrator',
  /** An administrator had a new confirmation link mailed to the account's address; details: via. */
  'user.email.verification_resent': 'Confirmation mail sent again by an administrator',
  /** `latch user create --admin` or `latch admin grant`: the account may open the admin console; details: via. */
  'user.admin.granted': 'Made an administrator',
  /** `latch admin revoke`: the account may no longer open the admin console; details: via. */
  'user.admin.revoked': 'No longer an administrator',
  /** A reset link was mailed to the account's address (only for an account that exists). */
  'user.password.reset_requested': 'Password reset requested',
  /** The password was set from a mailed reset link; every session ended. */
  'user.password.reset': 'Password reset',
  /** On the consent page; details: scope. */
  'consent.granted': 'Allowed an app to use the account',
  /** "Remove access" on the account page; details: tokens_revoked. */
  'consent.withdrawn': 'Removed an app’s access',
  /** A code turned into tokens at the token endpoint; details: scope, refresh_token (whether one was issued). */
  'token.code_exchanged': 'Code exchanged for tokens',
  /** A code presented a second time: every token of its grant is revoked (RFC 6749 §4.1.2); details: tokens_revoked. */
  'token.code_reuse_detected': 'A sign-in code was used twice: the app’s tokens from it were revoked',
  /** The refresh_token grant rotated a refresh token; details: scope. */
  'token.refreshed': 'Tokens refreshed',
  /** An already rotated refresh token presented again: the whole grant is revoked (RFC 9700 §4.14.2); details: tokens_revoked. */
  'token.refresh_reuse_detected': 'An old refresh token was used again: the app’s tokens were revoked',
  /** A device redeemed its approved device_code (RFC 8628 §3.4); details: scope, refresh_token_issued. */
  'token.device_code_exchanged': 'Device signed in with a code',
  /** A service got an access token with the client_credentials grant (RFC 6749 §4.4); no user; details: scope. */
  'token.client_credentials_issued': 'Service token issued',
  /** A client revoked one of its tokens (RFC 7009); details: token_type. */
  'token.revoked': 'Token revoked',
  /** In the developer console or with `latch client create`; details: name, via. */
  'client.created': 'App registered',
  /** Settings or redirect URIs changed; details: changed (which settings), via. */
  'client.updated': 'App settings changed',
  /** details: grace_seconds (how long the previous secret keeps working), via. */
  'client.secret_rotated': 'App secret rotated',
  /** details: name, via. */
  'client.deleted': 'App deleted',
  /** `latch keys rotate`, one event per algorithm; details: kid (the new key), alg, replaces (kids). */
  'signing_key.rotated': 'Signing key rotated',
  /** `latch keys retire`; details: kid, alg. */
  'signing_key.retired': 'Signing key retired',
  /** `latch webhook create`; details: webhook_id, events (the types it receives), via. Never its URL's query or its secret. */
  'webhook.created': 'Webhook created',
  /** `latch webhook delete`; details: webhook_id, via. */
  'webhook.deleted': 'Webhook deleted',
  /** `latch registration-token create`; details: token_id, expires_at. Never the token. */
  'registration_token.created': 'Registration token created',
  /** `latch registration-token revoke`; details: token_id. */
  'registration_token.revoked': 'Registration token revoked',
  /** `latch resource create` (an API, RFC 8707); details: resource (its identifier), scope (what it defines), via. */
  'resource.created': 'API registered',
  /** `latch resource delete`; details: resource, via. */
  'resource.deleted': 'API deleted',
} as const;

export type AuditEventType = keyof typeof AUDIT_EVENT_TYPES;

export const AUDIT_EVENT_TYPE_NAMES = Object.keys(AUDIT_EVENT_TYPES) as AuditEventType[];

export function isAuditEventType(name: string): name is AuditEventType {
  return Object.hasOwn(AUDIT_EVENT_TYPES, name);
}

/**
 * The events a person sees about themselves on the account page ("Recent activity"): their sign-ins and the
 * changes to their account and its access, not every token an app refreshed for them.
 */
export const ACCOUNT_ACTIVITY_TYPES: readonly AuditEventType[] = AUDIT_EVENT_TYPE_NAMES.filter(
  (type) => type.startsWith('user.') || type.startsWith('consent.') || type.startsWith('client.') || type.endsWith('_reuse_detected'),
);
