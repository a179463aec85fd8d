/**
 * The outbound delivery queue's worker (delivery-queue.ts), with the table and the attempts stood in for by
 * functions: rounds go on while they come back full; an attempt that fails inside Latch is logged and the rest go
 * on; stop waits for the attempts in flight. (The database-away warning: oauth/backchannel-logout tests.)
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DeliveryQueue, type DeliveryLog } from './delivery-queue.js';

function recordingLog(): DeliveryLog & { lines: Array<{ level: string; object: Record<string, unknown>; message: string }> } {
  const lines: Array<{ level: string; object: Record<string, unknown>; message: string }> = [];
  return {
    lines,
    info: (object, message) => lines.push({ level: 'info', object: object as Record<string, unknown>, message }),
    warn: (object, message) => lines.push({ level: 'warn', object: object as Record<string, unknown>, message }),
  };
}

const names = { deliveries: 'test deliveries', anAttempt: 'a test attempt' };

test('rounds go on while they come back full (20), and end with the first that is not', async () => {
  const due = Array.from({ length: 45 }, (_, i) => i);
  const claimedTokens: string[] = [];
  const attempted: number[] = [];
  const queue = new DeliveryQueue<number>({
    names,
    pollIntervalMs: 1000,
    claimDue: async (_now, claimedUntil, claimToken, limit) => {
      assert.ok(claimedUntil.getTime() > Date.now(), 'a claim runs into the future');
      claimedTokens.push(claimToken);
      return due.splice(0, limit);
    },
    attempt: async (delivery) => {
      attempted.push(delivery);
    },
  });
  assert.equal(await queue.deliverDue(), 45);
  assert.equal(claimedTokens.length, 3);
  assert.equal(new Set(claimedTokens).size, 3, 'a claim token of its own per round');
  assert.deepEqual(attempted, Array.from({ length: 45 }, (_, i) => i));
  assert.equal(await queue.deliverDue(), 0, 'nothing due: one claim, nothing attempted');
});

test("an attempt that fails inside Latch is logged with its error; the round's others are attempted; deliverDue resolves", async () => {
  const log = recordingLog();
  const attempted: string[] = [];
  let rounds = 0;
  const queue = new DeliveryQueue<string>({
    names,
    pollIntervalMs: 1000,
    claimDue: async () => (rounds++ === 0 ? ['a', 'broken', 'c'] : []),
    attempt: async (delivery) => {
      if (delivery === 'broken') throw new TypeError('a bug');
      attempted.push(delivery);
    },
    log,
  });
  assert.equal(await queue.deliverDue(), 3);
  assert.deepEqual(attempted, ['a', 'c']);
  const warnings = log.lines.filter((line) => line.level === 'warn');
  assert.equal(warnings.length, 1);
  assert.equal(warnings[0]!.message, 'a test attempt failed inside Latch; it is retried once its claim runs out');
  assert.ok(warnings[0]!.object.err instanceof TypeError);
});

test('stop waits for the attempts in flight, and no round starts after it', async () => {
  let finish: () => void = () => {};
  let claims = 0;
  let finished = false;
  const queue = new DeliveryQueue<number>({
    names,
    pollIntervalMs: 1000,
    claimDue: async () => (claims++ === 0 ? [1] : []),
    attempt: () =>
      new Promise<void>((resolve) => {
        finish = () => {
          finished = true;
          resolve();
        };
      }),
  });
  const run = queue.deliverDue();
  await new Promise((resolve) => setImmediate(resolve));
  const stopped = queue.stop();
  setTimeout(() => finish(), 20);
  await stopped;
  assert.equal(finished, true, 'stop resolved only after the attempt ended');
  assert.equal(await run, 1);
  assert.equal(await queue.deliverDue(), 0);
  assert.equal(claims, 1, 'no claim after stop');
});
