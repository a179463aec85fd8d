/**
 * Hot queries, built and compiled by Kysely once per database instead of on every call.
 *
 * Building a Kysely query and compiling it to SQL costs more CPU than SQLite spends running it: the bench's
 * profile of userinfo put about a seventh of the request's CPU in Kysely's builder and compiler. A
 * precompiled query is written with the same typed builder, with named parameters where the values go. The
 * first time it runs against a database it is compiled (so each dialect gets its own SQL, and the statement
 * cache of sqlite-connection.ts keeps SQLite's plan); after that only the parameter values change.
 */
import type { Compilable, CompiledQuery, Kysely, QueryResult } from 'kysely';
import type { Database } from './database.js';

/** Stands in for a value while the query is compiled; never reaches the database. */
const PARAMETER_MARK = '\u0000latch-parameter:';

type Slot = { readonly name: string } | { readonly value: unknown };

/** Returns a placeholder for the named value, typed as that value so the builder checks it against the column. */
export type Parameter<Values> = <Name extends keyof Values & string>(name: Name) => Values[Name];

export type PrecompiledQuery<Values, Row> = (db: Kysely<Database>, values: Values) => Promise<QueryResult<Row>>;

export function precompileQuery<Values extends Record<string, unknown>, Row>(
  build: (db: Kysely<Database>, parameter: Parameter<Values>) => Compilable<Row>,
): PrecompiledQuery<Values, Row> {
  // Keyed by the database's adapter: a transaction shares its database's adapter, another database has its own.
  const compiledByAdapter = new WeakMap<object, { compiled: CompiledQuery<Row>; slots: Slot[] }>();
  const parameter = ((name: string) => `${PARAMETER_MARK}${name}`) as Parameter<Values>;
  return async (db, values) => {
    const adapter = db.getExecutor().adapter;
    let entry = compiledByAdapter.get(adapter);
    if (!entry) {
      const compiled = build(db, parameter).compile();
      const slots = compiled.parameters.map((value): Slot =>
        typeof value === 'string' && value.startsWith(PARAMETER_MARK) ? { name: value.slice(PARAMETER_MARK.length) } : { value },
      );
      entry = { compiled, slots };
      compiledByAdapter.set(adapter, entry);
    }
    const parameters = entry.slots.map((slot) => {
      if (!('name' in slot)) return slot.value;
      const value = values[slot.name];
      // undefined would bind as NULL on some drivers: a missing value is a bug here, never a query.
      if (value === undefined) throw new TypeError(`precompiled query: no value for parameter ${slot.name}`);
      return value;
    });
    return db.executeQuery<Row>({ ...entry.compiled, parameters });
  };
}
