import type { Kysely } from 'kysely';
import type { ClientEventRow, Database } from '../database.js';
import type { ClientEvent, ClientEventRepository } from '../storage.js';
import { fromEpochSeconds, toEpochSeconds } from './columns.js';
import { deleteRows } from './batched-delete.js';

function toClientEvent(row: ClientEventRow): ClientEvent {
  return {
    id: Number(row.id),
    clientId: row.client_id,
    createdAt: fromEpochSeconds(row.created_at),
    endpoint: row.endpoint,
    error: row.error,
    description: row.description,
    requestId: row.request_id,
    details: row.details === null ? null : (JSON.parse(row.details) as Record<string, unknown>),
  };
}

export function createClientEventRepository(db: Kysely<Database>): ClientEventRepository {
  return {
    async insert(event) {
      await db
        .insertInto('client_events')
        .values({
          client_id: event.clientId,
          created_at: toEpochSeconds(event.createdAt),
          endpoint: event.endpoint,
          error: event.error,
          description: event.description,
          request_id: event.requestId,
          details: event.details === null ? null : JSON.stringify(event.details),
        })
        .execute();
    },

    async listRecent(clientId, limit) {
      const rows = await db
        .selectFrom('client_events')
        .selectAll()
        .where('client_id', '=', clientId)
        .orderBy('id', 'desc')
        .limit(limit)
        .execute();
      return rows.map(toClientEvent);
    },

    deleteBefore(before, limit) {
      return deleteRows(db, 'client_events', 'id', 'created_at', (q) => q.where('created_at', '<', toEpochSeconds(before)), limit);
    },
  };
}
