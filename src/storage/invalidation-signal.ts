/**
 * "Something a cached read depends on has changed", across every process serving one database: what keeps
 * the per-process caches of cached-storage.ts truthful. Each engine that can offer one cheaply implements it:
 * SQLite with a counter file beside the database (sqlite/file-signal.ts); PostgreSQL, whose deployments span
 * machines, with LISTEN/NOTIFY and a bound on staleness (postgres/notify-signal.ts).
 *
 * Order is what makes cached reads correct: a writer commits, then calls changed(); a reader takes current(),
 * then reads the database, and tags what it caches with that value. An entry is used only while current()
 * answers the same, so anything cached before a change is dropped by the first read after it.
 */
export interface InvalidationSignal {
  /**
   * The current generation: any value other than one read before means "what was cached may be stale".
   * May wait until it can be read at the right moment (SQLite: the end of the event loop's turn).
   */
  current(): bigint | Promise<bigint>;
  /**
   * Where a change can go unheard (PostgreSQL: a notification lost with its connection, or with a process that died
   * between its commit and its NOTIFY): the longest an entry may be used after the database was read for it, and
   * the clock that measures it. Kept per entry (cached-reads.ts), so that entries age out one by one, each a full
   * bound after its own read, instead of all at once. Absent where every change is heard (SQLite's file).
   */
  readonly entryLifetime?: { readonly maxAgeMs: number; readonly clock: () => number };
  /** After a committed write that may change a cached read: tells every process, this one at once. */
  changed(): void;
  /** Stops; PostgreSQL's first sends the notifications changed() has still in flight, so that a command which ends
   * right after its write (`latch admin revoke`) has told the other processes before it returns. */
  close(): void | Promise<void>;
}
