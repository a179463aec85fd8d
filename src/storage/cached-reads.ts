/**
 * Reads cached per process on SQLite, for the hot paths: active access tokens with their users (userinfo),
 * clients (every token and authorization request) and users (every token response).
 *
 * On the embedded database each of those is one indexed read, but under load SQLite's code path costs more
 * than the rest of a userinfo request (cold CPU caches between requests: ~20 µs a read, measured). They are
 * read far more often than they change, so answers are kept here, tagged with the change signal
 * (change-signal.ts) read before the database was: every write that could change an answer (a revocation, a
 * user or client updated or deleted, any Storage.transaction) bumps the signal after it commits, in whichever
 * process it runs, and an entry is used only while the signal reads as it did. Only found rows are cached, so
 * an insert needs no signal. PostgreSQL deployments span machines, where no such cheap signal exists: they
 * read every time.
 */
import { atTurnEnd, currentTurnEnd, isAtTurnEnd } from '../event-loop/turn-end.js';
import type { ChangeSignal } from './change-signal.js';
import type { AccessToken, BrowserSession, Client, Consent, User } from './storage.js';

interface Entry<T> {
  value: T;
  signal: bigint;
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value) && !(value instanceof Date)) {
    for (const member of Object.values(value)) deepFreeze(member);
    Object.freeze(value);
  }
  return value;
}

/** One kind of cached read, bounded: when full, the oldest entry goes first. */
export class SignalledCache<T> {
  private readonly entries = new Map<string, Entry<T>>();

  constructor(
    private readonly reads: CachedReads,
    private readonly maxEntries: number,
  ) {}

  get(key: string, signal: bigint): T | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (entry.signal !== signal) {
      this.entries.delete(key);
      return undefined;
    }
    return entry.value;
  }

  /** Caches a value read from the database, tagged with the signal read before the database was. */
  set(key: string, value: T, signal: bigint): void {
    if (signal !== this.reads.lastSignal) return;
    if (this.entries.size >= this.maxEntries) {
      const oldest = this.entries.keys().next().value;
      if (oldest !== undefined) this.entries.delete(oldest);
    }
    // Shared by every caller from now on: frozen, so that a caller changing it fails loudly instead of
    // changing what the next caller reads.
    this.entries.set(key, { value: deepFreeze(value), signal });
  }

  delete(key: string): void {
    this.entries.delete(key);
  }

  clear(): void {
    this.entries.clear();
  }
}

/** The caches of one database in one process, and the signal they share. */
export class CachedReads {
  /** Keyed by token hash: about 1 KiB an entry. Expiry is the caller's to check on each hit. */
  readonly activeTokens: SignalledCache<{ token: AccessToken; user: User }>;
  /** Keyed by client id. */
  readonly clients: SignalledCache<Client>;
  /** Keyed by user id. */
  readonly users: SignalledCache<User>;
  /** Keyed by session hash. Expiry is the caller's to check on each hit. */
  readonly browserSessions: SignalledCache<BrowserSession>;
  /** Keyed by user id and client id. */
  readonly consents: SignalledCache<Consent>;
  lastSignal: bigint;
  private readonly caches: Array<{ clear(): void }>;

  constructor(private readonly changes: ChangeSignal) {
    this.lastSignal = changes.read();
    this.activeTokens = new SignalledCache(this, 10_000);
    this.clients = new SignalledCache(this, 1_000);
    this.users = new SignalledCache(this, 10_000);
    this.browserSessions = new SignalledCache(this, 10_000);
    this.consents = new SignalledCache(this, 10_000);
    this.caches = [this.activeTokens, this.clients, this.users, this.browserSessions, this.consents];
  }

  /**
   * The signal to pass to get() and, after reading the database, to set(): read once per turn, at the turn's
   * end (event-loop/turn-end.ts), for every request handled in the turn.
   *
   * Why then: a change committed and signalled before a request arrived must be seen by that request. Every
   * request handled in a turn was read from its socket before the turn's end, so one read of the signal
   * there is after all of them. Called during the turn (in an I/O callback, where a later callback of the
   * same turn may read a request that arrived after any read made now), this waits for the turn's end. The
   * pread costs about as much as the rest of a cached read; once per request it was 8% of a code exchange.
   */
  signal(): bigint | Promise<bigint> {
    if (isAtTurnEnd()) {
      const turnEnd = currentTurnEnd();
      if (this.turnSignal?.turnEnd !== turnEnd) this.turnSignal = { value: this.readSignal(), turnEnd };
      return this.turnSignal.value;
    }
    this.atTurnEnd ??= new Promise<bigint>((resolve) =>
      atTurnEnd(() => {
        this.atTurnEnd = undefined;
        resolve(this.signal());
      }),
    );
    return this.atTurnEnd;
  }

  /** After a write of this process that could change an answer: tells every process, and forgets at once. */
  invalidate(): void {
    this.changes.bump();
    this.turnSignal = undefined;
    this.dropAllIfChanged(this.changes.read());
  }

  private turnSignal: { value: bigint; turnEnd: number } | undefined;
  private atTurnEnd: Promise<bigint> | undefined;

  private readSignal(): bigint {
    const signal = this.changes.read();
    this.dropAllIfChanged(signal);
    return signal;
  }

  private dropAllIfChanged(signal: bigint): void {
    if (signal === this.lastSignal) return;
    // Everything cached so far is stale: drop it now rather than entry by entry.
    for (const cache of this.caches) cache.clear();
    this.lastSignal = signal;
  }
}

/**
 * A read through one of the caches, when the database has them (a top-level SQLite database): the signal
 * first, then the cache, then the database, whose answer is cached when found and `isFresh`. A hit that is no
 * longer fresh (expired) is dropped and read again.
 */
export async function readThrough<T>(
  cached: CachedReads | undefined,
  pick: (reads: CachedReads) => SignalledCache<T>,
  key: string,
  read: () => Promise<T | null>,
  isFresh: (value: T) => boolean = () => true,
): Promise<T | null> {
  if (!cached) return read();
  const signal = await cached.signal();
  const cache = pick(cached);
  const hit = cache.get(key, signal);
  if (hit !== undefined) {
    if (isFresh(hit)) return hit;
    cache.delete(key);
  }
  const value = await read();
  if (value !== null && isFresh(value)) cache.set(key, value, signal);
  return value;
}
