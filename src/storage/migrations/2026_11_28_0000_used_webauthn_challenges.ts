/**
 * WebAuthn challenges already tried (docs/protocol-decisions.md "Second factors and passkeys"): a challenge is sealed in the browser's
 * 5-minute cookie, so without a record here a captured cookie and signed answer could be sent again within those
 * minutes, and a synced passkey (counter 0 forever) would sign in once more. WebAuthn Level 2 §13.4.3 expects a
 * challenge to serve one ceremony only. One row per tried challenge, keyed by its SHA-256 (base64url; never the
 * challenge), kept until the cookie that carried it has expired, then deleted by the periodic cleanup.
 * Frozen in time: later changes are new migrations.
 */
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('used_webauthn_challenges')
    .addColumn('challenge_hash', 'text', (c) => c.primaryKey())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('used_webauthn_challenges_expires_at').on('used_webauthn_challenges').column('expires_at').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('used_webauthn_challenges').execute();
}
