/**
 * The audit trail's filters in words, as people type them: a time or an age for "since", a type or a family of
 * types. Shared by `latch events` (cli/events-command.ts) and the admin console's event log (admin/), so that both
 * accept exactly the same.
 */
import type { AuditEventFilter } from '../storage/storage.js';
import { AUDIT_EVENT_TYPE_NAMES, isAuditEventType } from './event-types.js';

/** A filter that cannot be read; the message says what is accepted. */
export class EventFilterError extends Error {}

const AGE_UNITS_SECONDS: Record<string, number> = { m: 60, h: 3600, d: 86400 };

/** An ISO 8601 time (a date alone is midnight UTC) or an age before `now` (`30m`, `24h`, `7d`). */
export function parseSince(text: string, now: Date): Date {
  const age = /^(\d{1,6})([mhd])$/.exec(text);
  if (age) return new Date(now.getTime() - Number(age[1]) * AGE_UNITS_SECONDS[age[2]!]! * 1000);
  const time = /^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?)?$/.test(text) ? new Date(text) : new Date(NaN);
  if (Number.isNaN(time.getTime())) throw new EventFilterError(`since must be an ISO 8601 time (2026-11-24, 2026-11-24T09:30:00Z) or an age (30m, 24h, 7d); got "${text}"`);
  return time;
}

/** One known type, or a family of them (`user.*`, `user.signin.*`). */
export function parseTypeFilter(text: string): Pick<AuditEventFilter, 'types' | 'typePrefix'> {
  if (isAuditEventType(text)) return { types: [text] };
  if (text.endsWith('.*')) {
    const prefix = text.slice(0, -1);
    if (AUDIT_EVENT_TYPE_NAMES.some((type) => type.startsWith(prefix))) return { typePrefix: prefix };
  }
  throw new EventFilterError(`type must be an event type or a family of them (user.*); "${text}" is neither. Types: ${AUDIT_EVENT_TYPE_NAMES.join(', ')}`);
}

/** The families of event types (`user.*`, `token.*`, …), for a choice list. */
export function auditEventFamilies(): string[] {
  return [...new Set(AUDIT_EVENT_TYPE_NAMES.map((type) => `${type.split('.')[0]}.*`))];
}
