/** Which database a `LATCH_DATABASE_URL` names: `sqlite:<path>` (or `sqlite::memory:`), else PostgreSQL. */

/** The SQLite file (or `:memory:`) of a `sqlite:` URL; null for any other URL (PostgreSQL). */
export function sqlitePath(databaseUrl: string): string | null {
  if (!databaseUrl.startsWith('sqlite:')) return null;
  return databaseUrl.slice('sqlite:'.length).replace(/^\/\//, '');
}
