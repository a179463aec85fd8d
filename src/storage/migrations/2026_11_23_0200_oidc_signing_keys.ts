/**
 * OpenID Connect: the signing keys of id_tokens, and each client's id_token signing algorithm.
 * Frozen in time: later changes are new migrations, never edits here.
 *
 * A key's state is derived from its times (keys/signing-keys.ts), so that no background job has to flip a
 * column at the right moment and every process, reading the same rows, agrees on which key signs.
 */
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('signing_keys')
    .addColumn('kid', 'text', (c) => c.primaryKey())
    .addColumn('alg', 'text', (c) => c.notNull())
    /** JSON public JWK (kty, crv/n/e/x/y only): what the JWKS publishes. */
    .addColumn('public_jwk', 'text', (c) => c.notNull())
    /** The private JWK, AES-256-GCM encrypted under a key derived from LATCH_SECRET (crypto/key-encryption.ts). */
    .addColumn('private_jwk_encrypted', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    /** Published from creation; signs from here on. */
    .addColumn('activates_at', 'bigint', (c) => c.notNull())
    /** Stops signing here (set when a newer key is added); null while it is the newest. */
    .addColumn('deactivates_at', 'bigint')
    /** Leaves the JWKS here, once every id_token it signed has expired; null while it may still sign. */
    .addColumn('retires_at', 'bigint')
    .execute();
  await db.schema.createIndex('signing_keys_alg_activates_at').on('signing_keys').columns(['alg', 'activates_at']).execute();

  await db.schema
    .alterTable('clients')
    .addColumn('id_token_signed_response_alg', 'text', (c) => c.notNull().defaultTo('RS256'))
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('clients').dropColumn('id_token_signed_response_alg').execute();
  await db.schema.dropTable('signing_keys').execute();
}
