/**
 * Hot queries, built and compiled by Kysely once per database instead of on every call.
 *
 * Building a Kysely query and compiling it to SQL costs more CPU than SQLite spends running it
 * (BENCHMARKS.md, "Precompiled hot queries"). A
 * precompiled query is written with the same typed builder, with named parameters where the values go. The
 * first time it runs against a database it is compiled (so each dialect gets its own SQL, and the statement
 * cache of sqlite/connection.ts keeps SQLite's plan); after that only the parameter values change.
 */
import type { Compilable, CompiledQuery, Kysely } from 'kysely';
import type { Database } from './database.js';

/** Stands in for a value while the query is compiled; never reaches the database. */
const PARAMETER_MARK = '\u0000latch-parameter:';

type Slot = { readonly name: string } | { readonly value: unknown };

/** The query ids of compiled precompiled queries: each keeps its one id for every call (Kysely gives others a new one). */
const precompiledIds = new WeakSet<object>();

/**
 * Whether `query` came from a precompiled query: the same SQL text on every call, so worth preparing once per
 * connection (postgres/postgres-executor.ts names these, and only these).
 */
export function isPrecompiled(query: CompiledQuery): boolean {
  return precompiledIds.has(query.queryId);
}

/** Returns a placeholder for the named value, typed as that value so the builder checks it against the column. */
export type Parameter<Values> = <Name extends keyof Values & string>(name: Name) => Values[Name];

/**
 * The compiled query with these values bound. Pure: it runs nowhere by itself; the repository hands it to
 * its executor (query-executor.ts), which decides how (a read at once, a group commit, a transaction).
 */
export type PrecompiledQuery<Values, Row> = (db: Kysely<Database>, values: Values) => CompiledQuery<Row>;

export function precompileQuery<Values extends Record<string, unknown>, Row>(
  build: (db: Kysely<Database>, parameter: Parameter<Values>) => Compilable<Row>,
): PrecompiledQuery<Values, Row> {
  // Keyed by the database's adapter: a transaction shares its database's adapter, another database has its own.
  const compiledByAdapter = new WeakMap<object, { compiled: CompiledQuery<Row>; slots: Slot[] }>();
  const parameter = ((name: string) => `${PARAMETER_MARK}${name}`) as Parameter<Values>;
  return (db, values) => {
    const adapter = db.getExecutor().adapter;
    let entry = compiledByAdapter.get(adapter);
    if (!entry) {
      const compiled = build(db, parameter).compile();
      const slots = compiled.parameters.map((value): Slot =>
        typeof value === 'string' && value.startsWith(PARAMETER_MARK) ? { name: value.slice(PARAMETER_MARK.length) } : { value },
      );
      entry = { compiled, slots };
      precompiledIds.add(compiled.queryId);
      compiledByAdapter.set(adapter, entry);
    }
    const parameters = entry.slots.map((slot) => {
      if (!('name' in slot)) return slot.value;
      const value = values[slot.name];
      // undefined would bind as NULL on some drivers: a missing value is a bug here, never a query.
      if (value === undefined) throw new TypeError(`precompiled query: no value for parameter ${slot.name}`);
      return value;
    });
    return { ...entry.compiled, parameters };
  };
}
