/**
 * "Something a cached read depends on has changed", across every process serving one database: what keeps
 * the per-process caches of cached-storage.ts truthful. Each engine that can offer one cheaply implements it:
 * SQLite with a counter file beside the database (sqlite/file-signal.ts); PostgreSQL, whose deployments span
 * machines, with LISTEN/NOTIFY from triggers and a heartbeat that bounds how long a change can go unheard
 * (postgres/notify-signal.ts).
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
   * After a committed write that may change a cached read: this process's generation changes at once, and every
   * other process learns of it (SQLite: this call bumps the counter file; PostgreSQL: the write announced itself
   * in its own transaction, and this call only tells this process).
   */
  changed(): void;
  /** Stops listening. */
  close(): void | Promise<void>;
}
