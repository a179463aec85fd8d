/**
 * Device authorization requests (storage deviceAuthorizations; RFC 8628) on a SQLite file and on PostgreSQL: a
 * request as stored, a user-code collision refused, polls counted one at a time (in time → pending, too soon →
 * slow_down and an interval 5 s longer), one decision only and none after expiry, racing decisions from two
 * processes, and the batched cleanup of expired rows (also by the periodic housekeeping).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { deleteExpiredRecords } from '../../src/server.js';
import type { NewDeviceAuthorization } from '../../src/storage/storage.js';
import { openPostgres, openSqliteFile, type Opened } from '../helpers/two-storages.js';

const T0 = new Date('2026-11-25T12:00:00Z');
const at = (seconds: number) => new Date(T0.getTime() + seconds * 1000);
const POLL = { toleranceMs: 250, slowDownSeconds: 5 };

let counter = 0;

for (const [label, open] of [
  ['SQLite', openSqliteFile],
  ['PostgreSQL', openPostgres],
] as const) {
  describe(`device authorizations on ${label}`, () => {
    let opened: Opened;
    let clientId: string;
    let userId: number;

    function request(overrides: Partial<NewDeviceAuthorization> = {}): NewDeviceAuthorization {
      counter += 1;
      return {
        deviceCodeHash: `device-hash-${counter}`,
        userCodeHash: `user-hash-${counter}`,
        clientId,
        scope: ['openid', 'profile'],
        intervalSeconds: 5,
        createdAt: T0,
        expiresAt: at(600),
        resources: [],
        ...overrides,
      };
    }

    before(async () => {
      opened = await open();
      const client = await opened.storage.clients.insert(
        { clientId: 'device-client', name: 'TV', secretHash: 'x', previousSecretHash: null, previousSecretExpiresAt: null, redirectUris: [], ownerUserId: null, homepageUrl: null, logoUrl: null },
        T0,
      );
      clientId = client.clientId;
      const user = await opened.storage.users.insert({ email: 'device@example.com', emailVerified: true, name: 'D', avatarUrl: null, passwordHash: 'x' }, T0);
      userId = user!.id;
    });
    after(async () => opened?.close());

    test('a request as stored, with the APIs it named; a taken user code is refused without storing anything', async () => {
      const first = request();
      assert.equal(await opened.storage.deviceAuthorizations.insert(first), true);
      const stored = await opened.storage.deviceAuthorizations.findByDeviceCodeHash(first.deviceCodeHash);
      assert.deepEqual(stored, { ...first, lastPolledAt: null, status: 'pending', userId: null, decidedAt: null });
      assert.deepEqual(await opened.storage.deviceAuthorizations.findByUserCodeHash(first.userCodeHash), stored);
      const forApis = request({ resources: ['https://notes.example.com/', 'https://calendar.example.com/api'] });
      assert.equal(await opened.storage.deviceAuthorizations.insert(forApis), true);
      assert.deepEqual((await opened.storage.deviceAuthorizations.findByDeviceCodeHash(forApis.deviceCodeHash))?.resources, forApis.resources);
      const clash = request({ userCodeHash: first.userCodeHash });
      assert.equal(await opened.storage.deviceAuthorizations.insert(clash), false);
      assert.equal(await opened.storage.deviceAuthorizations.findByDeviceCodeHash(clash.deviceCodeHash), null);
    });

    test('polls: in time → pending; too soon → slow_down, 5 s more for every later poll; nothing once decided or expired', async () => {
      const polled = request();
      await opened.storage.deviceAuthorizations.insert(polled);
      const poll = (seconds: number) => opened.storage.deviceAuthorizations.poll(polled.deviceCodeHash, at(seconds), POLL);
      assert.equal(await poll(10), 'pending', 'the first poll');
      assert.equal(await poll(14.8), 'pending', 'within the tolerance of 5 s');
      assert.equal(await poll(17), 'slow_down', '2.2 s later');
      assert.equal((await opened.storage.deviceAuthorizations.findByDeviceCodeHash(polled.deviceCodeHash))?.intervalSeconds, 10);
      assert.equal(await poll(22), 'slow_down', '5 s is no longer enough');
      assert.equal(await poll(37), 'pending', '15 s after: the interval is 15 s now');
      assert.equal((await opened.storage.deviceAuthorizations.findByDeviceCodeHash(polled.deviceCodeHash))?.lastPolledAt?.getTime(), at(37).getTime());
      assert.equal(await poll(601), null, 'expired');
      assert.equal(await opened.storage.deviceAuthorizations.decide(polled.deviceCodeHash, { status: 'approved', userId }, at(40)), true);
      assert.equal(await poll(100), null, 'decided');
    });

    test('one decision only, none after expiry; of two processes deciding at once exactly one wins', async () => {
      const decided = request();
      await opened.storage.deviceAuthorizations.insert(decided);
      assert.equal(await opened.storage.deviceAuthorizations.decide(decided.deviceCodeHash, { status: 'denied', userId }, at(30)), true);
      assert.equal(await opened.storage.deviceAuthorizations.decide(decided.deviceCodeHash, { status: 'approved', userId }, at(31)), false);
      const denied = await opened.storage.deviceAuthorizations.findByDeviceCodeHash(decided.deviceCodeHash);
      assert.equal(denied?.status, 'denied');
      assert.equal(denied?.userId, userId);
      assert.equal(denied?.decidedAt?.getTime(), at(30).getTime());

      const late = request();
      await opened.storage.deviceAuthorizations.insert(late);
      assert.equal(await opened.storage.deviceAuthorizations.decide(late.deviceCodeHash, { status: 'approved', userId }, at(600)), false);

      const raced = request();
      await opened.storage.deviceAuthorizations.insert(raced);
      const outcomes = await Promise.all([
        opened.storage.deviceAuthorizations.decide(raced.deviceCodeHash, { status: 'approved', userId }, at(50)),
        opened.other.deviceAuthorizations.decide(raced.deviceCodeHash, { status: 'denied', userId }, at(50)),
      ]);
      assert.deepEqual(outcomes.filter(Boolean).length, 1);
    });

    test('the cleanup deletes expired requests in batches, a day after expiry as the housekeeping runs it', async () => {
      const old = [request({ expiresAt: at(-100) }), request({ expiresAt: at(-90) }), request({ expiresAt: at(-80) })];
      for (const row of old) await opened.storage.deviceAuthorizations.insert(row);
      const live = request({ expiresAt: at(3600) });
      await opened.storage.deviceAuthorizations.insert(live);
      assert.equal(await opened.storage.deviceAuthorizations.deleteExpired(at(-85), 1), 1);
      assert.equal(await opened.storage.deviceAuthorizations.findByDeviceCodeHash(old[0]!.deviceCodeHash), null);
      // The periodic cleanup keeps them a day past expiry (as it keeps codes), then removes every batch.
      await deleteExpiredRecords(opened.storage, { refreshTokenReuseGraceSeconds: 60 }, at(86400 - 200), 1);
      assert.ok(await opened.storage.deviceAuthorizations.findByDeviceCodeHash(old[1]!.deviceCodeHash), 'kept within the day');
      await deleteExpiredRecords(opened.storage, { refreshTokenReuseGraceSeconds: 60 }, at(86400), 1);
      for (const row of old) assert.equal(await opened.storage.deviceAuthorizations.findByDeviceCodeHash(row.deviceCodeHash), null);
      assert.ok(await opened.storage.deviceAuthorizations.findByDeviceCodeHash(live.deviceCodeHash));
    });

    test('deleting the client deletes its requests', async () => {
      const other = await opened.storage.clients.insert(
        { clientId: 'doomed-device-client', name: 'Old TV', secretHash: 'x', previousSecretHash: null, previousSecretExpiresAt: null, redirectUris: [], ownerUserId: null, homepageUrl: null, logoUrl: null },
        T0,
      );
      const doomed = request({ clientId: other.clientId });
      await opened.storage.deviceAuthorizations.insert(doomed);
      await opened.storage.clients.delete(other.clientId);
      assert.equal(await opened.storage.deviceAuthorizations.findByDeviceCodeHash(doomed.deviceCodeHash), null);
    });
  });
}
