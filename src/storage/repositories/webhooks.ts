/**
 * Webhooks (migration 2026_11_25_0200; docs/protocol-decisions.md "Webhooks"): endpoints subscribed to audit
 * event types. The secret arrives here encrypted (webhooks/webhook-secret.ts) and is stored as it came.
 */
import type { Kysely, Selectable } from 'kysely';
import type { Database, WebhooksTable } from '../database.js';
import type { Webhook, WebhookRepository } from '../storage.js';
import { fromEpochSeconds, toEpochSeconds } from './columns.js';

function toWebhook(row: Selectable<WebhooksTable>): Webhook {
  return {
    id: row.id,
    url: row.url,
    eventTypes: JSON.parse(row.event_types) as string[],
    secretEncrypted: row.secret_encrypted,
    createdAt: fromEpochSeconds(row.created_at),
    disabled: Number(row.disabled) === 1,
  };
}

export function createWebhookRepository(db: Kysely<Database>): WebhookRepository {
  return {
    async insert(webhook) {
      await db
        .insertInto('webhooks')
        .values({
          id: webhook.id,
          url: webhook.url,
          event_types: JSON.stringify(webhook.eventTypes),
          secret_encrypted: webhook.secretEncrypted,
          created_at: toEpochSeconds(webhook.createdAt),
          disabled: webhook.disabled ? 1 : 0,
        })
        .execute();
    },

    async findById(id) {
      const row = await db.selectFrom('webhooks').selectAll().where('id', '=', id).executeTakeFirst();
      return row ? toWebhook(row) : null;
    },

    async list() {
      const rows = await db.selectFrom('webhooks').selectAll().orderBy('created_at').orderBy('id').execute();
      return rows.map(toWebhook);
    },

    async listSubscriptions() {
      const rows = await db.selectFrom('webhooks').select(['id', 'event_types']).where('disabled', '=', 0).execute();
      return rows.map((row) => ({ id: row.id, eventTypes: JSON.parse(row.event_types) as string[] }));
    },

    async delete(id) {
      // Its deliveries go with it (on delete cascade).
      const result = await db.deleteFrom('webhooks').where('id', '=', id).executeTakeFirst();
      return Number(result.numDeletedRows) > 0;
    },
  };
}
