/**
 * Sign-in throttling: failed attempts counted per account and per client address in fixed windows
 * (OWASP Authentication Cheat Sheet, "account lockout" as a temporary throttle, not a permanent lock).
 *
 * The counter store is an interface so that several processes can share it (Redis); the in-memory one
 * here is per process, which the README states.
 */

export interface AttemptCounter {
  /** Failures recorded under key in the current window. */
  count(key: string, now: Date): Promise<number>;
  /**
   * Records one failure (or `amount`: a rate limiter's counts of a process, http/rate-limiter.ts); returns the
   * count in the current window including it.
   */
  increment(key: string, windowSeconds: number, now: Date, amount?: number): Promise<number>;
  reset(key: string): Promise<void>;
}

/** A window still open in memory, as handed over to a shared store that has come back (redis-attempt-counter.ts). */
export interface OpenWindow {
  key: string;
  count: number;
  /** Epoch milliseconds at which the window ends. */
  resetAt: number;
}

export interface MemoryAttemptCounter extends AttemptCounter {
  /** Removes and returns every window still open at `now`. */
  drain(now: Date): OpenWindow[];
  /** Takes drained windows back (a shared store refused them): counts add to what was counted since. */
  restore(windows: OpenWindow[]): void;
}

export function createMemoryAttemptCounter(maxKeys = 100_000): MemoryAttemptCounter {
  const windows = new Map<string, { count: number; resetAt: number }>();
  const live = (key: string, now: Date) => {
    const entry = windows.get(key);
    if (entry && entry.resetAt <= now.getTime()) {
      windows.delete(key);
      return undefined;
    }
    return entry;
  };
  return {
    async count(key, now) {
      return live(key, now)?.count ?? 0;
    },
    async increment(key, windowSeconds, now, amount = 1) {
      const entry = live(key, now);
      if (entry) return (entry.count += amount);
      // Bound memory under an attack from many addresses: drop the oldest window.
      if (windows.size >= maxKeys) {
        const oldest = windows.keys().next().value;
        if (oldest !== undefined) windows.delete(oldest);
      }
      windows.set(key, { count: amount, resetAt: now.getTime() + windowSeconds * 1000 });
      return amount;
    },
    async reset(key) {
      windows.delete(key);
    },
    drain(now) {
      const open: OpenWindow[] = [];
      for (const [key, { count, resetAt }] of windows) if (resetAt > now.getTime()) open.push({ key, count, resetAt });
      windows.clear();
      return open;
    },
    restore(open) {
      for (const { key, count, resetAt } of open) {
        const entry = windows.get(key);
        if (entry) entry.count += count;
        else windows.set(key, { count, resetAt });
      }
    },
  };
}

export interface SignInThrottleLimits {
  maxFailuresPerAccount: number;
  maxFailuresPerAddress: number;
  windowSeconds: number;
}

export class SignInThrottle {
  constructor(
    private readonly counter: AttemptCounter,
    private readonly limits: SignInThrottleLimits,
  ) {}

  private static accountKey(email: string): string {
    return `signin:account:${email.trim().toLowerCase()}`;
  }

  private static addressKey(address: string): string {
    return `signin:address:${address}`;
  }

  async isThrottled(email: string, address: string, now: Date): Promise<boolean> {
    const [accountFailures, addressFailures] = await Promise.all([
      this.counter.count(SignInThrottle.accountKey(email), now),
      this.counter.count(SignInThrottle.addressKey(address), now),
    ]);
    return accountFailures >= this.limits.maxFailuresPerAccount || addressFailures >= this.limits.maxFailuresPerAddress;
  }

  async recordFailure(email: string, address: string, now: Date): Promise<void> {
    await Promise.all([
      this.counter.increment(SignInThrottle.accountKey(email), this.limits.windowSeconds, now),
      this.counter.increment(SignInThrottle.addressKey(address), this.limits.windowSeconds, now),
    ]);
  }

  /** A successful sign-in clears the account's failures (not the address's: one good account must not unlock a spray). */
  async recordSuccess(email: string): Promise<void> {
    await this.counter.reset(SignInThrottle.accountKey(email));
  }
}
