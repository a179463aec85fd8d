/**
 * The per-process caches behind cached-storage.ts: active access tokens with their users (userinfo), clients
 * (every token and authorization request), users (every token response), browser sessions and consents.
 *
 * Under load one indexed read costs more than the rest of a userinfo request (cold CPU caches between
 * requests; BENCHMARKS.md, "Cached reads with a change signal"). These rows are read far more often than they change, so answers are kept here, tagged with the
 * invalidation signal (invalidation-signal.ts) taken before the database was read; an entry is used only while
 * the signal still answers the same. Only found rows are cached, so an insert needs no signal.
 */
import type { InvalidationSignal } from './invalidation-signal.js';
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

/** No signal ever reads as this: what a read in flight tagged before an invalidation cannot be cached under. */
const INVALIDATED = -1n;

/** How many just-issued access tokens a process keeps (CachedReads.issuedTokens). */
export const ISSUED_TOKENS_KEPT = 256;

/** The caches of one database in one process, and the signal they share. */
export class CachedReads {
  /** Keyed by token hash: about 1 KiB an entry. Expiry is the caller's to check on each hit. */
  readonly activeTokens: SignalledCache<{ token: AccessToken; user: User }>;
  /**
   * The access tokens this process has just issued (cached-storage.ts cacheIssuedAccessTokens), keyed by token
   * hash: few, so that an entry is gone before V8 would promote it to its old space (a userinfo request comes
   * right after its exchange, or the token is read from the database as any other).
   */
  readonly issuedTokens: SignalledCache<{ token: AccessToken; user: User }>;
  /** Keyed by client id. */
  readonly clients: SignalledCache<Client>;
  /** Keyed by user id. */
  readonly users: SignalledCache<User>;
  /** Keyed by session hash. Expiry is the caller's to check on each hit. */
  readonly browserSessions: SignalledCache<BrowserSession>;
  /** Keyed by user id and client id. */
  readonly consents: SignalledCache<Consent>;
  lastSignal: bigint = INVALIDATED;
  private readonly caches: Array<{ clear(): void }>;

  constructor(private readonly invalidation: InvalidationSignal) {
    this.activeTokens = new SignalledCache(this, 10_000);
    this.issuedTokens = new SignalledCache(this, ISSUED_TOKENS_KEPT);
    this.clients = new SignalledCache(this, 1_000);
    this.users = new SignalledCache(this, 10_000);
    this.browserSessions = new SignalledCache(this, 10_000);
    this.consents = new SignalledCache(this, 10_000);
    this.caches = [this.activeTokens, this.issuedTokens, this.clients, this.users, this.browserSessions, this.consents];
  }

  /** The signal to pass to get() and, after reading the database, to set(). */
  signal(): bigint | Promise<bigint> {
    const current = this.invalidation.current();
    return typeof current === 'bigint' ? this.seen(current) : current.then(this.seen);
  }

  /** After a write of this process that could change an answer: tells every process, and forgets at once. */
  invalidate(): void {
    this.invalidation.changed();
    for (const cache of this.caches) cache.clear();
    this.lastSignal = INVALIDATED;
  }

  private readonly seen = (signal: bigint): bigint => {
    if (signal !== this.lastSignal) {
      // Everything cached so far is stale: drop it now rather than entry by entry.
      for (const cache of this.caches) cache.clear();
      this.lastSignal = signal;
    }
    return signal;
  };
}

/**
 * A read through one of the caches: the signal first, then the cache, then the database, whose answer is
 * cached when found and `isFresh`. A hit that is no longer fresh (expired) is dropped and read again.
 */
export async function readThrough<T>(
  cached: CachedReads,
  cache: SignalledCache<T>,
  key: string,
  read: () => Promise<T | null>,
  isFresh: (value: T) => boolean = () => true,
): Promise<T | null> {
  const signal = await cached.signal();
  const hit = cache.get(key, signal);
  if (hit !== undefined) {
    if (isFresh(hit)) return hit;
    cache.delete(key);
  }
  const value = await read();
  if (value !== null && isFresh(value)) cache.set(key, value, signal);
  return value;
}
