/**
 * Tables for the pages people use: single-use email links (verification, password reset), the local mail
 * outbox used when no SMTP server is configured, and avatar images uploaded to Latch.
 * Frozen in time like every migration; portable column types only.
 */
import type { Kysely } from 'kysely';
import { identityColumn } from './dialect-helpers.js';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('email_links')
    // SHA-256 of the link's token: the token itself is only ever in the mail.
    .addColumn('token_hash', 'text', (c) => c.primaryKey())
    .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('purpose', 'text', (c) => c.notNull())
    .addColumn('email', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .addColumn('used_at', 'bigint')
    .execute();
  await db.schema.createIndex('email_links_user_purpose').on('email_links').columns(['user_id', 'purpose']).execute();
  await db.schema.createIndex('email_links_expires_at').on('email_links').column('expires_at').execute();

  await db.schema
    .createTable('outbox_messages')
    .addColumn('id', 'integer', identityColumn(db))
    .addColumn('to_address', 'text', (c) => c.notNull())
    .addColumn('subject', 'text', (c) => c.notNull())
    .addColumn('text_body', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('avatar_images')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('content_type', 'text', (c) => c.notNull())
    // base64 text: portable across SQLite and PostgreSQL without blob/bytea (docs/protocol-decisions.md, "Storage conventions").
    .addColumn('data_base64', 'text', (c) => c.notNull())
    .addColumn('byte_length', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('avatar_images_user_id').on('avatar_images').column('user_id').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const table of ['avatar_images', 'outbox_messages', 'email_links']) await db.schema.dropTable(table).execute();
}
