/**
 * The audit log's buffer, against a storage that records what it is asked to write: nothing is written while a
 * request records, everything within a flush interval, in order, in one insert; a failed write is kept and
 * retried; a full buffer drops the oldest and says so once; close writes what is left.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { NewAuditEvent, Storage, WebhookIdsByEvent, WebhookSubscription } from '../storage/storage.js';
import { AuditLog, FLUSH_AT_EVENTS, recordCommandLineEvent, SUBSCRIPTIONS_MAX_AGE_MS, type AuditSource } from './audit-log.js';

class RecordingStorage {
  dialect: 'sqlite' | 'postgres' = 'postgres';
  batches: NewAuditEvent[][] = [];
  failing = false;
  readonly auditEvents = {
    insertMany: async (events: readonly NewAuditEvent[]) => {
      if (this.failing) throw new Error('the database is away');
      this.batches.push([...events]);
    },
  } as unknown as Storage['auditEvents'];
  get written(): NewAuditEvent[] {
    return this.batches.flat();
  }
}

/** Also webhooks: records the deliveries each batch was asked to queue, and how often subscriptions were read. */
class StorageWithWebhooks extends RecordingStorage {
  subscriptions: WebhookSubscription[] = [];
  subscriptionReads = 0;
  queued: Array<Array<[string, readonly string[]]>> = [];
  override readonly auditEvents = {
    insertMany: async (events: readonly NewAuditEvent[], webhooks?: WebhookIdsByEvent) => {
      this.batches.push([...events]);
      this.queued.push(events.filter((event) => webhooks?.has(event)).map((event) => [event.type, webhooks!.get(event)!]));
    },
  } as unknown as Storage['auditEvents'];
  readonly webhooks = {
    listSubscriptions: async () => {
      this.subscriptionReads += 1;
      return this.subscriptions;
    },
  } as unknown as Storage['webhooks'];
}

class RecordingLogger {
  warnings: string[] = [];
  warn(_fields: object, message: string): void {
    this.warnings.push(message);
  }
}

