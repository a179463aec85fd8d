import type { Kysely, Selectable } from 'kysely';
import type { ConsentsTable, Database } from '../database.js';
import type { Consent, ConsentRepository } from '../storage.js';
import { precompileQuery, type Parameter } from '../precompiled-query.js';
import { fromEpochSeconds, fromScopeText, toEpochSeconds, toScopeText } from './columns.js';
import { readThrough } from '../cached-reads.js';
import { sqliteFastPathOf } from '../sqlite-fast-path.js';

/** Read by every authorization request of a signed-in user: compiled once (precompiled-query.ts). */
const findConsent = precompileQuery((db, p: Parameter<{ userId: number; clientId: string }>) =>
  db.selectFrom('consents').selectAll().where('user_id', '=', p('userId')).where('client_id', '=', p('clientId')),
);

function toConsent(row: Selectable<ConsentsTable>): Consent {
  return {
    userId: Number(row.user_id),
    clientId: row.client_id,
    scope: fromScopeText(row.scope),
    createdAt: fromEpochSeconds(row.created_at),
    updatedAt: fromEpochSeconds(row.updated_at),
  };
}

export function createConsentRepository(db: Kysely<Database>): ConsentRepository {
  return {
    async find(userId, clientId) {
      return readThrough(sqliteFastPathOf(db)?.cached, (c) => c.consents, `${userId} ${clientId}`, async () => {
        const row = (await findConsent(db, { userId, clientId })).rows[0];
        return row ? toConsent(row) : null;
      });
    },

    async listByUser(userId) {
      const rows = await db.selectFrom('consents').selectAll().where('user_id', '=', userId).orderBy('updated_at', 'desc').execute();
      return rows.map(toConsent);
    },

    async grant(userId, clientId, scope, now) {
      // Read, merge, upsert: two concurrent grants by one user to one client can at worst keep the smaller
      // set, which only means the consent page is shown once more. Not worth a transaction on SQLite's one writer.
      const at = toEpochSeconds(now);
      const existing = await db.selectFrom('consents').select('scope').where('user_id', '=', userId).where('client_id', '=', clientId).executeTakeFirst();
      const merged = toScopeText([...new Set([...(existing ? fromScopeText(existing.scope) : []), ...scope])].sort());
      await db
        .insertInto('consents')
        .values({ user_id: userId, client_id: clientId, scope: merged, created_at: at, updated_at: at })
        .onConflict((oc) => oc.columns(['user_id', 'client_id']).doUpdateSet({ scope: merged, updated_at: at }))
        .execute();
      // Every process must see the new scopes (cached-reads.ts).
      sqliteFastPathOf(db)?.changed();
    },

    async revoke(userId, clientId) {
      const result = await db.deleteFrom('consents').where('user_id', '=', userId).where('client_id', '=', clientId).executeTakeFirst();
      sqliteFastPathOf(db)?.changed();
      return Number(result.numDeletedRows) > 0;
    },
  };
}
