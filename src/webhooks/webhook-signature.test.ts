/**
 * The webhook signature (webhook-signature.ts; docs/protocol-decisions.md "Webhooks"): the known answer of the
 * scheme, and each way a receiver's check refuses a delivery.
 */
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { describe, test } from 'node:test';
import { signWebhookPayload, verifyWebhookSignature } from './webhook-signature.js';

const secret = 'whsec_test-secret';
const body = '{"id":1,"type":"user.signin.succeeded"}';
const timestamp = 1_795_000_000;
const now = new Date(timestamp * 1000);

describe('webhook signatures', () => {
  test('v1 is hex HMAC-SHA-256 of "<timestamp>.<body>" keyed with the whole secret string', () => {
    const expected = createHmac('sha256', Buffer.from(secret, 'utf8')).update(`${timestamp}.${body}`).digest('hex');
    assert.equal(signWebhookPayload(secret, timestamp, body), `v1=${expected}`);
  });

  const signature = signWebhookPayload(secret, timestamp, body);
  const rows: Array<{ rule: string; headers: { timestamp: string | undefined; signature: string | undefined }; body?: string; at?: Date; verdict: ReturnType<typeof verifyWebhookSignature> }> = [
    { rule: 'the delivery as sent is valid', headers: { timestamp: String(timestamp), signature }, verdict: { valid: true } },
    { rule: 'one valid signature among several (a later scheme beside it) is enough', headers: { timestamp: String(timestamp), signature: `v2=abc, ${signature}` }, verdict: { valid: true } },
    { rule: 'within the tolerance, either way', headers: { timestamp: String(timestamp), signature }, at: new Date((timestamp + 300) * 1000), verdict: { valid: true } },
    { rule: 'older than 5 minutes: a replay', headers: { timestamp: String(timestamp), signature }, at: new Date((timestamp + 301) * 1000), verdict: { valid: false, reason: 'too_old' } },
    { rule: 'more than 5 minutes ahead', headers: { timestamp: String(timestamp), signature }, at: new Date((timestamp - 301) * 1000), verdict: { valid: false, reason: 'too_old' } },
    { rule: 'a changed body', headers: { timestamp: String(timestamp), signature }, body: body.replace('1', '2'), verdict: { valid: false, reason: 'mismatch' } },
    { rule: 'a fresh timestamp on an old signature', headers: { timestamp: String(timestamp + 60), signature }, verdict: { valid: false, reason: 'mismatch' } },
    { rule: 'no timestamp', headers: { timestamp: undefined, signature }, verdict: { valid: false, reason: 'malformed' } },
    { rule: 'a timestamp that is not a number', headers: { timestamp: '2026-11-25', signature }, verdict: { valid: false, reason: 'malformed' } },
    { rule: 'no signature', headers: { timestamp: String(timestamp), signature: undefined }, verdict: { valid: false, reason: 'malformed' } },
  ];
  for (const row of rows) {
    test(row.rule, () => assert.deepEqual(verifyWebhookSignature(secret, row.headers, row.body ?? body, row.at ?? now), row.verdict));
  }
});
