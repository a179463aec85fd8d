/**
 * The back-channel logout delivery queue (storage backchannelLogoutDeliveries) on a SQLite file and on
 * PostgreSQL: due rows are claimed by exactly one of several processes claiming at once, a claim hides the row
 * until it runs out (a process that died frees its rows), and only the claim's holder can reschedule or
 * remove a row.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { registerClient } from '../../src/clients/client-registration.js';
import { postgresUnavailableReason } from '../helpers/postgres.js';
import { openPostgres, openSqliteFile, type Opened } from '../helpers/two-storages.js';

const T0 = new Date('2026-11-24T12:00:00Z');
const at = (seconds: number) => new Date(T0.getTime() + seconds * 1000);

const unavailable = await postgresUnavailableReason();

for (const [name, open, skip] of [
  ['SQLite file', openSqliteFile, undefined],
  ['PostgreSQL', openPostgres, unavailable ?? undefined],
] as const) {
  describe(`back-channel logout delivery queue on ${name}`, { skip }, () => {
    let opened: Opened;
    let clientId: string;
    before(async () => {
      opened = await open();
      ({ client: { clientId } } = await registerClient(opened.storage, { name: 'Queue App', redirectUris: ['https://app.example.com/cb'] }, { developmentMode: false }));
    });
    after(async () => opened?.close());

    test('a queued delivery is claimed once it is due, by one claimer, and hidden while claimed', async () => {
      const queue = opened.storage.backchannelLogoutDeliveries;
      const [id] = await queue.insert([{ clientId, sub: '7', sid: 'sid-a', nextAttemptAt: at(10), createdAt: T0 }]);
      assert.deepEqual(await queue.claimDue(at(9), at(69), 'early', 10), [], 'not due yet');
      const [claimed] = await queue.claimDue(at(10), at(70), 'first', 10);
      assert.deepEqual(claimed, { id, clientId, sub: '7', sid: 'sid-a', attempts: 0, nextAttemptAt: at(10), createdAt: T0, claimToken: 'first' });
      assert.deepEqual(await queue.claimDue(at(30), at(90), 'second', 10), [], 'held by the first claim');
      // The holder died: once its claim has run out, another process takes the row over.
      const [taken] = await queue.claimDue(at(70), at(130), 'second', 10);
      assert.equal(taken?.id, id);
      assert.equal(await queue.delete(id!, 'first'), false, 'the lapsed claim can no longer remove it');
      assert.equal(await queue.reschedule(id!, 'first', 1, at(200)), false, 'nor reschedule it');
      assert.equal(await queue.delete(id!, 'second'), true);
      assert.deepEqual(await queue.claimDue(at(1000), at(1060), 'third', 10), []);
    });

    test('a rescheduled delivery keeps its attempts, is released, and is due again at its new time', async () => {
      const queue = opened.storage.backchannelLogoutDeliveries;
      const [id] = await queue.insert([{ clientId, sub: '7', sid: 'sid-b', nextAttemptAt: T0, createdAt: T0 }]);
      await queue.claimDue(T0, at(60), 'holder', 10);
      assert.equal(await queue.reschedule(id!, 'holder', 1, at(30)), true);
      assert.deepEqual(await queue.claimDue(at(29), at(89), 'early', 10), [], 'released, but not due before its time');
      const [again] = await queue.claimDue(at(30), at(90), 'next', 10);
      assert.equal(again?.attempts, 1);
      assert.equal(await queue.delete(id!, 'next'), true);
    });

    test('two processes claiming the same due rows at once: each row goes to exactly one', async () => {
      const rows = Array.from({ length: 40 }, (_, i) => ({ clientId, sub: '8', sid: `race-${i}`, nextAttemptAt: T0, createdAt: T0 }));
      const ids = await opened.storage.backchannelLogoutDeliveries.insert(rows);
      const claims = await Promise.all(
        Array.from({ length: 6 }, (_, i) => (i % 2 === 0 ? opened.storage : opened.other).backchannelLogoutDeliveries.claimDue(at(1), at(61), `claimer-${i}`, 40)),
      );
      const claimedIds = claims.flatMap((claimed) => claimed.map((row) => row.id));
      assert.equal(claimedIds.length, new Set(claimedIds).size, 'no row was claimed twice');
      assert.deepEqual(claimedIds.sort((a, b) => a - b), [...ids].sort((a, b) => a - b), 'every row was claimed');
      for (const [i, claimed] of claims.entries()) for (const row of claimed) assert.equal(await opened.storage.backchannelLogoutDeliveries.delete(row.id, `claimer-${i}`), true);
    });

    test('deleting the client deletes its deliveries', async () => {
      const { client } = await registerClient(opened.storage, { name: 'Gone App', redirectUris: ['https://gone.example.com/cb'] }, { developmentMode: false });
      await opened.storage.backchannelLogoutDeliveries.insert([{ clientId: client.clientId, sub: '9', sid: 'sid-c', nextAttemptAt: T0, createdAt: T0 }]);
      await opened.storage.clients.delete(client.clientId);
      assert.deepEqual(await opened.storage.backchannelLogoutDeliveries.claimDue(at(1), at(61), 'after', 10), []);
    });
  });
}
