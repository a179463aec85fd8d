/**
 * Webhooks and their deliveries (storage webhooks, webhookDeliveries; audit events queueing deliveries) on a
 * SQLite file and on PostgreSQL: a webhook's record as stored, deliveries queued in the same write as their
 * event and only to webhooks that exist and are enabled, due rows claimed by exactly one of several processes,
 * attempts recorded only by the claim's holder, the delivery log, and the cleanup of finished rows.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { NewAuditEvent, Webhook } from '../../src/storage/storage.js';
import { postgresUnavailableReason } from '../helpers/postgres.js';
import { openPostgres, openSqliteFile, type Opened } from '../helpers/two-storages.js';

const T0 = new Date('2026-11-25T12:00:00Z');
const at = (seconds: number) => new Date(T0.getTime() + seconds * 1000);

let webhookCounter = 0;
function webhook(overrides: Partial<Webhook> = {}): Webhook {
  webhookCounter += 1;
  return {
    id: `wh_test${webhookCounter}`,
    url: `https://hooks.example.com/${webhookCounter}`,
    eventTypes: ['user.signin.succeeded'],
    secretEncrypted: `v1.iv.ciphertext-${webhookCounter}.tag`,
    createdAt: T0,
    disabled: false,
    ...overrides,
  };
}

function event(type: string, overrides: Partial<NewAuditEvent> = {}): NewAuditEvent {
  return { createdAt: T0, type, userId: 7, actorUserId: null, clientId: 'app', ipAddress: '203.0.113.5', userAgent: 'UA', requestId: 'req-1', details: { reason: 'x' }, ...overrides };
}

const unavailable = await postgresUnavailableReason();

for (const [name, open, skip] of [
  ['SQLite file', openSqliteFile, undefined],
  ['PostgreSQL', openPostgres, unavailable ?? undefined],
] as const) {
  describe(`webhooks and their deliveries on ${name}`, { skip }, () => {
    let opened: Opened;
    before(async () => {
      opened = await open();
    });
    after(async () => opened?.close());

    test('a webhook is stored as given (its secret only in the encrypted form it came in), listed, and deleted', async () => {
      const { webhooks } = opened.storage;
      const first = webhook({ eventTypes: ['user.signin.succeeded', 'user.signin.failed'] });
      const second = webhook({ createdAt: at(5), disabled: true });
      await webhooks.insert(first);
      await webhooks.insert(second);
      assert.deepEqual(await webhooks.findById(first.id), first);
      assert.equal(await webhooks.findById('wh_none'), null);
      const listed = (await webhooks.list()).filter((w) => w.id === first.id || w.id === second.id);
      assert.deepEqual(listed, [first, second], 'oldest first');
      const subscriptions = await webhooks.listSubscriptions();
      assert.deepEqual(subscriptions.find((s) => s.id === first.id), { id: first.id, eventTypes: first.eventTypes });
      assert.equal(subscriptions.some((s) => s.id === second.id), false, 'a disabled webhook subscribes to nothing');
      assert.equal(await webhooks.delete(first.id), true);
      assert.equal(await webhooks.delete(first.id), false);
      assert.equal(await webhooks.findById(first.id), null);
    });

    test('events with webhooks get a pending delivery to each that exists and is enabled, in the same write; the others none', async () => {
      const live = webhook();
      const disabled = webhook({ disabled: true });
      await opened.storage.webhooks.insert(live);
      await opened.storage.webhooks.insert(disabled);
      const subscribed = event('user.signin.succeeded', { requestId: 'queued' });
      const plainBefore = event('token.refreshed', { requestId: 'plain-before' });
      const plainAfter = event('token.refreshed', { requestId: 'plain-after' });
      // A webhook deleted a moment ago (the audit log's subscriptions are a moment old): no delivery, no failure.
      await opened.storage.auditEvents.insertMany([plainBefore, subscribed, plainAfter], new Map([[subscribed, [live.id, disabled.id, 'wh_deleted']]]));

      const stored = await opened.storage.auditEvents.list({ since: T0, limit: 100 });
      const ids = ['plain-before', 'queued', 'plain-after'].map((requestId) => stored.find((e) => e.requestId === requestId)!.id);
      assert.deepEqual([...ids].sort((a, b) => a - b), ids, 'ids follow the batch order');
      const log = await opened.storage.webhookDeliveries.listByWebhook(live.id, 10);
      assert.equal(log.length, 1);
      assert.deepEqual(log[0], {
        id: log[0]!.id,
        webhookId: live.id,
        auditEventId: ids[1],
        eventType: 'user.signin.succeeded',
        createdAt: T0,
        attempts: 0,
        state: 'pending',
        nextAttemptAt: T0,
        lastAttemptAt: null,
        lastStatus: null,
        lastError: null,
        finishedAt: null,
      });
      assert.deepEqual(await opened.storage.webhookDeliveries.listByWebhook(disabled.id, 10), []);

      // Claimed with its event, whose fields the payload is built from.
      const [claimed] = await opened.storage.webhookDeliveries.claimDue(T0, at(60), 'holder', 10);
      assert.equal(claimed?.id, log[0]!.id);
      assert.deepEqual(claimed?.event, { ...subscribed, id: ids[1] });
      assert.equal(await opened.storage.webhookDeliveries.recordAttempt(claimed!.id, 'holder', { outcome: 'delivered', at: at(1), status: 200 }), true);
    });

    test('attempts: a retry keeps the row pending until its time, a success or a give-up finishes it; only the holder records', async () => {
      const hook = webhook();
      await opened.storage.webhooks.insert(hook);
      const queued = event('user.signin.succeeded', { createdAt: at(100), requestId: 'attempts' });
      await opened.storage.auditEvents.insertMany([queued], new Map([[queued, [hook.id]]]));
      const deliveries = opened.storage.webhookDeliveries;
      assert.deepEqual(await deliveries.claimDue(at(99), at(159), 'early', 10), [], 'not due before its event');
      const [first] = await deliveries.claimDue(at(100), at(160), 'first', 10);
      assert.ok(first);
      assert.deepEqual(await deliveries.claimDue(at(120), at(180), 'second', 10), [], 'hidden while claimed');
      assert.equal(await deliveries.recordAttempt(first.id, 'someone-else', { outcome: 'delivered', at: at(101), status: 200 }), false, 'not the holder');
      assert.equal(await deliveries.recordAttempt(first.id, 'first', { outcome: 'retry', at: at(101), status: 503, error: 'answered HTTP 503', nextAttemptAt: at(130) }), true);
      let [row] = await deliveries.listByWebhook(hook.id, 10);
      assert.deepEqual(
        { state: row!.state, attempts: row!.attempts, lastStatus: row!.lastStatus, lastError: row!.lastError, nextAttemptAt: row!.nextAttemptAt, lastAttemptAt: row!.lastAttemptAt },
        { state: 'pending', attempts: 1, lastStatus: 503, lastError: 'answered HTTP 503', nextAttemptAt: at(130), lastAttemptAt: at(101) },
      );
      assert.deepEqual(await deliveries.claimDue(at(129), at(189), 'early', 10), [], 'released, but not due before its new time');

      // The holder died: once its claim has run out, another process takes the row over.
      const [again] = await deliveries.claimDue(at(130), at(190), 'second', 10);
      assert.equal(again?.attempts, 1);
      const [taken] = await deliveries.claimDue(at(190), at(250), 'third', 10);
      assert.equal(taken?.id, again!.id);
      assert.equal(await deliveries.recordAttempt(again!.id, 'second', { outcome: 'given_up', at: at(191), status: null, error: 'x' }), false, 'the lapsed claim records nothing');
      assert.equal(await deliveries.recordAttempt(again!.id, 'third', { outcome: 'postponed', nextAttemptAt: at(300) }), true);
      [row] = await deliveries.listByWebhook(hook.id, 10);
      assert.equal(row!.attempts, 1, 'a postponement is not an attempt');
      const [last] = await deliveries.claimDue(at(300), at(360), 'fourth', 10);
      assert.equal(await deliveries.recordAttempt(last!.id, 'fourth', { outcome: 'given_up', at: at(301), status: null, error: 'no answer within 10 s' }), true);
      [row] = await deliveries.listByWebhook(hook.id, 10);
      assert.deepEqual(
        { state: row!.state, attempts: row!.attempts, lastStatus: row!.lastStatus, lastError: row!.lastError, nextAttemptAt: row!.nextAttemptAt, finishedAt: row!.finishedAt },
        { state: 'given_up', attempts: 2, lastStatus: null, lastError: 'no answer within 10 s', nextAttemptAt: null, finishedAt: at(301) },
      );
      assert.deepEqual(await deliveries.claimDue(at(10_000), at(10_060), 'later', 10), [], 'a finished delivery is never claimed again');
    });

    test('two processes claiming the same due rows at once: each row goes to exactly one', async () => {
      const hook = webhook({ eventTypes: ['token.refreshed'] });
      await opened.storage.webhooks.insert(hook);
      const events = Array.from({ length: 40 }, (_, i) => event('token.refreshed', { createdAt: at(1000), requestId: `race-${i}` }));
      await opened.storage.auditEvents.insertMany(events, new Map(events.map((e) => [e, [hook.id]])));
      const claims = await Promise.all(
        Array.from({ length: 6 }, (_, i) => (i % 2 === 0 ? opened.storage : opened.other).webhookDeliveries.claimDue(at(1000), at(1060), `claimer-${i}`, 40)),
      );
      const claimedIds = claims.flatMap((claimed) => claimed.map((row) => row.id));
      assert.equal(claimedIds.length, new Set(claimedIds).size, 'no row was claimed twice');
      const queued = (await opened.storage.webhookDeliveries.listByWebhook(hook.id, 100)).map((row) => row.id);
      assert.deepEqual(claimedIds.sort((a, b) => a - b), queued.sort((a, b) => a - b), 'every row was claimed');
      for (const [i, claimed] of claims.entries()) {
        for (const row of claimed) assert.equal(await opened.storage.webhookDeliveries.recordAttempt(row.id, `claimer-${i}`, { outcome: 'delivered', at: at(1001), status: 204 }), true);
      }
    });

    test('the log lists newest first; the cleanup removes finished rows only; deleting the webhook deletes its log', async () => {
      const hook = webhook();
      await opened.storage.webhooks.insert(hook);
      const [old, recent, waiting] = [event('user.signin.succeeded', { createdAt: at(2000) }), event('user.signin.succeeded', { createdAt: at(2000) }), event('user.signin.succeeded', { createdAt: at(2000) })];
      await opened.storage.auditEvents.insertMany([old!, recent!, waiting!], new Map([old!, recent!, waiting!].map((e) => [e, [hook.id]])));
      const deliveries = opened.storage.webhookDeliveries;
      const log = await deliveries.listByWebhook(hook.id, 10);
      assert.deepEqual(log.map((row) => row.id), [...log.map((row) => row.id)].sort((a, b) => b - a), 'newest first');
      assert.equal((await deliveries.listByWebhook(hook.id, 2)).length, 2, 'at most the limit');
      const claimed = await deliveries.claimDue(at(2000), at(2060), 'c', 10);
      const mine = claimed.filter((row) => row.webhookId === hook.id).sort((a, b) => a.id - b.id);
      await deliveries.recordAttempt(mine[0]!.id, 'c', { outcome: 'delivered', at: at(2001), status: 200 });
      await deliveries.recordAttempt(mine[1]!.id, 'c', { outcome: 'given_up', at: at(5000), status: 410, error: 'answered HTTP 410' });
      await deliveries.recordAttempt(mine[2]!.id, 'c', { outcome: 'retry', at: at(2001), status: 500, error: 'answered HTTP 500', nextAttemptAt: at(9000) });
      assert.ok((await deliveries.deleteFinishedBefore(at(3000))) >= 1);
      assert.deepEqual((await deliveries.listByWebhook(hook.id, 10)).map((row) => row.id).sort((a, b) => a - b), [mine[1]!.id, mine[2]!.id], 'the one finished before then is gone; a pending one stays whatever its age');
      assert.equal(await opened.storage.webhooks.delete(hook.id), true);
      assert.deepEqual(await deliveries.listByWebhook(hook.id, 10), []);
      assert.deepEqual((await deliveries.claimDue(at(9000), at(9060), 'after', 100)).filter((row) => row.webhookId === hook.id), []);
    });
  });
}
