import type { Kysely } from 'kysely';
import type { Database } from '../database.js';
import type { OutboxRepository } from '../storage.js';
import { fromEpochSeconds, toEpochSeconds } from './columns.js';
import { deleteRows } from './batched-delete.js';

export function createOutboxRepository(db: Kysely<Database>): OutboxRepository {
  return {
    async insert(message) {
      await db
        .insertInto('outbox_messages')
        .values({ to_address: message.to, subject: message.subject, text_body: message.text, created_at: toEpochSeconds(message.createdAt) })
        .execute();
    },

    async listRecent(limit) {
      const rows = await db.selectFrom('outbox_messages').selectAll().orderBy('id', 'desc').limit(limit).execute();
      return rows.map((row) => ({
        id: Number(row.id),
        to: row.to_address,
        subject: row.subject,
        text: row.text_body,
        createdAt: fromEpochSeconds(row.created_at),
      }));
    },

    deleteBefore(before, limit) {
      return deleteRows(db, 'outbox_messages', 'id', 'created_at', (q) => q.where('created_at', '<', toEpochSeconds(before)), limit);
    },
  };
}
