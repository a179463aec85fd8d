/**
 * How a person authenticated, for `amr` and `acr` in id_tokens (RFC 8176; OIDC Core §2; issue 17 item 5;
 * docs/protocol-decisions.md "Authentication methods and levels"): the RFC 8176 methods of each browser session,
 * carried by the codes issued in it and the refresh tokens of their grants, with the `acr` chosen for the
 * request; and a per-client flag demanding a second factor of every user. Rows from before this migration have
 * no methods recorded (empty text, null acr): their id_tokens carry neither claim. Frozen in time.
 */
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('browser_sessions').addColumn('amr', 'text', (c) => c.notNull().defaultTo('')).execute();
  for (const table of ['authorization_codes', 'refresh_tokens']) {
    await db.schema.alterTable(table).addColumn('amr', 'text', (c) => c.notNull().defaultTo('')).execute();
    await db.schema.alterTable(table).addColumn('acr', 'text').execute();
  }
  await db.schema.alterTable('clients').addColumn('require_mfa', 'integer', (c) => c.notNull().defaultTo(0)).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('clients').dropColumn('require_mfa').execute();
  for (const table of ['refresh_tokens', 'authorization_codes']) {
    await db.schema.alterTable(table).dropColumn('acr').execute();
    await db.schema.alterTable(table).dropColumn('amr').execute();
  }
  await db.schema.alterTable('browser_sessions').dropColumn('amr').execute();
}
