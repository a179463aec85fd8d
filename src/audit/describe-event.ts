/**
 * An audit event in words, for the person it happened to (the account page's "Recent activity"): the type's
 * label, the app it concerned, and the reason where the type has one. Plain text: the page's renderer escapes it.
 */
import { AUDIT_EVENT_TYPES, isAuditEventType } from './event-types.js';

const REASONS: Record<string, string> = {
  wrong_password: 'wrong password',
  wrong_code: 'wrong code',
  wrong_recovery_code: 'wrong recovery code',
  passkey_refused: 'passkey refused',
  throttled: 'too many failed attempts',
  account_disabled: 'the account is disabled',
  signed_out: 'signed out here',
  rp_initiated_logout: 'an app signed you out',
  session_ended_from_account: 'from your account page',
};

export function describeAuditEvent(event: { type: string; details: Record<string, unknown> | null }, appName: string | null): string {
  const label = isAuditEventType(event.type) ? AUDIT_EVENT_TYPES[event.type] : event.type;
  const reason = typeof event.details?.reason === 'string' ? REASONS[event.details.reason] : undefined;
  const name = appName ?? (typeof event.details?.name === 'string' ? event.details.name : null);
  return `${label}${name ? `: ${name}` : ''}${reason ? ` (${reason})` : ''}`;
}
