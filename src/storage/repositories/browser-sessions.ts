import type { Kysely } from 'kysely';
import type { BrowserSessionRow, Database } from '../database.js';
import type { BrowserSession, BrowserSessionRepository } from '../storage.js';
import { precompileQuery, type Parameter } from '../precompiled-query.js';
import type { QueryExecutor } from '../query-executor.js';
import { fromEpochSeconds, fromScopeText, toEpochSeconds, toExpiryEpochSeconds, toScopeText } from './columns.js';
import { deleteRows } from './batched-delete.js';

/** Read by every request that carries a session cookie: compiled once (precompiled-query.ts). */
const findActiveSession = precompileQuery((db, p: Parameter<{ sessionHash: string; now: number }>) =>
  db.selectFrom('browser_sessions').selectAll().where('session_hash', '=', p('sessionHash')).where('expires_at', '>', p('now')),
);

function toBrowserSession(row: BrowserSessionRow): BrowserSession {
  return {
    sessionHash: row.session_hash,
    sid: row.sid,
    userId: Number(row.user_id),
    authTime: fromEpochSeconds(row.auth_time),
    createdAt: fromEpochSeconds(row.created_at),
    lastSeenAt: fromEpochSeconds(row.last_seen_at),
    expiresAt: fromEpochSeconds(row.expires_at),
    userAgent: row.user_agent,
    ipAddress: row.ip_address,
    amr: fromScopeText(row.amr),
  };
}

export function createBrowserSessionRepository(db: Kysely<Database>, executor: QueryExecutor): BrowserSessionRepository {
  return {
    async insert(session) {
      await db
        .insertInto('browser_sessions')
        .values({
          session_hash: session.sessionHash,
          sid: session.sid,
          user_id: session.userId,
          auth_time: toEpochSeconds(session.authTime),
          created_at: toEpochSeconds(session.createdAt),
          last_seen_at: toEpochSeconds(session.lastSeenAt),
          expires_at: toExpiryEpochSeconds(session.expiresAt),
          user_agent: session.userAgent,
          ip_address: session.ipAddress,
          amr: toScopeText(session.amr ?? []),
        })
        .execute();
    },

    async findActive(sessionHash, now) {
      const row = (await executor.read(findActiveSession(db, { sessionHash, now: toEpochSeconds(now) }))).rows[0];
      return row ? toBrowserSession(row) : null;
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
    },

    async renew(oldSessionHash, renewed) {
      const result = await db
        .updateTable('browser_sessions')
        .set({
          session_hash: renewed.sessionHash,
          auth_time: toEpochSeconds(renewed.authTime),
          last_seen_at: toEpochSeconds(renewed.lastSeenAt),
          expires_at: toExpiryEpochSeconds(renewed.expiresAt),
          user_agent: renewed.userAgent,
          ip_address: renewed.ipAddress,
          ...(renewed.amr !== undefined && { amr: toScopeText(renewed.amr) }),
        })
        .where('session_hash', '=', oldSessionHash)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) === 1;
    },

    async end(userId, which) {
      let query = db.selectFrom('browser_sessions').select(['session_hash', 'sid']).where('user_id', '=', userId);
      if ('sessionHash' in which) query = query.where('session_hash', '=', which.sessionHash);
      else if (which.allExcept !== null) query = query.where('session_hash', '!=', which.allExcept);
      const sessions = await query.execute();
      if (sessions.length === 0) return [];
      // Read before the delete: the session clients go with their session (cascade).
      const clients = await db
        .selectFrom('browser_session_clients')
        .select(['sid', 'client_id'])
        .where('sid', 'in', sessions.map((session) => session.sid))
        .orderBy('created_at')
        .execute();
      const ended = await db
        .deleteFrom('browser_sessions')
        .where('session_hash', 'in', sessions.map((session) => session.session_hash))
        .returning('sid')
        .execute();
      return ended.map(({ sid }) => ({ sid, clientIds: clients.filter((client) => client.sid === sid).map((client) => client.client_id) }));
    },

    deleteExpired(before, limit) {
      return deleteRows(db, 'browser_sessions', 'session_hash', 'expires_at', (q) => q.where('expires_at', '<', toEpochSeconds(before)), limit);
    },
  };
}
