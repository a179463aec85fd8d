/**
 * Hot queries, built and compiled by Kysely once per database instead of on every call.
 *
 * Building a Kysely query and compiling it to SQL costs more CPU than SQLite spends running it: the bench's
 * profile of userinfo put about a seventh of the request's CPU in Kysely's builder and compiler. A
 * precompiled query is written with the same typed builder, with named parameters where the values go. The
 * first time it runs against a database it is compiled (so each dialect gets its own SQL, and the statement
 * cache of sqlite-connection.ts keeps SQLite's plan); after that only the parameter values change.
 */
import { SelectQueryNode, type Compilable, type CompiledQuery, type Kysely, type QueryResult } from 'kysely';
import type { Database } from './database.js';
import { sqliteFastPathOf } from './sqlite-fast-path.js';

/** Stands in for a value while the query is compiled; never reaches the database. */
const PARAMETER_MARK = '\u0000latch-parameter:';

type Slot = { readonly name: string } | { readonly value: unknown };

/** Returns a placeholder for the named value, typed as that value so the builder checks it against the column. */
export type Parameter<Values> = <Name extends keyof Values & string>(name: Name) => Values[Name];

/**
 * Runs the query with these values. On a top-level SQLite database it takes the fast path
 * (sqlite-fast-path.ts): a select reads at once on the read connection, anything else joins the next group
 * commit as a unit of its own. On a transaction or PostgreSQL it goes through Kysely.
 */
export interface PrecompiledQuery<Values, Row> {
  (db: Kysely<Database>, values: Values): Promise<QueryResult<Row>>;
  /** The compiled query with these values bound, for running inside a write unit (several statements, one savepoint). */
  withValues(db: Kysely<Database>, values: Values): CompiledQuery<Row>;
}

export function precompileQuery<Values extends Record<string, unknown>, Row>(
  build: (db: Kysely<Database>, parameter: Parameter<Values>) => Compilable<Row>,
): PrecompiledQuery<Values, Row> {
  // Keyed by the database's adapter: a transaction shares its database's adapter, another database has its own.
  const compiledByAdapter = new WeakMap<object, { compiled: CompiledQuery<Row>; slots: Slot[]; isSelect: boolean }>();
  const parameter = ((name: string) => `${PARAMETER_MARK}${name}`) as Parameter<Values>;
  const withValues = (db: Kysely<Database>, values: Values): CompiledQuery<Row> & { isSelect: boolean } => {
    const adapter = db.getExecutor().adapter;
    let entry = compiledByAdapter.get(adapter);
    if (!entry) {
      const compiled = build(db, parameter).compile();
      const slots = compiled.parameters.map((value): Slot =>
        typeof value === 'string' && value.startsWith(PARAMETER_MARK) ? { name: value.slice(PARAMETER_MARK.length) } : { value },
      );
      entry = { compiled, slots, isSelect: SelectQueryNode.is(compiled.query) };
      compiledByAdapter.set(adapter, entry);
    }
    const parameters = entry.slots.map((slot) => {
      if (!('name' in slot)) return slot.value;
      const value = values[slot.name];
      // undefined would bind as NULL on some drivers: a missing value is a bug here, never a query.
      if (value === undefined) throw new TypeError(`precompiled query: no value for parameter ${slot.name}`);
      return value;
    });
    return { ...entry.compiled, parameters, isSelect: entry.isSelect };
  };
  const run = async (db: Kysely<Database>, values: Values): Promise<QueryResult<Row>> => {
    const bound = withValues(db, values);
    const fastPath = sqliteFastPathOf(db);
    if (fastPath) return bound.isSelect ? fastPath.read(bound) : fastPath.write((execute) => execute(bound));
    return db.executeQuery<Row>(bound);
  };
  return Object.assign(run, { withValues });
}