const request: AuditSource = { ip: '203.0.113.9', id: 'req-1', headers: { 'user-agent': 'Mozilla/5.0 (X11; Linux x86_64) Firefox/140.0' } };
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('AuditLog', () => {
  test('record writes nothing at once; within the flush interval every event is written, in order, in one insert', async () => {
    const storage = new RecordingStorage();
    const log = new AuditLog(storage, { flushDelayMs: 5 });
    log.record(request, { type: 'user.signin.succeeded', userId: 1 });
    log.record(request, { type: 'token.code_exchanged', userId: 1, clientId: 'c1', details: { scope: ['openid'] } });
    assert.equal(storage.batches.length, 0);
    await sleep(30);
    assert.equal(storage.batches.length, 1);
    assert.deepEqual(
      storage.written.map((e) => [e.type, e.userId, e.clientId, e.ipAddress, e.requestId, e.details]),
      [
        ['user.signin.succeeded', 1, null, '203.0.113.9', 'req-1', null],
        ['token.code_exchanged', 1, 'c1', '203.0.113.9', 'req-1', { scope: ['openid'] }],
      ],
    );
    await log.close();
  });

  test('by default the embedded database gets the events on the next turn of the event loop, PostgreSQL after 50 ms', async () => {
    const nextTurn = () => new Promise((resolve) => setImmediate(resolve));
    const embedded = Object.assign(new RecordingStorage(), { dialect: 'sqlite' as const });
    const postgres = new RecordingStorage();
    const logs = [new AuditLog(embedded), new AuditLog(postgres)];
    const recordedAt = performance.now();
    for (const log of logs) log.record(request, { type: 'token.refreshed', userId: 1 });
    await nextTurn();
    await nextTurn();
    assert.equal(embedded.written.length, 1);
    // On a loaded machine the two turns can take longer than 50 ms; then PostgreSQL's write is due too.
    if (performance.now() - recordedAt < 45) assert.equal(postgres.written.length, 0);
    await sleep(70);
    assert.equal(postgres.written.length, 1);
    for (const log of logs) await log.close();
  });

  test('the time is when it was recorded; a long User-Agent is cut to 300 characters; without a request, no address, agent or id', async () => {
    const storage = new RecordingStorage();
    const log = new AuditLog(storage);
    const before = Date.now();
    log.record({ ...request, headers: { 'user-agent': 'x'.repeat(1000) } }, { type: 'user.signin.succeeded', userId: 1 });
    log.record(null, { type: 'client.deleted', clientId: 'c1' });
    await log.flush();
    const [first, second] = storage.written;
    assert.ok(first!.createdAt.getTime() >= before && first!.createdAt.getTime() <= Date.now());
    assert.equal(first!.userAgent!.length, 300);
    assert.deepEqual([second!.ipAddress, second!.userAgent, second!.requestId, second!.userId], [null, null, null, null]);
  });

  test(`a buffer that reaches ${FLUSH_AT_EVENTS} events is written at once, without waiting for the interval`, async () => {
    const storage = new RecordingStorage();
    const log = new AuditLog(storage, { flushDelayMs: 60_000 });
    for (let i = 0; i < FLUSH_AT_EVENTS; i++) log.record(request, { type: 'token.refreshed', userId: i });
    await sleep(10);
    assert.equal(storage.written.length, FLUSH_AT_EVENTS);
    await log.close();
  });

  test('a failed write keeps the events, in order before newer ones, warns once, and writes them when the database is back', async () => {
    const storage = new RecordingStorage();
    const logger = new RecordingLogger();
    const log = new AuditLog(storage, { flushDelayMs: 5, logger });
    storage.failing = true;
    log.record(request, { type: 'user.signin.succeeded', userId: 1 });
    await log.flush();
    log.record(request, { type: 'user.signin.succeeded', userId: 2 });
    await log.flush();
    assert.equal(storage.written.length, 0);
    assert.equal(logger.warnings.length, 1, 'one warning, not one per failed write');
    storage.failing = false;
    log.record(request, { type: 'user.signin.succeeded', userId: 3 });
    await log.flush();
    assert.deepEqual(storage.written.map((e) => e.userId), [1, 2, 3]);
    await log.close();
  });

  test('while the database is away the buffer stays bounded: the oldest events go, with one warning', async () => {
    const storage = new RecordingStorage();
    const logger = new RecordingLogger();
    const log = new AuditLog(storage, { flushDelayMs: 60_000, maxBufferedEvents: 3, logger });
    storage.failing = true;
    for (let userId = 1; userId <= 5; userId++) log.record(request, { type: 'user.signin.succeeded', userId });
    assert.equal(logger.warnings.length, 1);
    assert.match(logger.warnings[0]!, /dropped/);
    storage.failing = false;
    await log.close();
    assert.deepEqual(storage.written.map((e) => e.userId), [3, 4, 5]);
  });

  test('close writes what is buffered, without waiting for the interval', async () => {
    const storage = new RecordingStorage();
    const log = new AuditLog(storage, { flushDelayMs: 60_000 });
    log.record(request, { type: 'user.password.changed', userId: 7 });
    await log.close();
    assert.deepEqual(storage.written.map((e) => e.type), ['user.password.changed']);
  });

  test('webhooks: events of subscribed types are written with their webhooks, read at most once per SUBSCRIPTIONS_MAX_AGE_MS', async () => {
    const storage = new StorageWithWebhooks();
    storage.subscriptions = [
      { id: 'wh_a', eventTypes: ['user.signin.succeeded', 'user.signin.failed'] },
      { id: 'wh_b', eventTypes: ['user.signin.succeeded'] },
    ];
    const log = new AuditLog(storage, { flushDelayMs: 0 });
    log.record(request, { type: 'user.signin.succeeded', userId: 1 });
    log.record(request, { type: 'token.refreshed', userId: 1 });
    log.record(request, { type: 'user.signin.failed', userId: 1 });
    await log.flush();
    assert.deepEqual(storage.queued, [[['user.signin.succeeded', ['wh_a', 'wh_b']], ['user.signin.failed', ['wh_a']]]]);
    // A webhook made meanwhile (by the command line) is seen once the subscriptions are a second old.
    storage.subscriptions = [{ id: 'wh_c', eventTypes: ['token.refreshed'] }];
    log.record(request, { type: 'token.refreshed', userId: 1 });
    await log.flush();
    assert.deepEqual(storage.queued[1], [], 'still the subscriptions read a moment ago');
    assert.equal(storage.subscriptionReads, 1);
    await sleep(SUBSCRIPTIONS_MAX_AGE_MS + 20);
    log.record(request, { type: 'token.refreshed', userId: 1 });
    await log.flush();
    assert.deepEqual(storage.queued[2], [['token.refreshed', ['wh_c']]]);
    assert.equal(storage.subscriptionReads, 2);
    await log.close();
  });

  test('webhooks: the command line’s events are queued to their webhooks at once', async () => {
    const storage = new StorageWithWebhooks();
    storage.subscriptions = [{ id: 'wh_a', eventTypes: ['client.created'] }];
    await recordCommandLineEvent(storage, { type: 'client.created', clientId: 'c1', details: { name: 'App' } });
    await recordCommandLineEvent(storage, { type: 'client.deleted', clientId: 'c1', details: { name: 'App' } });
    assert.deepEqual(storage.queued, [[['client.created', ['wh_a']]], []]);
  });

  test('webhooks: before the webhooks table exists (--no-migrate ahead of the migration), events are written without deliveries', async () => {
    const storage = new StorageWithWebhooks();
    (storage.webhooks as unknown as { listSubscriptions: () => Promise<never> }).listSubscriptions = async () => {
      throw new Error('no such table: webhooks');
    };
    const log = new AuditLog(storage, { flushDelayMs: 0 });
    log.record(request, { type: 'user.signin.succeeded', userId: 1 });
    await log.flush();
    assert.deepEqual(storage.written.map((e) => e.type), ['user.signin.succeeded']);
    assert.deepEqual(storage.queued, [[]]);
    await log.close();
  });

  test('the command line writes its event at once, marked via=cli, with no request', async () => {
    const storage = new RecordingStorage();
    await recordCommandLineEvent(storage, { type: 'client.created', clientId: 'c1', details: { name: 'App' } });
    assert.equal(storage.batches.length, 1);
    const [event] = storage.written;
    assert.deepEqual(event!.details, { name: 'App', via: 'cli' });
    assert.deepEqual([event!.ipAddress, event!.userAgent, event!.requestId], [null, null, null]);
  });
});
