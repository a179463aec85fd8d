/** Storage records into the admin pages' view models (views/pages/admin-*.tsx know no storage). */
import { AUDIT_EVENT_TYPES, isAuditEventType } from '../audit/event-types.js';
import type { Client, ListedAuditEvent, Storage, User } from '../storage/storage.js';
import type { AdminClientSummary, AdminClientView, ClientOrigin } from '../views/pages/admin-clients-page.js';
import type { AdminEventRow } from '../views/pages/admin-events-page.js';
import type { AdminUserSummary } from '../views/pages/admin-users-page.js';

export function userSummary(user: User): AdminUserSummary {
  return { id: user.id, email: user.email, name: user.name, emailVerified: user.emailVerified, isAdmin: user.isAdmin, disabled: user.disabledAt !== null, createdAt: user.createdAt };
}

/** A person in the console, the developer console, or neither: the CLI (`latch client create`) sets no owner. */
export function clientOrigin(client: Client): ClientOrigin {
  if (client.registeredDynamically) return 'dynamic';
  return client.ownerUserId === null ? 'cli' : 'console';
}

/** The owners' emails, each account read once. */
async function emailsOf(storage: Storage, ids: Iterable<number>): Promise<Map<number, string>> {
  const unique = [...new Set(ids)];
  const users = await Promise.all(unique.map((id) => storage.users.findById(id)));
  return new Map(users.flatMap((user) => (user ? [[user.id, user.email] as const] : [])));
}

export async function clientSummaries(storage: Storage, clients: Client[]): Promise<AdminClientSummary[]> {
  const emails = await emailsOf(storage, clients.flatMap((client) => (client.ownerUserId === null ? [] : [client.ownerUserId])));
  return clients.map((client) => clientSummary(client, emails));
}

function clientSummary(client: Client, emails: Map<number, string>): AdminClientSummary {
  const ownerEmail = client.ownerUserId === null ? undefined : emails.get(client.ownerUserId);
  return {
    clientId: client.clientId,
    name: client.name,
    origin: clientOrigin(client),
    owner: ownerEmail === undefined ? null : { id: client.ownerUserId as number, email: ownerEmail },
    isPublic: client.tokenEndpointAuthMethod === 'none',
    grantTypes: client.grantTypes,
    createdAt: client.createdAt,
  };
}

export async function clientView(storage: Storage, client: Client, now: Date): Promise<AdminClientView> {
  const [summary] = await clientSummaries(storage, [client]);
  return {
    ...summary!,
    redirectUris: client.redirectUris,
    postLogoutRedirectUris: client.postLogoutRedirectUris,
    backchannelLogoutUri: client.backchannelLogoutUri,
    homepageUrl: client.homepageUrl,
    scope: client.scope,
    requireMfa: client.requireMfa,
    idTokenSignedResponseAlg: client.idTokenSignedResponseAlg,
    updatedAt: client.updatedAt,
    previousSecretExpiresAt: client.previousSecretExpiresAt !== null && client.previousSecretExpiresAt > now ? client.previousSecretExpiresAt : null,
  };
}

/** details as `key=value` pairs, as `latch events` prints them; values with spaces quoted. */
function describeDetails(details: Record<string, unknown> | null): string {
  return Object.entries(details ?? {})
    .map(([key, value]) => {
      const text = Array.isArray(value) ? value.join(',') : String(value);
      return `${key}=${/[\s"]/.test(text) || text === '' ? JSON.stringify(text) : text}`;
    })
    .join(' ');
}

export async function eventRows(storage: Storage, events: ListedAuditEvent[]): Promise<AdminEventRow[]> {
  // The events carry their user's email (joined); the administrators who acted are read once each.
  const actors = await emailsOf(storage, events.flatMap((event) => (event.actorUserId === null ? [] : [event.actorUserId])));
  return events.map((event) => ({
    id: event.id,
    at: event.createdAt,
    type: event.type,
    label: isAuditEventType(event.type) ? AUDIT_EVENT_TYPES[event.type] : event.type,
    user: event.userId === null ? null : { id: event.userId, email: event.userEmail },
    actor: event.actorUserId === null ? null : { id: event.actorUserId, email: actors.get(event.actorUserId) ?? null },
    clientId: event.clientId,
    ipAddress: event.ipAddress,
    userAgent: event.userAgent,
    requestId: event.requestId,
    details: describeDetails(event.details),
  }));
}
