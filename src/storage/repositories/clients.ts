import { sql, type Kysely } from 'kysely';
import { DEFAULT_SIGNING_ALGORITHM, isSigningAlgorithm } from '../../crypto/signing-algorithms.js';
import type { ClientRow, Database } from '../database.js';
import type { Client, ClientGrantType, ClientPatch, ClientRepository, NewClient } from '../storage.js';
import { DEVICE_CODE_GRANT_TYPE } from '../storage.js';
import { precompileQuery, type Parameter } from '../precompiled-query.js';
import { deleteRows } from './batched-delete.js';
import type { QueryExecutor } from '../query-executor.js';
import { fromEpochSeconds, fromNullableEpochSeconds, fromScopeText, toEpochSeconds, toNullableEpochSeconds, toScopeText } from './columns.js';

/** What a client registered without a choice may use: what every client could before services existed. */
const DEFAULT_GRANT_TYPES: readonly ClientGrantType[] = ['authorization_code', 'refresh_token'];
const GRANT_TYPES: readonly string[] = ['authorization_code', 'refresh_token', 'client_credentials', DEVICE_CODE_GRANT_TYPE];
const isClientGrantType = (value: string): value is ClientGrantType => GRANT_TYPES.includes(value);

/** Every token request and authorization request reads its client: compiled once (precompiled-query.ts). */
const findClientById = precompileQuery((db, p: Parameter<{ clientId: string }>) =>
  db.selectFrom('clients').selectAll().where('client_id', '=', p('clientId')),
);

function toClient(row: ClientRow): Client {
  return {
    clientId: row.client_id,
    name: row.name,
    secretHash: row.secret_hash,
    previousSecretHash: row.previous_secret_hash,
    previousSecretExpiresAt: fromNullableEpochSeconds(row.previous_secret_expires_at),
    redirectUris: JSON.parse(row.redirect_uris) as string[],
    ownerUserId: row.owner_user_id === null ? null : Number(row.owner_user_id),
    homepageUrl: row.homepage_url,
    logoUrl: row.logo_url,
    idTokenSignedResponseAlg: isSigningAlgorithm(row.id_token_signed_response_alg) ? row.id_token_signed_response_alg : DEFAULT_SIGNING_ALGORITHM,
    postLogoutRedirectUris: JSON.parse(row.post_logout_redirect_uris) as string[],
    backchannelLogoutUri: row.backchannel_logout_uri,
    tokenEndpointAuthMethod: row.token_endpoint_auth_method === 'none' ? 'none' : 'client_secret_basic',
    grantTypes: (JSON.parse(row.grant_types) as string[]).filter(isClientGrantType),
    scope: fromScopeText(row.scope),
    registrationAccessTokenHash: row.registration_access_token_hash,
    registeredDynamically: Number(row.registered_dynamically) === 1,
    refreshTokenIdleSeconds: row.refresh_token_idle_seconds === null ? null : Number(row.refresh_token_idle_seconds),
    refreshTokenMaxSeconds: row.refresh_token_max_seconds === null ? null : Number(row.refresh_token_max_seconds),
    requireMfa: Number(row.require_mfa) === 1,
    metadataDocumentExpiresAt: fromNullableEpochSeconds(row.metadata_document_expires_at),
    policyUrl: row.policy_url,
    termsUrl: row.terms_url,
    createdAt: fromEpochSeconds(row.created_at),
    updatedAt: fromEpochSeconds(row.updated_at),
  };
}

