/**
 * A grant id on codes and access tokens: the token family that one authorization starts. Code replay revokes
 * a grant (RFC 6749 §4.1.2), and refresh rotation and logout will cascade over the same id. It replaces the
 * link from a token to the hash of the code it came from.
 * Frozen in time: later changes are new migrations, never edits here.
 *
 * Rows that exist already form one grant per code: their grant id is the code's hash (and a token without a
 * code, its own hash). New grants get random ids led by their creation time (oauth/tokens/authorization-code-issuer.ts),
 * so that the index on access_tokens.grant_id is appended to.
 */
import { sql, type Kysely } from 'kysely';
import { isPostgres } from './dialect-helpers.js';

export async function up(db: Kysely<any>): Promise<void> {
  // NOT NULL needs a default for the rows already there; SQLite cannot drop it afterwards, PostgreSQL does.
  await db.schema.alterTable('authorization_codes').addColumn('grant_id', 'text', (c) => c.notNull().defaultTo('')).execute();
  await db.schema.alterTable('access_tokens').addColumn('grant_id', 'text', (c) => c.notNull().defaultTo('')).execute();
  await sql`update authorization_codes set grant_id = code_hash`.execute(db);
  await sql`update access_tokens set grant_id = coalesce(authorization_code_hash, token_hash)`.execute(db);
  if (isPostgres(db)) {
    await sql`alter table authorization_codes alter column grant_id drop default`.execute(db);
    await sql`alter table access_tokens alter column grant_id drop default`.execute(db);
  }
  await db.schema.createIndex('access_tokens_grant_id').on('access_tokens').column('grant_id').execute();
  await db.schema.dropIndex('access_tokens_code').execute();
  await db.schema.alterTable('access_tokens').dropColumn('authorization_code_hash').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('access_tokens').addColumn('authorization_code_hash', 'text').execute();
  await sql`update access_tokens set authorization_code_hash = (select code_hash from authorization_codes c where c.grant_id = access_tokens.grant_id)`.execute(db);
  await db.schema.createIndex('access_tokens_code').on('access_tokens').column('authorization_code_hash').execute();
  await db.schema.dropIndex('access_tokens_grant_id').execute();
  await db.schema.alterTable('access_tokens').dropColumn('grant_id').execute();
  await db.schema.alterTable('authorization_codes').dropColumn('grant_id').execute();
}
