/**
 * The account page's "Recent activity": the person's own latest audit events (audit/event-types.ts
 * ACCOUNT_ACTIVITY_TYPES), only ever those recorded with their user id, in words, with the browser and address
 * each came from. Apps are named by their current name (an app deleted since: by the name its event kept).
 */
import { describeAuditEvent } from '../audit/describe-event.js';
import { ACCOUNT_ACTIVITY_TYPES } from '../audit/event-types.js';
import type { Storage } from '../storage/storage.js';
import type { AccountActivityView } from '../views/pages/account-page.js';

const ACTIVITY_SHOWN = 20;

export async function listAccountActivity(storage: Storage, userId: number): Promise<AccountActivityView[]> {
  const events = await storage.auditEvents.list({ userId, types: ACCOUNT_ACTIVITY_TYPES, limit: ACTIVITY_SHOWN });
  const clientIds = [...new Set(events.flatMap((event) => (event.clientId === null ? [] : [event.clientId])))];
  const clients = await Promise.all(clientIds.map((clientId) => storage.clients.findById(clientId)));
  const names = new Map(clients.flatMap((client) => (client ? [[client.clientId, client.name] as const] : [])));
  return events.map((event) => ({
    at: event.createdAt,
    what: describeAuditEvent(event, event.clientId === null ? null : (names.get(event.clientId) ?? null)),
    // The same in parts, for a page in another language (pages/account-page.tsx describeActivity).
    event: {
      type: event.type,
      reason: typeof event.details?.reason === 'string' ? event.details.reason : null,
      name: (event.clientId === null ? null : (names.get(event.clientId) ?? null)) ?? (typeof event.details?.name === 'string' ? event.details.name : null),
    },
    userAgent: event.userAgent,
    ipAddress: event.ipAddress,
  }));
}
