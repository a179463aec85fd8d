/**
 * Back-channel logout deliveries (OIDC Back-Channel Logout 1.0 §2.5): a small queue that survives restarts,
 * claimed row by row with one conditional update, so that two processes never send the same attempt.
 */
import type { ExpressionBuilder, Kysely, Selectable } from 'kysely';
import type { BackchannelLogoutDeliveriesTable, Database } from '../database.js';
import type { BackchannelLogoutDeliveryRepository, ClaimedBackchannelLogoutDelivery } from '../storage.js';
import { fromEpochSeconds, toEpochSeconds } from './columns.js';

function toClaimedDelivery(row: Selectable<BackchannelLogoutDeliveriesTable>): ClaimedBackchannelLogoutDelivery {
  return {
    id: Number(row.id),
    clientId: row.client_id,
    sub: row.sub,
    sid: row.sid,
    attempts: Number(row.attempts),
    nextAttemptAt: fromEpochSeconds(row.next_attempt_at),
    createdAt: fromEpochSeconds(row.created_at),
    claimToken: row.claim_token ?? '',
  };
}

export function createBackchannelLogoutDeliveryRepository(db: Kysely<Database>): BackchannelLogoutDeliveryRepository {
  return {
    async insert(deliveries) {
      if (deliveries.length === 0) return [];
      const rows = await db
        .insertInto('backchannel_logout_deliveries')
        .values(
          deliveries.map((delivery) => ({
            client_id: delivery.clientId,
            sub: delivery.sub,
            sid: delivery.sid,
            attempts: 0,
            next_attempt_at: toEpochSeconds(delivery.nextAttemptAt),
            created_at: toEpochSeconds(delivery.createdAt),
          })),
        )
        .returning('id')
        .execute();
      return rows.map((row) => Number(row.id));
    },

    async claimDue(now, claimedUntil, claimToken, limit) {
      const nowSeconds = toEpochSeconds(now);
      // Due, and not held by a process (or held past its claim: that process stopped before finishing).
      const claimable = (eb: ExpressionBuilder<Database, 'backchannel_logout_deliveries'>) =>
        eb.and([eb('next_attempt_at', '<=', nowSeconds), eb.or([eb('claimed_until', 'is', null), eb('claimed_until', '<=', nowSeconds)])]);
      // A read first, so that an idle poll never takes SQLite's write lock.
      const due = await db.selectFrom('backchannel_logout_deliveries').select('id').where(claimable).orderBy('next_attempt_at').limit(limit).execute();
      if (due.length === 0) return [];
      // The same conditions in the update: of two processes that read the same rows, each row goes to the one
      // whose update reaches it first (PostgreSQL re-checks them on the row the other one committed).
      const rows = await db
        .updateTable('backchannel_logout_deliveries')
        .set({ claimed_until: toEpochSeconds(claimedUntil), claim_token: claimToken })
        .where('id', 'in', due.map((row) => row.id))
        .where(claimable)
        .returningAll()
        .execute();
      return rows.map(toClaimedDelivery);
    },

    async reschedule(id, claimToken, attempts, nextAttemptAt) {
      const result = await db
        .updateTable('backchannel_logout_deliveries')
        .set({ attempts, next_attempt_at: toEpochSeconds(nextAttemptAt), claimed_until: null, claim_token: null })
        .where('id', '=', id)
        .where('claim_token', '=', claimToken)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) > 0;
    },

    async delete(id, claimToken) {
      const result = await db.deleteFrom('backchannel_logout_deliveries').where('id', '=', id).where('claim_token', '=', claimToken).executeTakeFirst();
      return Number(result.numDeletedRows) > 0;
    },
  };
}
