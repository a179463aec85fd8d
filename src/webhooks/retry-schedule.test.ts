/** The step after a webhook attempt (retry-schedule.ts), one rule per row. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ConfigError, loadConfig } from '../config.js';
import { DEFAULT_RETRY_DELAYS_SECONDS, nextStep, type AttemptResult, type NextStep } from './retry-schedule.js';

const rows: { rule: string; result: AttemptResult; attemptsMade: number; next: NextStep }[] = [
  { rule: '200 is delivered', result: { kind: 'answered', status: 200 }, attemptsMade: 1, next: { step: 'delivered' } },
  { rule: 'any 2xx (202 Accepted, 204) is delivered', result: { kind: 'answered', status: 202 }, attemptsMade: 1, next: { step: 'delivered' } },
  { rule: 'a success on the last attempt is delivered', result: { kind: 'answered', status: 204 }, attemptsMade: 6, next: { step: 'delivered' } },
  { rule: 'a 500 after the first attempt waits 30 s', result: { kind: 'answered', status: 500 }, attemptsMade: 1, next: { step: 'retry', afterSeconds: 30 } },
  { rule: 'a 503 after the second waits 2 minutes', result: { kind: 'answered', status: 503 }, attemptsMade: 2, next: { step: 'retry', afterSeconds: 120 } },
  { rule: '429 Too Many Requests is retried', result: { kind: 'answered', status: 429 }, attemptsMade: 1, next: { step: 'retry', afterSeconds: 30 } },
  { rule: '408 Request Timeout is retried', result: { kind: 'answered', status: 408 }, attemptsMade: 1, next: { step: 'retry', afterSeconds: 30 } },
  { rule: 'no answer (timeout, network) after the fifth attempt waits 6 hours', result: { kind: 'unreachable' }, attemptsMade: 5, next: { step: 'retry', afterSeconds: 21600 } },
  { rule: 'a failed sixth attempt is the last: give up', result: { kind: 'unreachable' }, attemptsMade: 6, next: { step: 'give up' } },
  { rule: 'a 400 (the receiver refused it) is given up at once', result: { kind: 'answered', status: 400 }, attemptsMade: 1, next: { step: 'give up' } },
  { rule: 'a 401 (a receiver that refused the signature) is given up at once', result: { kind: 'answered', status: 401 }, attemptsMade: 1, next: { step: 'give up' } },
  { rule: 'a redirect is not followed, and given up', result: { kind: 'answered', status: 301 }, attemptsMade: 1, next: { step: 'give up' } },
  { rule: 'a refused address (private network) is given up at once', result: { kind: 'refused' }, attemptsMade: 1, next: { step: 'give up' } },
];

describe('webhooks: the step after an attempt', () => {
  test('six attempts in all by default: the first and five retries', () => assert.equal(DEFAULT_RETRY_DELAYS_SECONDS.length, 5));
  for (const { rule, result, attemptsMade, next } of rows) {
    test(rule, () => assert.deepEqual(nextStep(result, attemptsMade), next));
  }
  test('a schedule of its own (LATCH_WEBHOOK_RETRY_SECONDS): its delays, then give up', () => {
    assert.deepEqual(nextStep({ kind: 'unreachable' }, 1, [1, 2]), { step: 'retry', afterSeconds: 1 });
    assert.deepEqual(nextStep({ kind: 'unreachable' }, 2, [1, 2]), { step: 'retry', afterSeconds: 2 });
    assert.deepEqual(nextStep({ kind: 'unreachable' }, 3, [1, 2]), { step: 'give up' });
    assert.deepEqual(nextStep({ kind: 'answered', status: 500 }, 1, []), { step: 'give up' });
  });
  test('LATCH_WEBHOOK_RETRY_SECONDS: the default when unset or empty, a list of waits, none, or a configuration error', () => {
    const base = { LATCH_DATABASE_URL: 'sqlite::memory:', LATCH_SECRET: 'a-test-secret-of-forty-characters-or-so!!', LATCH_ISSUER: 'http://127.0.0.1:3000' };
    assert.deepEqual(loadConfig(base).webhookRetrySeconds, DEFAULT_RETRY_DELAYS_SECONDS);
    assert.deepEqual(loadConfig({ ...base, LATCH_WEBHOOK_RETRY_SECONDS: '' }).webhookRetrySeconds, DEFAULT_RETRY_DELAYS_SECONDS);
    assert.deepEqual(loadConfig({ ...base, LATCH_WEBHOOK_RETRY_SECONDS: '1, 2' }).webhookRetrySeconds, [1, 2]);
    assert.deepEqual(loadConfig({ ...base, LATCH_WEBHOOK_RETRY_SECONDS: 'none' }).webhookRetrySeconds, []);
    for (const wrong of ['0', '1,x', '-5', '30;60']) {
      assert.throws(() => loadConfig({ ...base, LATCH_WEBHOOK_RETRY_SECONDS: wrong }), (error: unknown) => error instanceof ConfigError && /LATCH_WEBHOOK_RETRY_SECONDS/.test(error.message), wrong);
    }
  });
});
