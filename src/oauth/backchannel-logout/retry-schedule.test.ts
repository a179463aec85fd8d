/**
 * The step after a back-channel logout attempt (retry-schedule.ts), one rule per row: OIDC Back-Channel Logout
 * 1.0 §2.8 for what counts as delivered, Latch's retry schedule for the rest.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { MAX_ATTEMPTS, nextStep, type AttemptResult, type NextStep } from './retry-schedule.js';

const rows: { rule: string; result: AttemptResult; attemptsMade: number; next: NextStep }[] = [
  { rule: '§2.8: 200 OK is delivered', result: { kind: 'answered', status: 200 }, attemptsMade: 1, next: { step: 'delivered' } },
  { rule: '§2.8: 204 No Content is delivered too', result: { kind: 'answered', status: 204 }, attemptsMade: 1, next: { step: 'delivered' } },
  { rule: '§2.8: a success on the last attempt is delivered', result: { kind: 'answered', status: 200 }, attemptsMade: MAX_ATTEMPTS, next: { step: 'delivered' } },
  { rule: '§2.8: 400 (the app refused the token) is a failure, retried', result: { kind: 'answered', status: 400 }, attemptsMade: 1, next: { step: 'retry', afterSeconds: 30 } },
  { rule: '§2.8: 501 (the app does not support the logout) is a failure, retried', result: { kind: 'answered', status: 501 }, attemptsMade: 1, next: { step: 'retry', afterSeconds: 30 } },
  { rule: 'another 2xx (202 Accepted) is not one of the two success answers', result: { kind: 'answered', status: 202 }, attemptsMade: 1, next: { step: 'retry', afterSeconds: 30 } },
  { rule: 'a redirect is not followed, and is a failure', result: { kind: 'answered', status: 302 }, attemptsMade: 1, next: { step: 'retry', afterSeconds: 30 } },
  { rule: 'a 500 after the second attempt waits 2 minutes', result: { kind: 'answered', status: 500 }, attemptsMade: 2, next: { step: 'retry', afterSeconds: 120 } },
  { rule: 'no answer after the third attempt waits 10 minutes', result: { kind: 'unreachable' }, attemptsMade: 3, next: { step: 'retry', afterSeconds: 600 } },
  { rule: 'a failed fourth attempt is the last: give up', result: { kind: 'answered', status: 503 }, attemptsMade: 4, next: { step: 'give up' } },
  { rule: 'an unreachable app on the last attempt: give up', result: { kind: 'unreachable' }, attemptsMade: MAX_ATTEMPTS, next: { step: 'give up' } },
  { rule: 'a refused address (private network) is given up at once', result: { kind: 'refused' }, attemptsMade: 1, next: { step: 'give up' } },
];

describe('back-channel logout: the step after an attempt', () => {
  test('four attempts in all: the first and three retries', () => assert.equal(MAX_ATTEMPTS, 4));
  for (const { rule, result, attemptsMade, next } of rows) {
    test(rule, () => assert.deepEqual(nextStep(result, attemptsMade), next));
  }
});
