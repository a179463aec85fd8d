/**
 * Kysely's PostgreSQL dialect with an introspector that reads only the connection's current schema.
 *
 * Kysely's migrator asks the introspector whether its bookkeeping tables exist. Kysely's own PostgreSQL
 * introspector answers by reading every table of every schema in the database and calling
 * `pg_get_serial_sequence` on each: when another schema is dropped at that moment (another Latch deployment
 * or test run sharing the database), the lookup of a name that no longer exists fails the migration with
 * 3F000 or 42P01, though nothing of Latch's was touched. Latch's tables all live in one schema (the
 * search_path, LATCH_DATABASE_SCHEMA), so that is all it reads: table names from information_schema, without
 * column metadata, which nothing in Latch asks for.
 */
import { PostgresDialect, PostgresIntrospector, sql, type DatabaseIntrospector, type DatabaseMetadata, type Kysely, type SchemaMetadata, type TableMetadata } from 'kysely';

class OwnSchemaIntrospector implements DatabaseIntrospector {
  readonly #db: Kysely<unknown>;
  readonly #schemas: PostgresIntrospector;

  constructor(db: Kysely<unknown>) {
    this.#db = db;
    this.#schemas = new PostgresIntrospector(db);
  }

  /** The names of the schemas (pg_namespace only: no per-table lookups that a concurrent drop could fail). */
  getSchemas(): Promise<SchemaMetadata[]> {
    return this.#schemas.getSchemas();
  }

  /** The tables and views of the current schema, Kysely's own included; `columns` is always empty. */
  async getTables(): Promise<TableMetadata[]> {
    const { rows } = await sql<{ schema: string; name: string; type: string }>`
      select table_schema as schema, table_name as name, table_type as type
      from information_schema.tables
      where table_schema = current_schema()
      order by table_name`.execute(this.#db);
    return rows.map((row) => ({ schema: row.schema, name: row.name, isView: row.type === 'VIEW', columns: [] }));
  }

  async getMetadata(): Promise<DatabaseMetadata> {
    return { tables: await this.getTables() };
  }
}

export class OwnSchemaPostgresDialect extends PostgresDialect {
  override createIntrospector(db: Kysely<any>): DatabaseIntrospector {
    return new OwnSchemaIntrospector(db);
  }
}
