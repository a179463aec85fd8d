/**
 * An audit event as JSON for people's scripts (`latch events --json`) and, later, webhook payloads: snake_case
 * names, ISO 8601 time. Part of the audit trail's interface (README "Audit events"): fields are added, never
 * renamed or removed.
 */
import type { ListedAuditEvent } from '../storage/storage.js';

export interface AuditEventJson {
  id: number;
  time: string;
  type: string;
  user_id: number | null;
  /** The account's email now (events store the id; the email is looked up when they are read). */
  user_email: string | null;
  actor_user_id: number | null;
  client_id: string | null;
  ip_address: string | null;
  user_agent: string | null;
  request_id: string | null;
  details: Record<string, unknown>;
}

export function auditEventJson(event: ListedAuditEvent): AuditEventJson {
  return {
    id: event.id,
    time: event.createdAt.toISOString(),
    type: event.type,
    user_id: event.userId,
    user_email: event.userEmail,
    actor_user_id: event.actorUserId,
    client_id: event.clientId,
    ip_address: event.ipAddress,
    user_agent: event.userAgent,
    request_id: event.requestId,
    details: event.details ?? {},
  };
}