export function createClientRepository(db: Kysely<Database>, executor: QueryExecutor): ClientRepository {
  return {
    async findById(clientId) {
      const row = (await executor.read(findClientById(db, { clientId }))).rows[0];
      return row ? toClient(row) : null;
    },

    async list() {
      const rows = await db.selectFrom('clients').selectAll().orderBy('created_at').orderBy('client_id').execute();
      return rows.map(toClient);
    },

    async listByOwner(userId) {
      const rows = await db.selectFrom('clients').selectAll().where('owner_user_id', '=', userId).orderBy('created_at').execute();
      return rows.map(toClient);
    },

    async insert(client: NewClient, now) {
      const at = toEpochSeconds(now);
      const row = await db
        .insertInto('clients')
        .values({
          client_id: client.clientId,
          name: client.name,
          secret_hash: client.secretHash,
          previous_secret_hash: client.previousSecretHash,
          previous_secret_expires_at: toNullableEpochSeconds(client.previousSecretExpiresAt),
          redirect_uris: JSON.stringify(client.redirectUris),
          owner_user_id: client.ownerUserId,
          homepage_url: client.homepageUrl,
          logo_url: client.logoUrl,
          id_token_signed_response_alg: client.idTokenSignedResponseAlg ?? DEFAULT_SIGNING_ALGORITHM,
          post_logout_redirect_uris: JSON.stringify(client.postLogoutRedirectUris ?? []),
          backchannel_logout_uri: client.backchannelLogoutUri ?? null,
          token_endpoint_auth_method: client.tokenEndpointAuthMethod ?? 'client_secret_basic',
          grant_types: JSON.stringify(client.grantTypes ?? DEFAULT_GRANT_TYPES),
          scope: toScopeText(client.scope ?? []),
          registration_access_token_hash: client.registrationAccessTokenHash ?? null,
          registered_dynamically: client.registeredDynamically ? 1 : 0,
          refresh_token_idle_seconds: client.refreshTokenIdleSeconds ?? null,
          refresh_token_max_seconds: client.refreshTokenMaxSeconds ?? null,
          require_mfa: client.requireMfa ? 1 : 0,
          metadata_document_expires_at: toNullableEpochSeconds(client.metadataDocumentExpiresAt ?? null),
          policy_url: client.policyUrl ?? null,
          terms_url: client.termsUrl ?? null,
          created_at: at,
          updated_at: at,
        })
        .returningAll()
        .executeTakeFirstOrThrow();
      return toClient(row);
    },

    async update(clientId, patch: ClientPatch, now) {
      const result = await db
        .updateTable('clients')
        .set({
          ...(patch.name !== undefined && { name: patch.name }),
          ...(patch.secretHash !== undefined && { secret_hash: patch.secretHash }),
          ...(patch.previousSecretHash !== undefined && { previous_secret_hash: patch.previousSecretHash }),
          ...(patch.previousSecretExpiresAt !== undefined && {
            previous_secret_expires_at: toNullableEpochSeconds(patch.previousSecretExpiresAt),
          }),
          ...(patch.redirectUris !== undefined && { redirect_uris: JSON.stringify(patch.redirectUris) }),
          ...(patch.homepageUrl !== undefined && { homepage_url: patch.homepageUrl }),
          ...(patch.logoUrl !== undefined && { logo_url: patch.logoUrl }),
          ...(patch.idTokenSignedResponseAlg !== undefined && { id_token_signed_response_alg: patch.idTokenSignedResponseAlg }),
          ...(patch.postLogoutRedirectUris !== undefined && { post_logout_redirect_uris: JSON.stringify(patch.postLogoutRedirectUris) }),
          ...(patch.backchannelLogoutUri !== undefined && { backchannel_logout_uri: patch.backchannelLogoutUri }),
          ...(patch.grantTypes !== undefined && { grant_types: JSON.stringify(patch.grantTypes) }),
          ...(patch.refreshTokenIdleSeconds !== undefined && { refresh_token_idle_seconds: patch.refreshTokenIdleSeconds }),
          ...(patch.refreshTokenMaxSeconds !== undefined && { refresh_token_max_seconds: patch.refreshTokenMaxSeconds }),
          ...(patch.requireMfa !== undefined && { require_mfa: patch.requireMfa ? 1 : 0 }),
          ...(patch.metadataDocumentExpiresAt !== undefined && { metadata_document_expires_at: toNullableEpochSeconds(patch.metadataDocumentExpiresAt) }),
          ...(patch.policyUrl !== undefined && { policy_url: patch.policyUrl }),
          ...(patch.termsUrl !== undefined && { terms_url: patch.termsUrl }),
          updated_at: toEpochSeconds(now),
        })
        .where('client_id', '=', clientId)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) > 0;
    },

    async deleteUnusedRegistrations(before, limit) {
      // Read from the partial index clients_unused_registrations (migration 2026_11_25_0430), oldest first; their
      // consents, codes and tokens go with them (cascade).
      return deleteRows(
        db,
        'clients',
        'client_id',
        'created_at',
        (query) => query.where('registered_dynamically', '=', 1).where('first_used_at', 'is', null).where('created_at', '<', toEpochSeconds(before)),
        limit,
      );
    },

    async countUnusedRegistrations(upTo) {
      // From the partial index clients_unused_registrations; at most upTo rows are read, however many there are.
      const row = await db
        .selectFrom((eb) =>
          eb.selectFrom('clients').select('client_id').where('registered_dynamically', '=', 1).where('first_used_at', 'is', null).limit(upTo).as('unused'),
        )
        .select((eb) => eb.fn.countAll<number | string | bigint>().as('count'))
        .executeTakeFirstOrThrow();
      return Number(row.count);
    },

    async deleteUnusedMetadataDocumentClients(before, limit) {
      // Read from the partial index clients_metadata_documents (migration 2026_11_25_0630). Without a consent nobody
      // was ever sent back to the client with a code, so nothing of theirs is lost; the next request fetches again.
      return deleteRows(
        db,
        'clients',
        'client_id',
        'metadata_document_expires_at',
        (query) =>
          query
            .where('metadata_document_expires_at', 'is not', null)
            .where('metadata_document_expires_at', '<', toEpochSeconds(before))
            .where(sql<boolean>`not exists (select 1 from consents where consents.client_id = clients.client_id)`),
        limit,
      );
    },

    async markUsed(clientId, now) {
      const result = await db
        .updateTable('clients')
        .set({ first_used_at: toEpochSeconds(now) })
        .where('client_id', '=', clientId)
        .where('registered_dynamically', '=', 1)
        .where('first_used_at', 'is', null)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) > 0;
    },

    async delete(clientId) {
      // Its codes, tokens, consents and events go with it (cascade).
      const result = await db.deleteFrom('clients').where('client_id', '=', clientId).executeTakeFirst();
      return Number(result.numDeletedRows) > 0;
    },
  };
}
