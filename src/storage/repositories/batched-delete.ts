/**
 * Cleanup deletes in batches. One `DELETE … WHERE expires_at < ?` over a million expired rows holds SQLite's
 * write lock (and a PostgreSQL transaction) for seconds, and every code exchange waits behind it. With a
 * `limit`, at most that many rows (the oldest first) go per statement, and the caller repeats until fewer
 * than `limit` went (server.ts), letting other writes in between.
 */
import type { Kysely } from 'kysely';
import type { Database } from '../database.js';

/** Narrows a query of `table` to the rows to delete (the same condition for the batch's selection and the delete). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- one helper for every table's key and columns
type Condition = (query: any) => any;

/**
 * `order` is the indexed column the condition ranges over (expires_at, created_at): a batch is then read from
 * that index, touching only the rows it deletes. Ordered by the key instead, SQLite walked the key index past
 * every live row to find each batch, holding the write lock all the while.
 */
export async function deleteRows(db: Kysely<Database>, table: keyof Database, key: string, order: string, condition: Condition, limit?: number): Promise<number> {
  const anyDb = db as unknown as Kysely<any>;
  const query =
    limit === undefined
      ? condition(anyDb.deleteFrom(table))
      : anyDb.deleteFrom(table).where(key, 'in', condition(anyDb.selectFrom(table).select(key)).orderBy(order).limit(limit));
  const result = await query.executeTakeFirst();
  return Number(result.numDeletedRows);
}
