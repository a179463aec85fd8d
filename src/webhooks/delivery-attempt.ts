/**
 * One webhook attempt (docs/protocol-decisions.md "Webhooks"): the claimed delivery's audit event as JSON,
 * signed with the webhook's secret (webhook-signature.ts), POSTed through the SSRF guard
 * (http/outbound-request.ts), and its outcome recorded in the delivery log (delivered, retried later, given up).
 *
 * The payload is the event as the audit trail stored it: ids, type, time, small details, never a secret (the
 * trail holds none). The log lines name the webhook, the delivery and the attempt, never the URL (its query may
 * carry the receiver's own token) or the secret.
 */
import { KeyDecryptionError } from '../crypto/key-encryption.js';
import type { DeliveryLog } from '../http/delivery-queue.js';
import { OutboundRequestError, postBody } from '../http/outbound-request.js';
import type { AuditEvent, ClaimedWebhookDelivery, Storage } from '../storage/storage.js';
import { nextStep, type AttemptResult } from './retry-schedule.js';
import { signWebhookPayload, WEBHOOK_ID_HEADER, WEBHOOK_SIGNATURE_HEADER, WEBHOOK_TIMESTAMP_HEADER } from './webhook-signature.js';
import { webhookSecretEncryption } from './webhook-secret.js';

/** Latch's own fault (a secret this LATCH_SECRET cannot decrypt): not an attempt; looked at again after this. */
const POSTPONE_SECONDS = 300;

export interface DeliveryAttemptDeps {
  storage: Storage;
  /** LATCH_SECRET, which the webhooks' secrets are encrypted under. */
  latchSecret: string;
  /** `LATCH_OUTBOUND_ALLOW_PRIVATE`. */
  allowPrivateAddresses: boolean;
  /** `LATCH_WEBHOOK_RETRY_SECONDS`. */
  retryDelaysSeconds: readonly number[];
  /** Per attempt: resolution, connection and the answer's headers. */
  timeoutMs: number;
  log: DeliveryLog;
}

/** The body of a delivery: the audit event, in the names of `latch events --json` where they are the same. */
export function webhookPayload(event: AuditEvent): string {
  return JSON.stringify({
    id: event.id,
    type: event.type,
    created_at: event.createdAt.toISOString(),
    user_id: event.userId,
    client_id: event.clientId,
    details: event.details ?? {},
  });
}

async function post(url: string, delivery: ClaimedWebhookDelivery, body: string, secret: string, deps: DeliveryAttemptDeps): Promise<{ result: AttemptResult; error: string | null }> {
  // The time of this attempt: a retry is signed afresh, so that a receiver's age check passes it.
  const timestamp = Math.floor(Date.now() / 1000);
  const headers = {
    [WEBHOOK_ID_HEADER]: String(delivery.id),
    [WEBHOOK_TIMESTAMP_HEADER]: String(timestamp),
    [WEBHOOK_SIGNATURE_HEADER]: signWebhookPayload(secret, timestamp, body),
  };
  try {
    const { status } = await postBody(url, { contentType: 'application/json', body, headers }, { allowPrivateAddresses: deps.allowPrivateAddresses, timeoutMs: deps.timeoutMs });
    if (status >= 200 && status < 300) return { result: { kind: 'answered', status }, error: null };
    const redirect = status >= 300 && status < 400 ? ' (redirects are not followed)' : '';
    return { result: { kind: 'answered', status }, error: `answered HTTP ${status}${redirect}` };
  } catch (error) {
    if (!(error instanceof OutboundRequestError)) throw error;
    const refused = error.failure.kind === 'refused_address' || error.failure.kind === 'invalid_url';
    const hint = error.failure.kind === 'refused_address' ? ' (for tests and development on one machine, LATCH_OUTBOUND_ALLOW_PRIVATE=1 allows it)' : '';
    return { result: { kind: refused ? 'refused' : 'unreachable' }, error: `${error.message}${hint}` };
  }
}

/** Makes one attempt of a claimed delivery and records it: delivered, retried later, or given up. */
export async function attemptDelivery(deps: DeliveryAttemptDeps, delivery: ClaimedWebhookDelivery, now: Date): Promise<void> {
  const { storage } = deps;
  const logFields = { webhookId: delivery.webhookId, deliveryId: delivery.id, eventType: delivery.eventType, attempt: delivery.attempts + 1 };
  const webhook = await storage.webhooks.findById(delivery.webhookId);
  if (!webhook || webhook.disabled || !delivery.event) {
    // Deleted meanwhile (its log goes with it), disabled, or the event is gone: nothing to send.
    const error = !delivery.event ? 'the audit event is no longer stored' : 'the webhook is disabled';
    await storage.webhookDeliveries.recordAttempt(delivery.id, delivery.claimToken, { outcome: 'given_up', at: now, status: null, error });
    return;
  }
  let secret: string;
  try {
    secret = webhookSecretEncryption(deps.latchSecret).decrypt(webhook.secretEncrypted, webhook.id);
  } catch (error) {
    if (!(error instanceof KeyDecryptionError)) throw error;
    // A process started with another LATCH_SECRET: the operator's to fix; the delivery waits rather than being lost.
    deps.log.warn({ ...logFields }, 'a webhook secret cannot be decrypted with this LATCH_SECRET; the delivery waits');
    await storage.webhookDeliveries.recordAttempt(delivery.id, delivery.claimToken, { outcome: 'postponed', nextAttemptAt: new Date(now.getTime() + POSTPONE_SECONDS * 1000) });
    return;
  }

  const outcome = await post(webhook.url, delivery, webhookPayload(delivery.event), secret, deps);
  const attemptedAt = new Date();
  const status = outcome.result.kind === 'answered' ? outcome.result.status : null;
  const step = nextStep(outcome.result, delivery.attempts + 1, deps.retryDelaysSeconds);
  if (step.step === 'delivered') {
    await storage.webhookDeliveries.recordAttempt(delivery.id, delivery.claimToken, { outcome: 'delivered', at: attemptedAt, status: status! });
    deps.log.info({ ...logFields, status }, 'webhook delivered');
    return;
  }
  const error = outcome.error ?? 'not accepted';
  if (step.step === 'retry') {
    const nextAttemptAt = new Date(now.getTime() + step.afterSeconds * 1000);
    await storage.webhookDeliveries.recordAttempt(delivery.id, delivery.claimToken, { outcome: 'retry', at: attemptedAt, status, error, nextAttemptAt });
    deps.log.info({ ...logFields, status, reason: error, retryInSeconds: step.afterSeconds }, 'webhook not accepted; it will be retried');
    return;
  }
  await storage.webhookDeliveries.recordAttempt(delivery.id, delivery.claimToken, { outcome: 'given_up', at: attemptedAt, status, error });
  deps.log.info({ ...logFields, status, reason: error }, 'webhook given up');
}
