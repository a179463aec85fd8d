/**
 * How a webhook delivery is signed (docs/protocol-decisions.md "Webhooks"), in the Stripe and Standard Webhooks
 * manner: `Latch-Webhook-Signature: v1=<hex HMAC-SHA-256 of "<timestamp>.<body>">`, keyed with the webhook's
 * secret (the whole `whsec_…` string, as UTF-8), `Latch-Webhook-Timestamp` the Unix time in seconds of the
 * attempt. The timestamp is inside the signed text, so a receiver that refuses old timestamps refuses a replay of
 * a captured delivery: its signature cannot be moved to a fresh timestamp (Logto signs the body alone, and a
 * captured delivery can be replayed forever).
 *
 * `verifyWebhookSignature` is what a receiver does, here for Latch's tests and as the documented reference.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

export const WEBHOOK_ID_HEADER = 'Latch-Webhook-Id';
export const WEBHOOK_TIMESTAMP_HEADER = 'Latch-Webhook-Timestamp';
export const WEBHOOK_SIGNATURE_HEADER = 'Latch-Webhook-Signature';
/** The only scheme so far; a later one would be sent beside it (`v1=…, v2=…`) while receivers move over. */
export const SIGNATURE_SCHEME = 'v1';
/** What a receiver should accept between the timestamp and its own clock, either way (Stripe's default too). */
export const RECOMMENDED_TOLERANCE_SECONDS = 300;

export function signWebhookPayload(secret: string, timestampSeconds: number, body: string): string {
  return `${SIGNATURE_SCHEME}=${createHmac('sha256', secret).update(`${timestampSeconds}.${body}`).digest('hex')}`;
}

export type SignatureVerdict = { valid: true } | { valid: false; reason: 'malformed' | 'too_old' | 'mismatch' };

/**
 * A receiver's check: the timestamp within `toleranceSeconds` of `now`, and one `v1=` signature of the header
 * equal, in constant time, to the one computed over the raw body as received (not a re-serialised parse).
 */
export function verifyWebhookSignature(
  secret: string,
  headers: { timestamp: string | undefined; signature: string | undefined },
  rawBody: string,
  now = new Date(),
  toleranceSeconds = RECOMMENDED_TOLERANCE_SECONDS,
): SignatureVerdict {
  if (!headers.timestamp || !/^\d{1,12}$/.test(headers.timestamp) || !headers.signature) return { valid: false, reason: 'malformed' };
  const timestamp = Number(headers.timestamp);
  if (Math.abs(now.getTime() / 1000 - timestamp) > toleranceSeconds) return { valid: false, reason: 'too_old' };
  const expected = Buffer.from(signWebhookPayload(secret, timestamp, rawBody));
  const offered = headers.signature.split(',').map((part) => Buffer.from(part.trim()));
  return offered.some((candidate) => candidate.length === expected.length && timingSafeEqual(candidate, expected)) ? { valid: true } : { valid: false, reason: 'mismatch' };
}
