import type { Kysely, Selectable } from 'kysely';
import type { Database, EmailLinksTable } from '../database.js';
import type { EmailLink, EmailLinkPurpose, EmailLinkRepository } from '../storage.js';
import { fromEpochSeconds, fromNullableEpochSeconds, toEpochSeconds } from './columns.js';
import { deleteRows } from './batched-delete.js';

function toEmailLink(row: Selectable<EmailLinksTable>): EmailLink {
  return {
    tokenHash: row.token_hash,
    userId: Number(row.user_id),
    purpose: row.purpose as EmailLinkPurpose,
    email: row.email,
    createdAt: fromEpochSeconds(row.created_at),
    expiresAt: fromEpochSeconds(row.expires_at),
    usedAt: fromNullableEpochSeconds(row.used_at),
  };
}

export function createEmailLinkRepository(db: Kysely<Database>): EmailLinkRepository {
  return {
    async insert(link) {
      await db
        .insertInto('email_links')
        .values({
          token_hash: link.tokenHash,
          user_id: link.userId,
          purpose: link.purpose,
          email: link.email,
          created_at: toEpochSeconds(link.createdAt),
          expires_at: toEpochSeconds(link.expiresAt),
          used_at: null,
        })
        .execute();
    },

    async findUsable(tokenHash, purpose, now) {
      const row = await db
        .selectFrom('email_links')
        .selectAll()
        .where('token_hash', '=', tokenHash)
        .where('purpose', '=', purpose)
        .where('used_at', 'is', null)
        .where('expires_at', '>', toEpochSeconds(now))
        .executeTakeFirst();
      return row ? toEmailLink(row) : null;
    },

    async consume(tokenHash, purpose, now) {
      // One conditional update: of two racing uses, only one sees the row come back.
      const row = await db
        .updateTable('email_links')
        .set({ used_at: toEpochSeconds(now) })
        .where('token_hash', '=', tokenHash)
        .where('purpose', '=', purpose)
        .where('used_at', 'is', null)
        .where('expires_at', '>', toEpochSeconds(now))
        .returningAll()
        .executeTakeFirst();
      return row ? toEmailLink(row) : null;
    },

    async invalidateByUser(userId, purpose, now) {
      const result = await db
        .updateTable('email_links')
        .set({ used_at: toEpochSeconds(now) })
        .where('user_id', '=', userId)
        .where('purpose', '=', purpose)
        .where('used_at', 'is', null)
        .executeTakeFirst();
      return Number(result.numUpdatedRows);
    },

    deleteExpired(before, limit) {
      return deleteRows(db, 'email_links', 'token_hash', 'expires_at', (q) => q.where('expires_at', '<', toEpochSeconds(before)), limit);
    },
  };
}
