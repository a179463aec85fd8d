/**
 * Request rate limits (issue 16 item 6; README "Rate limits"; docs/protocol-decisions.md "Rate limits"): at most
 * `limit` requests per key (a client id, an address) in fixed windows of `windowSeconds`, aligned to the epoch so
 * that every process agrees on where a window starts.
 *
 * The hot path never waits on a store: a request is counted and decided in this process's memory (a Map lookup).
 * When a shared counter is given (the sign-in throttle's, which is Redis when `LATCH_REDIS_URL` is set), what this
 * process counted is added to it in the background every `SYNC_INTERVAL_MS`, and the shared total comes back as
 * the key's count here: N processes then allow about the limit together, give or take what they count between two
 * syncs, instead of N times it.
 */

/** The part of the shared attempt counter (accounts/sign-in-throttle.ts) the limiter uses. */
export interface WindowCounter {
  /** Adds `amount` to the key's window; returns the window's total including it. */
  increment(key: string, windowSeconds: number, now: Date, amount?: number): Promise<number>;
}

export interface RateLimit {
  /** Names the limit in shared keys and in the answer ("token", "authorize"). */
  readonly name: string;
  /** Requests allowed per key and window; 0 turns the limit off. */
  readonly limit: number;
  readonly windowSeconds: number;
}

interface Entry {
  /** The window's index (epoch milliseconds / window length). */
  window: number;
  /** The best known count of this window: the shared total at the last sync plus what was counted here since. */
  count: number;
  /** Counted here and not yet added to the shared counter. */
  unsynced: number;
}

/** How often counts go to the shared counter: a few requests' worth of slack per process, one round trip per key. */
export const SYNC_INTERVAL_MS = 250;
/** Keys kept at most (one attacker spreading over many addresses must not grow memory without end). */
const MAX_KEYS = 100_000;

export class RateLimiter {
  private readonly entries = new Map<string, Entry>();
  private readonly dirty = new Set<string>();
  private readonly windowMs: number;
  private lastSweep = -1;
  /** Until when (epoch ms) some key may be over its limit: before any is, wait() answers without a lookup. */
  private blockedUntil = 0;

  constructor(
    readonly rule: RateLimit,
    private readonly shared?: WindowCounter,
    private readonly maxKeys = MAX_KEYS,
  ) {
    this.windowMs = rule.windowSeconds * 1000;
  }

  get enabled(): boolean {
    return this.rule.limit > 0;
  }

  /** Seconds until the window of `nowMs` ends, at least 1: the answer's Retry-After (RFC 9110 §10.2.3). */
  retryAfterSeconds(nowMs: number): number {
    return Math.max(1, Math.ceil(((Math.floor(nowMs / this.windowMs) + 1) * this.windowMs - nowMs) / 1000));
  }

  /** False while no key can be over its limit: then there is nothing to look up (the hot path's common case). */
  mayRefuse(nowMs: number): boolean {
    return nowMs < this.blockedUntil;
  }

  /** Whether the key is over its limit now, without counting: 0 when not, else the seconds to wait. */
  wait(key: string, nowMs: number): number {
    if (!this.enabled || nowMs >= this.blockedUntil) return 0;
    const entry = this.entries.get(key);
    if (!entry || entry.window !== Math.floor(nowMs / this.windowMs) || entry.count < this.rule.limit) return 0;
    return this.retryAfterSeconds(nowMs);
  }

  /**
   * Counts one request of the key: 0 when it is within the limit, else the seconds to wait (a refused request is
   * not counted, so that a client that backs off gets its full allowance in the next window).
   */
  hit(key: string, nowMs: number): number {
    if (!this.enabled) return 0;
    const window = Math.floor(nowMs / this.windowMs);
    let entry = this.entries.get(key);
    if (!entry || entry.window !== window) {
      if (!entry) this.makeRoom(window);
      entry = { window, count: 0, unsynced: 0 };
      this.entries.set(key, entry);
    }
    if (entry.count >= this.rule.limit) return this.retryAfterSeconds(nowMs);
    entry.count += 1;
    if (entry.count >= this.rule.limit) this.noteFull(window);
    if (this.shared) {
      entry.unsynced += 1;
      this.dirty.add(key);
    }
    return 0;
  }

  private noteFull(window: number): void {
    this.blockedUntil = Math.max(this.blockedUntil, (window + 1) * this.windowMs);
  }

  private makeRoom(window: number): void {
    if (this.entries.size < this.maxKeys) return;
    // Ended windows first, at most once a window (a sweep is O(keys)); then the oldest key.
    if (this.lastSweep !== window) {
      this.lastSweep = window;
      for (const [key, entry] of this.entries) if (entry.window < window) this.entries.delete(key);
    }
    if (this.entries.size >= this.maxKeys) {
      const oldest = this.entries.keys().next().value;
      if (oldest !== undefined) this.entries.delete(oldest);
    }
  }

  /** Adds what was counted here to the shared counter, and takes its totals back. */
  async sync(now = new Date()): Promise<void> {
    const shared = this.shared;
    if (!shared || this.dirty.size === 0) return;
    const keys = [...this.dirty];
    this.dirty.clear();
    await Promise.all(
      keys.map(async (key) => {
        const entry = this.entries.get(key);
        if (!entry || entry.unsynced === 0) return;
        const { window } = entry;
        const amount = entry.unsynced;
        entry.unsynced = 0;
        try {
          const total = await shared.increment(`rate:${this.rule.name}:${key}:${window}`, this.rule.windowSeconds, now, amount);
          // The entry may have moved to a new window meanwhile; then this total is of the old one.
          if (entry.window === window) {
            entry.count = Math.max(entry.count, total + entry.unsynced);
            if (entry.count >= this.rule.limit) this.noteFull(window);
          }
        } catch {
          // The shared counter falls back to memory itself (redis-attempt-counter.ts); a throw loses only these
          // counts' sharing, never the limit in this process.
        }
      }),
    );
  }

  /** Forgets every ended window (called from the sync timer, so that memory follows the live keys). */
  sweep(nowMs: number): void {
    const window = Math.floor(nowMs / this.windowMs);
    for (const [key, entry] of this.entries) if (entry.window < window && entry.unsynced === 0) this.entries.delete(key);
  }

  /** Keys held (for tests). */
  get size(): number {
    return this.entries.size;
  }
}
