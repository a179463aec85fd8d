/** Resource servers and the resources of each grant (RFC 8707; migration 2026_11_25_0700; README "APIs (resource servers)"). */
import type { ExpressionBuilder, Kysely, Selectable } from 'kysely';
import { deleteRows } from './batched-delete.js';
import type { Database, ResourceServersTable } from '../database.js';
import type { ResourceServer, ResourceServerRepository } from '../storage.js';
import { fromEpochSeconds, toEpochSeconds } from './columns.js';

function toResourceServer(row: Selectable<ResourceServersTable>): ResourceServer {
  return { identifier: row.identifier, name: row.name, scope: row.scope.split(' ').filter((s) => s !== ''), createdAt: fromEpochSeconds(row.created_at) };
}

export function createResourceServerRepository(db: Kysely<Database>): ResourceServerRepository {
  return {
    async insert(resource) {
      const result = await db
        .insertInto('resource_servers')
        .values({ identifier: resource.identifier, name: resource.name, scope: resource.scope.join(' '), created_at: toEpochSeconds(resource.createdAt) })
        .onConflict((oc) => oc.column('identifier').doNothing())
        .executeTakeFirst();
      return Number(result.numInsertedOrUpdatedRows ?? 0n) > 0;
    },

    async list() {
      const rows = await db.selectFrom('resource_servers').selectAll().orderBy('identifier').execute();
      return rows.map(toResourceServer);
    },

    async findMany(identifiers) {
      if (identifiers.length === 0) return [];
      const rows = await db.selectFrom('resource_servers').selectAll().where('identifier', 'in', [...identifiers]).execute();
      return rows.map(toResourceServer);
    },

    async delete(identifier) {
      const result = await db.deleteFrom('resource_servers').where('identifier', '=', identifier).executeTakeFirst();
      return Number(result.numDeletedRows) > 0;
    },

    async recordGrantResources(grantId, resources, now) {
      if (resources.length === 0) return;
      await db
        .insertInto('grant_resources')
        .values([...new Set(resources)].map((resource) => ({ grant_id: grantId, resource, created_at: toEpochSeconds(now) })))
        .onConflict((oc) => oc.columns(['grant_id', 'resource']).doNothing())
        .execute();
    },

    async deleteEndedGrantResources(before, now, limit) {
      const cutoff = toEpochSeconds(before);
      const at = toEpochSeconds(now);
      return deleteRows(
        db,
        'grant_resources',
        'grant_id',
        'created_at',
        (q) =>
          q
            .where('created_at', '<', cutoff)
            .where((eb: ExpressionBuilder<Database, 'grant_resources'>) =>
              eb.not(
                eb.exists(
                  eb
                    .selectFrom('refresh_tokens')
                    .select('refresh_tokens.grant_id')
                    .whereRef('refresh_tokens.grant_id', '=', 'grant_resources.grant_id')
                    .where('refresh_tokens.revoked_at', 'is', null)
                    .where('refresh_tokens.grant_expires_at', '>', at),
                ),
              ),
            ),
        limit,
      );
    },

    async listGrantResources(grantId) {
      const rows = await db.selectFrom('grant_resources').select('resource').where('grant_id', '=', grantId).execute();
      return rows.map((row) => row.resource);
    },
  };
}
