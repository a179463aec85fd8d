import type { Kysely, Selectable } from 'kysely';
import type { ConsentsTable, Database } from '../database.js';
import type { Consent, ConsentRepository } from '../storage.js';
import { precompileQuery, type Parameter } from '../precompiled-query.js';
import type { QueryExecutor } from '../query-executor.js';
import { fromEpochSeconds, fromNullableEpochSeconds, fromScopeText, toEpochSeconds, toScopeText } from './columns.js';

/** Read by every authorization request of a signed-in user: compiled once (precompiled-query.ts). */
const findConsent = precompileQuery((db, p: Parameter<{ userId: number; clientId: string }>) =>
  db.selectFrom('consents').selectAll().where('user_id', '=', p('userId')).where('client_id', '=', p('clientId')),
);

/** How fine "last used" is kept: at most one write per consent per this many seconds. */
const USED_RESOLUTION_SECONDS = 60;

/** Run after every code exchange and refresh: compiled once (precompiled-query.ts). */
const markConsentUsed = precompileQuery((db, p: Parameter<{ userId: number; clientId: string; at: number; before: number }>) =>
  db
    .updateTable('consents')
    .set({ last_used_at: p('at') })
    .where('user_id', '=', p('userId'))
    .where('client_id', '=', p('clientId'))
    .where((eb) => eb.or([eb('last_used_at', 'is', null), eb('last_used_at', '<=', p('before'))])),
);

function toConsent(row: Selectable<ConsentsTable>): Consent {
  return {
    userId: Number(row.user_id),
    clientId: row.client_id,
    scope: fromScopeText(row.scope),
    createdAt: fromEpochSeconds(row.created_at),
    updatedAt: fromEpochSeconds(row.updated_at),
    lastUsedAt: fromNullableEpochSeconds(row.last_used_at),
  };
}

export function createConsentRepository(db: Kysely<Database>, executor: QueryExecutor): ConsentRepository {
  return {
    async find(userId, clientId) {
      const row = (await executor.read(findConsent(db, { userId, clientId }))).rows[0];
      return row ? toConsent(row) : null;
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
        .values({ user_id: userId, client_id: clientId, scope: merged, created_at: at, updated_at: at, last_used_at: null })
        .onConflict((oc) => oc.columns(['user_id', 'client_id']).doUpdateSet({ scope: merged, updated_at: at }))
        .execute();
    },

    async markUsed(userId, clientId, now) {
      const at = toEpochSeconds(now);
      // To the minute: an app exchanging codes or refreshing many times a minute writes once.
      await executor.write(markConsentUsed(db, { userId, clientId, at, before: at - USED_RESOLUTION_SECONDS }));
    },

    async revoke(userId, clientId) {
      const result = await db.deleteFrom('consents').where('user_id', '=', userId).where('client_id', '=', clientId).executeTakeFirst();
      return Number(result.numDeletedRows) > 0;
    },
  };
}
