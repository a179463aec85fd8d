/**
 * Second factors in storage (storage.secondFactors) on a SQLite file and on PostgreSQL: one authenticator app
 * per account, a time step accepted once even by concurrent requests from two processes (RFC 6238 §5.2),
 * recovery codes used once and replaced whole, passkeys (one account per credential, the counter moved once),
 * and everything gone with the account.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { postgresUnavailableReason } from '../helpers/postgres.js';
import { openPostgres, openSqliteFile, type Opened } from '../helpers/two-storages.js';

const T0 = new Date('2026-11-24T12:00:00Z');
const at = (seconds: number) => new Date(T0.getTime() + seconds * 1000);

const unavailable = await postgresUnavailableReason();

for (const [name, open, skip] of [
  ['SQLite file', openSqliteFile, undefined],
  ['PostgreSQL', openPostgres, unavailable ?? undefined],
] as const) {
  describe(`second factors on ${name}`, { skip }, () => {
    let opened: Opened;
    let userCount = 0;
    const newUser = async () => {
      const user = await opened.storage.users.insert({ email: `mfa${++userCount}@example.com`, emailVerified: true, name: 'M', avatarUrl: null, passwordHash: 'h' }, T0);
      assert.ok(user);
      return user.id;
    };
    before(async () => {
      opened = await open();
    });
    after(async () => opened?.close());

    test('an authenticator app round-trips; a second one for the same account is refused and changes nothing', async () => {
      const factors = opened.storage.secondFactors;
      const userId = await newUser();
      assert.equal(await factors.findTotp(userId), null);
      assert.equal(await factors.insertTotp({ userId, secretEncrypted: 'v1.a.b.c', lastUsedStep: 100, createdAt: T0, lastUsedAt: T0 }), true);
      assert.equal(await factors.insertTotp({ userId, secretEncrypted: 'v1.other', lastUsedStep: null, createdAt: at(5), lastUsedAt: null }), false);
      assert.deepEqual(await factors.findTotp(userId), { userId, secretEncrypted: 'v1.a.b.c', lastUsedStep: 100, createdAt: T0, lastUsedAt: T0 });
      assert.equal(await factors.deleteTotp(userId), true);
      assert.equal(await factors.deleteTotp(userId), false);
      assert.equal(await factors.findTotp(userId), null);
    });

    test('a time step is accepted once, never an earlier one, and only for the account that has the app', async () => {
      const factors = opened.storage.secondFactors;
      const userId = await newUser();
      const stranger = await newUser();
      await factors.insertTotp({ userId, secretEncrypted: 'v1.x', lastUsedStep: null, createdAt: T0, lastUsedAt: null });
      assert.equal(await factors.useTotpStep(userId, 500, at(1)), true, 'the first code');
      assert.equal(await factors.useTotpStep(userId, 500, at(2)), false, 'the same step again (a replay)');
      assert.equal(await factors.useTotpStep(userId, 499, at(3)), false, 'an earlier step');
      assert.equal(await factors.useTotpStep(userId, 501, at(31)), true, 'the next step');
      assert.equal(await factors.useTotpStep(stranger, 900, at(31)), false, 'no app');
      const stored = await factors.findTotp(userId);
      assert.equal(stored?.lastUsedStep, 501);
      assert.deepEqual(stored?.lastUsedAt, at(31));
    });

    test('race: one time step sent 10 times at once through two connection pools is accepted exactly once', async () => {
      const userId = await newUser();
      await opened.storage.secondFactors.insertTotp({ userId, secretEncrypted: 'v1.x', lastUsedStep: 10, createdAt: T0, lastUsedAt: null });
      const results = await Promise.all(
        Array.from({ length: 10 }, (_, i) => (i % 2 ? opened.other : opened.storage).secondFactors.useTotpStep(userId, 11, at(1))),
      );
      assert.equal(results.filter(Boolean).length, 1);
    });

    test('recovery codes: each used once; a new set replaces the old one whole; listed without the codes themselves', async () => {
      const factors = opened.storage.secondFactors;
      const userId = await newUser();
      const other = await newUser();
      await factors.replaceRecoveryCodes(userId, ['h1', 'h2', 'h3'], T0);
      await factors.replaceRecoveryCodes(other, ['h1'], T0);
      assert.equal(await factors.useRecoveryCode(userId, 'h2', at(10)), true);
      assert.equal(await factors.useRecoveryCode(userId, 'h2', at(11)), false, 'used already');
      assert.equal(await factors.useRecoveryCode(userId, 'nope', at(11)), false, 'not a code of this account');
      assert.deepEqual(await factors.listRecoveryCodes(userId), [
        { codeHash: 'h1', createdAt: T0, usedAt: null },
        { codeHash: 'h2', createdAt: T0, usedAt: at(10) },
        { codeHash: 'h3', createdAt: T0, usedAt: null },
      ]);
      assert.equal((await factors.listRecoveryCodes(other))[0]?.usedAt, null, "another account's same hash is untouched");
      await factors.replaceRecoveryCodes(userId, ['h4', 'h5'], at(20));
      assert.equal(await factors.useRecoveryCode(userId, 'h1', at(21)), false, 'the old set stopped working');
      assert.deepEqual((await factors.listRecoveryCodes(userId)).map((code) => code.codeHash), ['h4', 'h5']);
      assert.equal(await factors.deleteRecoveryCodes(userId), 2);
      assert.deepEqual(await factors.listRecoveryCodes(userId), []);
    });

    test('race: one recovery code used 10 times at once through two connection pools works exactly once', async () => {
      const userId = await newUser();
      await opened.storage.secondFactors.replaceRecoveryCodes(userId, ['only'], T0);
      const results = await Promise.all(
        Array.from({ length: 10 }, (_, i) => (i % 2 ? opened.other : opened.storage).secondFactors.useRecoveryCode(userId, 'only', at(1))),
      );
      assert.equal(results.filter(Boolean).length, 1);
    });

    test('passkeys: round-trip every field, a credential id registered once, listed per account, removed only by their owner', async () => {
      const passkeys = opened.storage.passkeys;
      const userId = await newUser();
      const stranger = await newUser();
      const passkey = {
        credentialId: `cred-${userId}`,
        userId,
        publicKey: new Uint8Array([1, 2, 3, 250]),
        counter: 0,
        transports: ['internal', 'hybrid'],
        aaguid: '00000000-0000-0000-0000-000000000000',
        backupEligible: true,
        backedUp: false,
        name: 'Work laptop',
        createdAt: T0,
        lastUsedAt: null,
      };
      assert.equal(await passkeys.insert(passkey), true);
      assert.equal(await passkeys.insert({ ...passkey, userId: stranger, name: 'Copy' }), false, 'one credential id, one account');
      const found = await passkeys.findByCredentialId(passkey.credentialId);
      assert.deepEqual({ ...found, publicKey: [...(found?.publicKey ?? [])] }, { ...passkey, publicKey: [1, 2, 3, 250] });
      assert.equal((await passkeys.listByUser(userId)).length, 1);
      assert.deepEqual(await passkeys.listByUser(stranger), []);
      assert.equal(await passkeys.delete(stranger, passkey.credentialId), false, "not the stranger's");
      assert.equal(await passkeys.delete(userId, passkey.credentialId), true);
      assert.equal(await passkeys.findByCredentialId(passkey.credentialId), null);
    });

    test('race: one assertion recorded 10 times at once through two pools moves the counter once', async () => {
      const userId = await newUser();
      const credentialId = `race-${userId}`;
      await opened.storage.passkeys.insert({ credentialId, userId, publicKey: new Uint8Array([9]), counter: 5, transports: [], aaguid: 'x', backupEligible: false, backedUp: false, name: 'Key', createdAt: T0, lastUsedAt: null });
      const results = await Promise.all(
        Array.from({ length: 10 }, (_, i) => (i % 2 ? opened.other : opened.storage).passkeys.recordUse(credentialId, 5, { counter: 6, backedUp: true, at: at(1) })),
      );
      assert.equal(results.filter(Boolean).length, 1);
      const stored = await opened.storage.passkeys.findByCredentialId(credentialId);
      assert.equal(stored?.counter, 6);
      assert.equal(stored?.backedUp, true);
      assert.deepEqual(stored?.lastUsedAt, at(1));
    });

    test('an account deleted takes its app and its codes with it', async () => {
      const factors = opened.storage.secondFactors;
      const userId = await newUser();
      await factors.insertTotp({ userId, secretEncrypted: 'v1.x', lastUsedStep: null, createdAt: T0, lastUsedAt: null });
      await factors.replaceRecoveryCodes(userId, ['a', 'b'], T0);
      await opened.storage.db.deleteFrom('users').where('id', '=', userId).execute();
      assert.equal(await factors.findTotp(userId), null);
      assert.deepEqual(await factors.listRecoveryCodes(userId), []);
    });
  });
}
