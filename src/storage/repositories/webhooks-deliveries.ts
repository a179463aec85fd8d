/**
 * Webhook deliveries (migration 2026_11_25_0200; docs/protocol-decisions.md "Webhooks"): the queue and the
 * delivery log in one table. Rows are queued with their audit event (audit-events.ts insertMany), claimed for
 * an attempt with one conditional update, as back-channel logout deliveries are (backchannel-logout-deliveries.ts),
 * so that two processes never send the same attempt, and kept once finished, as the log, until the cleanup.
 */
import type { ExpressionBuilder, Kysely, Selectable } from 'kysely';
import type { Database, WebhookDeliveriesTable } from '../database.js';
import type { AuditEvent, ClaimedWebhookDelivery, WebhookDelivery, WebhookDeliveryRepository } from '../storage.js';
import { deleteRows } from './batched-delete.js';
import { fromEpochSeconds, fromNullableEpochSeconds, toEpochSeconds } from './columns.js';

function toDelivery(row: Selectable<WebhookDeliveriesTable>): WebhookDelivery {
  const deliveredAt = fromNullableEpochSeconds(row.delivered_at);
  const gaveUpAt = fromNullableEpochSeconds(row.gave_up_at);
  return {
    id: Number(row.id),
    webhookId: row.webhook_id,
    auditEventId: Number(row.audit_event_id),
    eventType: row.event_type,
    createdAt: fromEpochSeconds(row.created_at),
    attempts: Number(row.attempts),
    state: deliveredAt ? 'delivered' : gaveUpAt ? 'given_up' : 'pending',
    nextAttemptAt: fromNullableEpochSeconds(row.next_attempt_at),
    lastAttemptAt: fromNullableEpochSeconds(row.last_attempt_at),
    lastStatus: row.last_status === null ? null : Number(row.last_status),
    lastError: row.last_error,
    finishedAt: deliveredAt ?? gaveUpAt,
  };
}

export function createWebhookDeliveryRepository(db: Kysely<Database>): WebhookDeliveryRepository {
  return {
    async claimDue(now, claimedUntil, claimToken, limit) {
      const nowSeconds = toEpochSeconds(now);
      // Pending (finished rows have no next attempt), due, and not held by a process (or held past its claim:
      // that process stopped before finishing).
      const claimable = (eb: ExpressionBuilder<Database, 'webhook_deliveries'>) =>
        eb.and([eb('next_attempt_at', 'is not', null), eb('next_attempt_at', '<=', nowSeconds), eb.or([eb('claimed_until', 'is', null), eb('claimed_until', '<=', nowSeconds)])]);
      // A read first, so that an idle poll never takes SQLite's write lock.
      const due = await db.selectFrom('webhook_deliveries').select('id').where(claimable).orderBy('next_attempt_at').limit(limit).execute();
      if (due.length === 0) return [];
      // The same conditions in the update: of two processes that read the same rows, each row goes to the one
      // whose update reaches it first (PostgreSQL re-checks them on the row the other one committed).
      const rows = await db
        .updateTable('webhook_deliveries')
        .set({ claimed_until: toEpochSeconds(claimedUntil), claim_token: claimToken })
        .where('id', 'in', due.map((row) => row.id))
        .where(claimable)
        .returningAll()
        .execute();
      if (rows.length === 0) return [];
      const events = await db.selectFrom('audit_events').selectAll().where('id', 'in', rows.map((row) => row.audit_event_id)).execute();
      const byId = new Map(
        events.map((row): [number, AuditEvent] => [
          Number(row.id),
          {
            id: Number(row.id),
            createdAt: fromEpochSeconds(row.created_at),
            type: row.type,
            userId: row.user_id === null ? null : Number(row.user_id),
            actorUserId: row.actor_user_id === null ? null : Number(row.actor_user_id),
            clientId: row.client_id,
            ipAddress: row.ip_address,
            userAgent: row.user_agent,
            requestId: row.request_id,
            details: row.details === null ? null : (JSON.parse(row.details) as Record<string, unknown>),
          },
        ]),
      );
      return rows.map((row): ClaimedWebhookDelivery => ({ ...toDelivery(row), claimToken, event: byId.get(Number(row.audit_event_id)) ?? null }));
    },

    async recordAttempt(id, claimToken, record) {
      const released = { claimed_until: null, claim_token: null };
      const changes =
        record.outcome === 'postponed'
          ? { ...released, next_attempt_at: toEpochSeconds(record.nextAttemptAt) }
          : {
              ...released,
              last_attempt_at: toEpochSeconds(record.at),
              last_status: record.status,
              last_error: record.outcome === 'delivered' ? null : record.error,
              next_attempt_at: record.outcome === 'retry' ? toEpochSeconds(record.nextAttemptAt) : null,
              ...(record.outcome === 'delivered' && { delivered_at: toEpochSeconds(record.at) }),
              ...(record.outcome === 'given_up' && { gave_up_at: toEpochSeconds(record.at) }),
            };
      const claimed = db.updateTable('webhook_deliveries').where('id', '=', id).where('claim_token', '=', claimToken);
      // A postponement is Latch's own delay, not an attempt: the count stays.
      const update = record.outcome === 'postponed' ? claimed.set(changes) : claimed.set((eb) => ({ ...changes, attempts: eb('attempts', '+', 1) }));
      const result = await update.executeTakeFirst();
      return Number(result.numUpdatedRows) > 0;
    },

    async listByWebhook(webhookId, limit) {
      const rows = await db.selectFrom('webhook_deliveries').selectAll().where('webhook_id', '=', webhookId).orderBy('id', 'desc').limit(limit).execute();
      return rows.map(toDelivery);
    },

    deleteFinishedBefore(before, limit) {
      const seconds = toEpochSeconds(before);
      return deleteRows(db, 'webhook_deliveries', 'id', 'id', (q) => q.where((eb: ExpressionBuilder<Database, 'webhook_deliveries'>) => eb.or([eb('delivered_at', '<', seconds), eb('gave_up_at', '<', seconds)])), limit);
    },
  };
}
