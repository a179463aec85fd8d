/**
 * The worker of a queue of outbound deliveries kept in a table (webhooks: webhooks/webhook-deliveries.ts;
 * back-channel logouts: oauth/backchannel-logout/backchannel-logout.ts). What each delivery is, how it is
 * attempted and what an attempt leads to are theirs; the queue's mechanics are here, once:
 *
 * - Every serving process works the queue: a round claims due rows with one conditional update (claimDue), so
 *   that no attempt is sent twice, and attempts them together; rounds go on while they come back full. A process
 *   that dies holding a claim frees it when the claim runs out, and another round picks the rows up again.
 * - It looks for due deliveries every `pollIntervalMs` (one indexed read when there are none), and at start (what
 *   a previous process left).
 * - While the database is away (or not migrated yet), one warning a minute without a stack (the outage is the
 *   operator's to fix), not one a round; the deliveries wait in the queue.
 */
import { randomUUID } from 'node:crypto';
import { isDatabaseUnavailable } from '../storage/database-unavailable.js';

/** A claim outlasts an attempt by far; a process that died holding one frees it after this. */
const CLAIM_SECONDS = 60;
/** Deliveries claimed and attempted together in one round. */
const CLAIM_BATCH = 20;
/** While the database is away, one warning a minute, not one a round. */
const QUEUE_WARNING_INTERVAL_MS = 60_000;

export interface DeliveryLog {
  info(object: object, message: string): void;
  warn(object: object, message: string): void;
}

export interface DeliveryQueueOptions<Claimed> {
  /** What the log calls the queue's deliveries and one attempt: 'webhook deliveries', 'a webhook attempt'. */
  names: { deliveries: string; anAttempt: string };
  pollIntervalMs: number;
  /** Claims up to `limit` deliveries due at `now` until `claimedUntil`, marked with `claimToken`. */
  claimDue(now: Date, claimedUntil: Date, claimToken: string, limit: number): Promise<Claimed[]>;
  /** Makes one attempt of a claimed delivery and records what came of it. */
  attempt(delivery: Claimed, now: Date, log: DeliveryLog): Promise<void>;
  log?: DeliveryLog;
}

const silentLog: DeliveryLog = { info() {}, warn() {} };

export class DeliveryQueue<Claimed> {
  private timer: NodeJS.Timeout | undefined;
  private polling = false;
  private stopped = false;
  private readonly inFlight = new Set<Promise<unknown>>();
  private lastQueueWarningAt = 0;
  protected log: DeliveryLog;

  constructor(private readonly worker: DeliveryQueueOptions<Claimed>) {
    this.log = worker.log ?? silentLog;
  }

  /** Where deliveries are logged, once the app's logger exists. */
  setLogger(log: DeliveryLog): void {
    this.log = log;
  }

  protected get isStopped(): boolean {
    return this.stopped;
  }

  /** Starts looking for due deliveries: once now, then every pollIntervalMs (server.ts, beside the other periodic jobs). */
  start(): void {
    if (this.timer || this.stopped) return;
    this.timer = setInterval(() => this.poll(), this.worker.pollIntervalMs);
    this.timer.unref();
    this.poll();
  }

  private poll(): void {
    if (this.polling || this.stopped) return;
    this.polling = true;
    void this.deliverDue().finally(() => {
      this.polling = false;
    });
  }

  /** Stops polling and waits for the attempts in flight (each bounded by its timeout). */
  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    this.timer = undefined;
    await Promise.allSettled([...this.inFlight]);
  }

  /**
   * Claims and attempts every delivery due at `now` (the queue's clock: tests move it forward to reach the
   * retries without waiting), round after round while rounds come back full. Returns how many were attempted.
   * Never rejects: a failure is logged and the claims run out, so a later round retries.
   */
  deliverDue(now = new Date()): Promise<number> {
    const run = this.runRounds(now).catch((error: unknown) => {
      this.warnQueueUnavailable(error);
      return 0;
    });
    this.inFlight.add(run);
    void run.finally(() => this.inFlight.delete(run));
    return run;
  }

  /** The queue could not be read or written: the operator's to fix (database away, not migrated), so no stack. */
  protected warnQueueUnavailable(error: unknown): void {
    if (Date.now() - this.lastQueueWarningAt < QUEUE_WARNING_INTERVAL_MS) return;
    this.lastQueueWarningAt = Date.now();
    const { message, code } = error as { message?: unknown; code?: unknown };
    this.log.warn({ reason: message, code }, `${this.worker.names.deliveries} could not be processed; they wait in the queue until the database answers`);
  }

  private async runRounds(now: Date): Promise<number> {
    let attempted = 0;
    while (!this.stopped) {
      const claimToken = randomUUID();
      const claimedUntil = new Date(Math.max(now.getTime(), Date.now()) + CLAIM_SECONDS * 1000);
      const claimed = await this.worker.claimDue(now, claimedUntil, claimToken, CLAIM_BATCH);
      const log = this.log;
      const results = await Promise.allSettled(claimed.map((delivery) => this.worker.attempt(delivery, now, log)));
      for (const result of results) {
        if (result.status !== 'rejected') continue;
        if (isDatabaseUnavailable(result.reason)) this.warnQueueUnavailable(result.reason);
        else this.log.warn({ err: result.reason }, `${this.worker.names.anAttempt} failed inside Latch; it is retried once its claim runs out`);
      }
      attempted += claimed.length;
      if (claimed.length < CLAIM_BATCH) break;
    }
    return attempted;
  }
}
