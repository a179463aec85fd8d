/**
 * OIDC Back-Channel Logout 1.0 delivery (docs/protocol-decisions.md "Back-channel logout"): told when browser
 * sessions end (session/session-endings.ts), it queues one delivery per ended session and client that
 * registered a backchannel_logout_uri (§2.2), and sends them (delivery-attempt.ts).
 *
 * - The queue is a table (storage backchannelLogoutDeliveries), so a delivery outlives a restart, worked as
 *   every outbound queue is (http/delivery-queue.ts): every process of a deployment works it, each claiming due
 *   rows with one conditional update, so no attempt is sent twice.
 * - The first attempts run at once, and the person's logout waits for them up to INLINE_WAIT_MS, so that an
 *   app that answers quickly has ended its own session before the browser lands on it (ory/hydra#3540 is the
 *   complaint when it has not). Slower ones finish in the background.
 * - Every POLL_INTERVAL_MS the process looks for due retries (one indexed read when there are none).
 */
import { DeliveryQueue, type DeliveryLog } from '../../http/delivery-queue.js';
import type { SigningKeyCache } from '../../keys/signing-key-cache.js';
import type { SessionEndEvent, SessionEndings } from '../../session/session-endings.js';
import { isDatabaseUnavailable } from '../../storage/database-unavailable.js';
import type { ClaimedBackchannelLogoutDelivery, NewBackchannelLogoutDelivery, Storage } from '../../storage/storage.js';
import { attemptDelivery } from './delivery-attempt.js';

/** How long a person's logout waits for the first attempts (they go on in the background after it). */
const INLINE_WAIT_MS = 2000;
const POLL_INTERVAL_MS = 5000;

export interface BackchannelLogoutOptions {
  storage: Storage;
  signingKeys: SigningKeyCache;
  issuer: string;
  /** `LATCH_OUTBOUND_ALLOW_PRIVATE`. */
  allowPrivateAddresses: boolean;
  log?: DeliveryLog;
}

export class BackchannelLogout extends DeliveryQueue<ClaimedBackchannelLogoutDelivery> implements SessionEndings {
  constructor(private readonly options: BackchannelLogoutOptions) {
    super({
      names: { deliveries: 'back-channel logout deliveries', anAttempt: 'a back-channel logout attempt' },
      pollIntervalMs: POLL_INTERVAL_MS,
      claimDue: (now, claimedUntil, claimToken, limit) => options.storage.backchannelLogoutDeliveries.claimDue(now, claimedUntil, claimToken, limit),
      attempt: (delivery, now, log) => attemptDelivery({ ...options, log }, delivery, now),
      ...(options.log && { log: options.log }),
    });
  }

  /** SessionEndings: queues a delivery per ended session and client with a back-channel URI, and starts them. */
  async ended(event: SessionEndEvent): Promise<void> {
    if (this.isStopped) return;
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
}
