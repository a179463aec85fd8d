/**
 * A fixed-window limit on an action (sign-ups per address, mails per account), over the same shared counter as
 * the sign-in throttle, so that Latch cannot be used to flood a mailbox or to enumerate accounts quickly.
 */
import type { AttemptCounter } from './sign-in-throttle.js';

export class ActionLimiter {
  constructor(
    private readonly counter: AttemptCounter,
    private readonly action: string,
    private readonly maxPerWindow: number,
    private readonly windowSeconds: number,
  ) {}

  /** Counts one attempt; true while the key is within its limit. */
  async allow(key: string, now = new Date()): Promise<boolean> {
    const count = await this.counter.increment(`${this.action}:${key.trim().toLowerCase()}`, this.windowSeconds, now);
    return count <= this.maxPerWindow;
  }
}
