/**
 * The webhook delivery worker of one serving process (docs/protocol-decisions.md "Webhooks"), in the manner of
 * back-channel logout (oauth/backchannel-logout/backchannel-logout.ts): deliveries wait in a table (queued with
 * their audit event, audit/audit-log.ts), so they outlive a restart; every process works the queue, each claiming
 * due rows with one conditional update, so no attempt is sent twice; a process that dies holding a claim frees
 * it when the claim runs out.
 *
 * It looks for due deliveries every second (one indexed read when there are none), or as often as the
 * shortest retry delay asks, and at start (what a previous process left).
 */
import { randomUUID } from 'node:crypto';
import { isDatabaseUnavailable } from '../storage/database-unavailable.js';
import type { Storage } from '../storage/storage.js';
import { attemptDelivery, type DeliveryAttemptDeps, type DeliveryLog } from './delivery-attempt.js';
import { DEFAULT_RETRY_DELAYS_SECONDS } from './retry-schedule.js';

const POLL_INTERVAL_MS = 1000;
/** Each attempt: resolution, connection and the answer's headers (the receiver should answer at once and work later). */
export const ATTEMPT_TIMEOUT_MS = 10_000;
/** A claim outlasts an attempt by far; a process that died holding one frees it after this. */
const CLAIM_SECONDS = 60;
/** Deliveries claimed and attempted together in one round. */
const CLAIM_BATCH = 20;
/** While the database is away (or not migrated yet), one warning a minute, not one a round. */
const QUEUE_WARNING_INTERVAL_MS = 60_000;

export interface WebhookDeliveriesOptions {
  storage: Storage;
  latchSecret: string;
  allowPrivateAddresses: boolean;
  retryDelaysSeconds?: readonly number[];
  timeoutMs?: number;
  log?: DeliveryLog;
}

const silentLog: DeliveryLog = { info() {}, warn() {} };

export class WebhookDeliveries {
  private timer: NodeJS.Timeout | undefined;
  private polling = false;
  private stopped = false;
  private readonly inFlight = new Set<Promise<unknown>>();
  private log: DeliveryLog;
  private lastQueueWarningAt = 0;

  constructor(private readonly options: WebhookDeliveriesOptions) {
    this.log = options.log ?? silentLog;
  }

  setLogger(log: DeliveryLog): void {
    this.log = log;
  }

  start(): void {
    if (this.timer || this.stopped) return;
    const shortestRetryMs = Math.min(...(this.options.retryDelaysSeconds ?? DEFAULT_RETRY_DELAYS_SECONDS).map((seconds) => seconds * 1000));
    this.timer = setInterval(() => this.poll(), Math.max(100, Math.min(POLL_INTERVAL_MS, shortestRetryMs)));
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
   * Claims and attempts every delivery due at `now`, round after round while rounds come back full. Returns how
   * many were attempted. Never rejects: a failure is logged and the claims run out, so a later round retries.
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

  private warnQueueUnavailable(error: unknown): void {
    if (Date.now() - this.lastQueueWarningAt < QUEUE_WARNING_INTERVAL_MS) return;
    this.lastQueueWarningAt = Date.now();
    const { message, code } = error as { message?: unknown; code?: unknown };
    this.log.warn({ reason: message, code }, 'webhook deliveries could not be processed; they wait in the queue until the database answers');
  }

  private async runRounds(now: Date): Promise<number> {
    const deps: DeliveryAttemptDeps = {
      storage: this.options.storage,
      latchSecret: this.options.latchSecret,
      allowPrivateAddresses: this.options.allowPrivateAddresses,
      retryDelaysSeconds: this.options.retryDelaysSeconds ?? DEFAULT_RETRY_DELAYS_SECONDS,
      timeoutMs: this.options.timeoutMs ?? ATTEMPT_TIMEOUT_MS,
      log: this.log,
    };
    let attempted = 0;
    while (!this.stopped) {
      const claimToken = randomUUID();
      const claimedUntil = new Date(Math.max(now.getTime(), Date.now()) + CLAIM_SECONDS * 1000);
      const claimed = await this.options.storage.webhookDeliveries.claimDue(now, claimedUntil, claimToken, CLAIM_BATCH);
      const results = await Promise.allSettled(claimed.map((delivery) => attemptDelivery(deps, delivery, now)));
      for (const result of results) {
        if (result.status !== 'rejected') continue;
        if (isDatabaseUnavailable(result.reason)) this.warnQueueUnavailable(result.reason);
        else this.log.warn({ err: result.reason }, 'a webhook attempt failed inside Latch; it is retried once its claim runs out');
      }
      attempted += claimed.length;
      if (claimed.length < CLAIM_BATCH) break;
    }
    return attempted;
  }
}
