import type { Kysely } from 'kysely';
import type { Database } from '../database.js';
import type { AvatarImageRepository } from '../storage.js';
import { fromEpochSeconds, toEpochSeconds } from './columns.js';

export function createAvatarImageRepository(db: Kysely<Database>): AvatarImageRepository {
  return {
    async insert(image) {
      await db
        .insertInto('avatar_images')
        .values({
          id: image.id,
          user_id: image.userId,
          content_type: image.contentType,
          data_base64: image.data.toString('base64'),
          byte_length: image.data.length,
          created_at: toEpochSeconds(image.createdAt),
        })
        .execute();
    },

    async findById(id) {
      const row = await db.selectFrom('avatar_images').selectAll().where('id', '=', id).executeTakeFirst();
      if (!row) return null;
      return {
        id: row.id,
        userId: Number(row.user_id),
        contentType: row.content_type,
        data: Buffer.from(row.data_base64, 'base64'),
        createdAt: fromEpochSeconds(row.created_at),
      };
    },

    async deleteByUserExcept(userId, keepId) {
      let query = db.deleteFrom('avatar_images').where('user_id', '=', userId);
      if (keepId !== null) query = query.where('id', '!=', keepId);
      const result = await query.executeTakeFirst();
      return Number(result.numDeletedRows);
    },
  };
}
