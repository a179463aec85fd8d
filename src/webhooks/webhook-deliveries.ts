/**
 * The webhook delivery worker of one serving process (docs/protocol-decisions.md "Webhooks"): deliveries wait in
 * a table (queued with their audit event, audit/audit-log.ts), so they outlive a restart, and are worked as every
 * outbound queue is (http/delivery-queue.ts: claimed by one process at a time, looked for every second or as often
 * as the shortest retry delay asks, and at start); each attempt is delivery-attempt.ts.
 */
import { DeliveryQueue, type DeliveryLog } from '../http/delivery-queue.js';
import type { ClaimedWebhookDelivery, Storage } from '../storage/storage.js';
import { attemptDelivery } from './delivery-attempt.js';
import { DEFAULT_RETRY_DELAYS_SECONDS } from './retry-schedule.js';

const POLL_INTERVAL_MS = 1000;
/** Each attempt: resolution, connection and the answer's headers (the receiver should answer at once and work later). */
export const ATTEMPT_TIMEOUT_MS = 10_000;

export interface WebhookDeliveriesOptions {
  storage: Storage;
  latchSecret: string;
  allowPrivateAddresses: boolean;
  retryDelaysSeconds?: readonly number[];
  timeoutMs?: number;
  log?: DeliveryLog;
}

export class WebhookDeliveries extends DeliveryQueue<ClaimedWebhookDelivery> {
  constructor(options: WebhookDeliveriesOptions) {
    const retryDelaysSeconds = options.retryDelaysSeconds ?? DEFAULT_RETRY_DELAYS_SECONDS;
    const shortestRetryMs = Math.min(...retryDelaysSeconds.map((seconds) => seconds * 1000));
    super({
      names: { deliveries: 'webhook deliveries', anAttempt: 'a webhook attempt' },
      pollIntervalMs: Math.max(100, Math.min(POLL_INTERVAL_MS, shortestRetryMs)),
      claimDue: (now, claimedUntil, claimToken, limit) => options.storage.webhookDeliveries.claimDue(now, claimedUntil, claimToken, limit),
      attempt: (delivery, now, log) =>
        attemptDelivery(
          {
            storage: options.storage,
            latchSecret: options.latchSecret,
            allowPrivateAddresses: options.allowPrivateAddresses,
            retryDelaysSeconds,
            timeoutMs: options.timeoutMs ?? ATTEMPT_TIMEOUT_MS,
            log,
          },
          delivery,
          now,
        ),
      ...(options.log && { log: options.log }),
    });
  }
}
