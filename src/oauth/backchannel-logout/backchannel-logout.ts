/**
 * OIDC Back-Channel Logout 1.0 delivery (docs/protocol-decisions.md "Back-channel logout"): told when browser
 * sessions end (session/session-endings.ts), it queues one delivery per ended session and client that
 * registered a backchannel_logout_uri (§2.2), and sends them (delivery-attempt.ts).
 *
 * - The queue is a table (storage backchannelLogoutDeliveries), so a delivery outlives a restart, and every
 *   process of a deployment works it: each claims due rows with one conditional update, so no attempt is
 *   sent twice.
 * - The first attempts run at once, and the person's logout waits for them up to INLINE_WAIT_MS, so that an
 *   app that answers quickly has ended its own session before the browser lands on it (ory/hydra#3540 is the
 *   complaint when it has not). Slower ones finish in the background.
 * - Every POLL_INTERVAL_MS the process looks for due retries (one indexed read when there are none).
 */
import { randomUUID } from 'node:crypto';
import type { SigningKeyCache } from '../../keys/signing-key-cache.js';
import type { SessionEndEvent, SessionEndings } from '../../session/session-endings.js';
import { isDatabaseUnavailable } from '../../storage/database-unavailable.js';
import type { NewBackchannelLogoutDelivery, Storage } from '../../storage/storage.js';
import { attemptDelivery, type DeliveryLog } from './delivery-attempt.js';

/** How long a person's logout waits for the first attempts (they go on in the background after it). */
const INLINE_WAIT_MS = 2000;
const POLL_INTERVAL_MS = 5000;
/** A claim outlasts an attempt (5 s timeout) by far; a process that died holding one frees it after this. */
const CLAIM_SECONDS = 60;
/** Deliveries claimed and attempted together in one round. */
const CLAIM_BATCH = 20;
/** While the database is away (or not migrated yet), one warning a minute, not one a round. */
const QUEUE_WARNING_INTERVAL_MS = 60_000;

export interface BackchannelLogoutOptions {
  storage: Storage;
  signingKeys: SigningKeyCache;
  issuer: string;
  /** `LATCH_OUTBOUND_ALLOW_PRIVATE`. */
  allowPrivateAddresses: boolean;
  log?: DeliveryLog;
}

const silentLog: DeliveryLog = { info() {}, warn() {} };

export class BackchannelLogout implements SessionEndings {
  private timer: NodeJS.Timeout | undefined;
  private polling = false;
  private stopped = false;
  private readonly inFlight = new Set<Promise<unknown>>();
  private log: DeliveryLog;
  private lastQueueWarningAt = 0;

  constructor(private readonly options: BackchannelLogoutOptions) {
    this.log = options.log ?? silentLog;
  }

  /** Where deliveries are logged, once the app's logger exists. */
  setLogger(log: DeliveryLog): void {
    this.log = log;
  }

  /** SessionEndings: queues a delivery per ended session and client with a back-channel URI, and starts them. */
  async ended(event: SessionEndEvent): Promise<void> {
    if (this.stopped) return;
    try {
      const now = new Date();
      if ((await this.queue(event, now)) === 0) return;
      let waited: NodeJS.Timeout | undefined;
      await Promise.race([this.deliverDue(now), new Promise((resolve) => (waited = setTimeout(resolve, INLINE_WAIT_MS)))]);
      clearTimeout(waited);
    } catch (error) {
      // The sessions have ended whatever happens here (the seam's contract): the person's action succeeds.
      if (isDatabaseUnavailable(error)) this.warnQueueUnavailable(error);
      else this.log.warn({ err: error, userId: event.userId }, 'back-channel logout deliveries could not be queued');
    }
  }

  /** One delivery per ended session and client that registered a backchannel_logout_uri (§2.2). */
  private async queue(event: SessionEndEvent, now: Date): Promise<number> {
    const clientIds = [...new Set(event.sessions.flatMap((session) => session.clientIds))];
    const clients = await Promise.all(clientIds.map((clientId) => this.options.storage.clients.findById(clientId)));
    const listening = new Set(clients.filter((client) => client?.backchannelLogoutUri).map((client) => client!.clientId));
    const deliveries: NewBackchannelLogoutDelivery[] = event.sessions.flatMap((session) =>
      session.clientIds.filter((clientId) => listening.has(clientId)).map((clientId) => ({ clientId, sub: String(event.userId), sid: session.sid, nextAttemptAt: now, createdAt: now })),
    );
    if (deliveries.length === 0) return 0;
    await this.options.storage.backchannelLogoutDeliveries.insert(deliveries);
    this.log.info({ userId: event.userId, reason: event.reason, deliveries: deliveries.length }, 'back-channel logout deliveries queued');
    return deliveries.length;
  }

  /**
   * Starts looking for due deliveries: once now (what a previous process left), then every few seconds
   * (server.ts, beside the other periodic jobs).
   */
  start(): void {
    if (this.timer || this.stopped) return;
    this.timer = setInterval(() => this.poll(), POLL_INTERVAL_MS);
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
   * Never rejects: a failure is logged and the claims run out, so another round picks the rows up again.
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
  private warnQueueUnavailable(error: unknown): void {
    if (Date.now() - this.lastQueueWarningAt < QUEUE_WARNING_INTERVAL_MS) return;
    this.lastQueueWarningAt = Date.now();
    const { message, code } = error as { message?: unknown; code?: unknown };
    this.log.warn({ reason: message, code }, 'back-channel logout deliveries could not be processed; they wait in the queue until the database answers');
  }

  private async runRounds(now: Date): Promise<number> {
    let attempted = 0;
    while (!this.stopped) {
      const claimToken = randomUUID();
      const claimedUntil = new Date(Math.max(now.getTime(), Date.now()) + CLAIM_SECONDS * 1000);
      const claimed = await this.options.storage.backchannelLogoutDeliveries.claimDue(now, claimedUntil, claimToken, CLAIM_BATCH);
      const deps = { ...this.options, log: this.log };
      const results = await Promise.allSettled(claimed.map((delivery) => attemptDelivery(deps, delivery, now)));
      for (const result of results) {
        if (result.status !== 'rejected') continue;
        if (isDatabaseUnavailable(result.reason)) this.warnQueueUnavailable(result.reason);
        else this.log.warn({ err: result.reason }, 'a back-channel logout attempt failed inside Latch; it is retried once its claim runs out');
      }
      attempted += claimed.length;
      if (claimed.length < CLAIM_BATCH) break;
    }
    return attempted;
  }
}
