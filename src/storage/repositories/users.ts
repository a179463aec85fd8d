import { sql, type Kysely } from 'kysely';
import type { Database, UserRow } from '../database.js';
import type { NewUser, User, UserPatch, UserRepository } from '../storage.js';
import { precompileQuery, type Parameter } from '../precompiled-query.js';
import type { QueryExecutor } from '../query-executor.js';
import { fromEpochSeconds, toEpochSeconds } from './columns.js';

/** Read by every token response and every request with a browser session: compiled once (precompiled-query.ts). */
const findUserById = precompileQuery((db, p: Parameter<{ id: number }>) => db.selectFrom('users').selectAll().where('id', '=', p('id')));

export function toUser(row: UserRow): User {
  return {
    id: Number(row.id),
    email: row.email,
    emailVerified: Number(row.email_verified) === 1,
    name: row.name,
    avatarUrl: row.avatar_url,
    passwordHash: row.password_hash,
    createdAt: fromEpochSeconds(row.created_at),
    updatedAt: fromEpochSeconds(row.updated_at),
    isAdmin: Number(row.is_admin) === 1,
    disabledAt: row.disabled_at === null || row.disabled_at === undefined ? null : fromEpochSeconds(row.disabled_at),
  };
}

export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

export function createUserRepository(db: Kysely<Database>, executor: QueryExecutor): UserRepository {
  return {
    async findById(id) {
      const row = (await executor.read(findUserById(db, { id }))).rows[0];
      return row ? toUser(row) : null;
    },

    async findByEmail(email) {
      const row = await db.selectFrom('users').selectAll().where('email_normalized', '=', normalizeEmail(email)).executeTakeFirst();
      return row ? toUser(row) : null;
    },

    async insert(user: NewUser, now) {
      const at = toEpochSeconds(now);
      const row = await db
        .insertInto('users')
        .values({
          email: user.email.trim(),
          email_normalized: normalizeEmail(user.email),
          email_verified: user.emailVerified ? 1 : 0,
          name: user.name,
          avatar_url: user.avatarUrl,
          password_hash: user.passwordHash,
          created_at: at,
          updated_at: at,
        })
        .onConflict((oc) => oc.column('email_normalized').doNothing())
        .returningAll()
        .executeTakeFirst();
      return row ? toUser(row) : null;
    },

    async update(id, patch: UserPatch, now) {
      await db
        .updateTable('users')
        .set({
          ...(patch.email !== undefined && { email: patch.email.trim(), email_normalized: normalizeEmail(patch.email) }),
          ...(patch.emailVerified !== undefined && { email_verified: patch.emailVerified ? 1 : 0 }),
          ...(patch.name !== undefined && { name: patch.name }),
          ...(patch.avatarUrl !== undefined && { avatar_url: patch.avatarUrl }),
          ...(patch.passwordHash !== undefined && { password_hash: patch.passwordHash }),
          ...(patch.isAdmin !== undefined && { is_admin: patch.isAdmin ? 1 : 0 }),
          ...(patch.disabledAt !== undefined && { disabled_at: patch.disabledAt === null ? null : toEpochSeconds(patch.disabledAt) }),
          updated_at: toEpochSeconds(now),
        })
        .where('id', '=', id)
        .execute();
    },

    async list() {
      const rows = await db.selectFrom('users').selectAll().orderBy('id').execute();
      return rows.map(toUser);
    },

    async search(text, limit) {
      const needle = text.trim().toLowerCase();
      let query = db.selectFrom('users').selectAll();
      if (needle !== '') {
        // LIKE with its wildcards escaped, so that "_" or "%" typed in the search box mean themselves; lower() on
        // both sides, as PostgreSQL's LIKE is case-sensitive.
        const pattern = `%${needle.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
        query = query.where((eb) =>
          eb.or([sql<boolean>`${eb.ref('email_normalized')} like ${pattern} escape '\\'`, sql<boolean>`lower(${eb.ref('name')}) like ${pattern} escape '\\'`]),
        );
      }
      const rows = await query.orderBy('id').limit(limit).execute();
      return rows.map(toUser);
    },

    async delete(id) {
      const result = await db.deleteFrom('users').where('id', '=', id).executeTakeFirst();
      return Number(result.numDeletedRows) > 0;
    },
  };
}
