import type { Kysely } from 'kysely';
import type { BrowserSessionRow, Database } from '../database.js';
import type { BrowserSession, BrowserSessionRepository } from '../storage.js';
import { precompileQuery, type Parameter } from '../precompiled-query.js';
import { fromEpochSeconds, toEpochSeconds, toExpiryEpochSeconds } from './columns.js';
import { readThrough } from '../cached-reads.js';
import { sqliteFastPathOf } from '../sqlite-fast-path.js';

/** Read by every request that carries a session cookie: compiled once (precompiled-query.ts). */
const findActiveSession = precompileQuery((db, p: Parameter<{ sessionHash: string; now: number }>) =>
  db.selectFrom('browser_sessions').selectAll().where('session_hash', '=', p('sessionHash')).where('expires_at', '>', p('now')),
);

function toBrowserSession(row: BrowserSessionRow): BrowserSession {
  return {
    sessionHash: row.session_hash,
    userId: Number(row.user_id),
    authTime: fromEpochSeconds(row.auth_time),
    createdAt: fromEpochSeconds(row.created_at),
    lastSeenAt: fromEpochSeconds(row.last_seen_at),
    expiresAt: fromEpochSeconds(row.expires_at),
    userAgent: row.user_agent,
    ipAddress: row.ip_address,
  };
}

export function createBrowserSessionRepository(db: Kysely<Database>): BrowserSessionRepository {
  return {
    async insert(session) {
      await db
        .insertInto('browser_sessions')
        .values({
          session_hash: session.sessionHash,
          user_id: session.userId,
          auth_time: toEpochSeconds(session.authTime),
          created_at: toEpochSeconds(session.createdAt),
          last_seen_at: toEpochSeconds(session.lastSeenAt),
          expires_at: toExpiryEpochSeconds(session.expiresAt),
          user_agent: session.userAgent,
          ip_address: session.ipAddress,
        })
        .execute();
    },

    async findActive(sessionHash, now) {
      return readThrough(
        sqliteFastPathOf(db)?.cached,
        (c) => c.browserSessions,
        sessionHash,
        async () => {
          const row = (await findActiveSession(db, { sessionHash, now: toEpochSeconds(now) })).rows[0];
          return row ? toBrowserSession(row) : null;
        },
        (session) => session.expiresAt > now,
      );
    },

    async listByUser(userId, now) {
      const rows = await db
        .selectFrom('browser_sessions')
        .selectAll()
        .where('user_id', '=', userId)
        .where('expires_at', '>', toEpochSeconds(now))
        .orderBy('last_seen_at', 'desc')
        .execute();
      return rows.map(toBrowserSession);
    },

    async touch(sessionHash, now) {
      await db.updateTable('browser_sessions').set({ last_seen_at: toEpochSeconds(now) }).where('session_hash', '=', sessionHash).execute();
      // findActive answers carry last_seen_at (cached-reads.ts). No hot path touches sessions.
      sqliteFastPathOf(db)?.changed();
    },

    async delete(sessionHash) {
      await db.deleteFrom('browser_sessions').where('session_hash', '=', sessionHash).execute();
      // Signed out: every process must stop finding the session (cached-reads.ts).
      sqliteFastPathOf(db)?.changed();
    },

    async deleteByUser(userId, exceptSessionHash) {
      let query = db.deleteFrom('browser_sessions').where('user_id', '=', userId);
      if (exceptSessionHash !== undefined) query = query.where('session_hash', '!=', exceptSessionHash);
      const result = await query.executeTakeFirst();
      sqliteFastPathOf(db)?.changed();
      return Number(result.numDeletedRows);
    },

    async deleteExpired(before) {
      const result = await db.deleteFrom('browser_sessions').where('expires_at', '<', toEpochSeconds(before)).executeTakeFirst();
      return Number(result.numDeletedRows);
    },
  };
}
