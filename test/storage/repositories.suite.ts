/**
 * One conformance suite for every repository, run on each database (sqlite.test.ts, postgres.test.ts), in the
 * manner of hydra's manager test helpers and better-auth's adapter tests: what the protocol code relies on
 * must hold on both, including single use under races (RFC 6749 §4.1.2; docs/protocol-decisions.md,
 * "Authorization code").
 *
 * A repository added later gets its block here, so that both databases check it.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { deleteExpiredRecords } from '../../src/server.js';
import type { Client, ConsumeConditions, NewAuthorizationCode, Storage, User } from '../../src/storage/storage.js';

export interface SuiteDatabase {
  storage: Storage;
  /** A second, independent connection (pool) to the same database: another process, as far as the database can tell. */
  openAnother(): Promise<Storage>;
  close(): Promise<void>;
}

/** Whole seconds: the stores keep epoch seconds. */
const at = (iso: string) => new Date(iso);
const NOW = at('2030-06-01T12:00:00Z');
const LATER = at('2030-06-01T12:01:00Z');
/** Past 2^31 seconds: columns must be bigint, not 32-bit integer. */
const FAR_FUTURE = at('2100-01-01T00:00:00Z');
const EARLIER = at('2030-06-01T11:00:00Z');

const unique = () => randomBytes(8).toString('hex');

export function defineRepositorySuite(label: string, open: () => Promise<SuiteDatabase>): void {
  describe(`repository conformance on ${label}`, () => {
    let database: SuiteDatabase;
    let storage: Storage;
    before(async () => {
      database = await open();
      storage = database.storage;
    });
    after(async () => database?.close());

    async function newUser(overrides: Partial<{ email: string; avatarUrl: string | null }> = {}): Promise<User> {
      const user = await storage.users.insert(
        {
          email: overrides.email ?? `u-${unique()}@Example.com`,
          emailVerified: true,
          name: 'Ada Lovelace',
          avatarUrl: overrides.avatarUrl === undefined ? 'https://img.example.com/a.png' : overrides.avatarUrl,
          passwordHash: '$argon2id$v=19$m=19456,t=2,p=1$fake$fake',
        },
        NOW,
      );
      assert.ok(user);
      return user;
    }

    async function newClient(ownerUserId: number | null = null): Promise<Client> {
      return storage.clients.insert(
        {
          clientId: `client-${unique()}`,
          name: 'Example App',
          secretHash: `hash-${unique()}`,
          previousSecretHash: null,
          previousSecretExpiresAt: null,
          redirectUris: ['https://app.example.com/callback', 'http://127.0.0.1/cb'],
          ownerUserId,
          homepageUrl: null,
          logoUrl: null,
        },
        NOW,
      );
    }

    async function newCode(overrides: Partial<NewAuthorizationCode> = {}): Promise<NewAuthorizationCode> {
      const user = overrides.userId === undefined ? await newUser() : undefined;
      const client = overrides.clientId === undefined ? await newClient() : undefined;
      const code: NewAuthorizationCode = {
        codeHash: `code-${unique()}`,
        grantId: `grant-${unique()}`,
        clientId: client?.clientId ?? overrides.clientId!,
        userId: user?.id ?? overrides.userId!,
        redirectUri: 'https://app.example.com/callback',
        scope: ['openid', 'profile'],
        nonce: 'n-0S6_WzA2Mj',
        codeChallenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
        authTime: EARLIER,
        sid: null,
        // How the person signed in, carried to the grant's id_tokens (session/authentication-methods.ts).
        amr: ['pwd', 'otp', 'mfa'],
        acr: 'https://refeds.org/profile/mfa',
        createdAt: NOW,
        expiresAt: LATER,
        ...overrides,
      };
      await storage.authorizationCodes.insert(code);
      return code;
    }

    describe('users', () => {
      test('insert returns the user with an integer id; findById and findByEmail (any case) return it', async () => {
        const user = await newUser({ email: `  Mixed-${unique()}@Example.COM ` });
        assert.equal(typeof user.id, 'number');
        assert.ok(Number.isInteger(user.id));
        assert.equal(user.email, user.email.trim());
        assert.equal(user.emailVerified, true);
        assert.deepEqual(user.createdAt, NOW);
        assert.deepEqual(await storage.users.findById(user.id), user);
        assert.deepEqual(await storage.users.findByEmail(user.email.toUpperCase()), user);
        assert.deepEqual(await storage.users.findByEmail(user.email.toLowerCase()), user);
      });

      test('an email already taken in another case is refused with null', async () => {
        const user = await newUser();
        const again = await storage.users.insert(
          { email: user.email.toUpperCase(), emailVerified: false, name: 'X', avatarUrl: null, passwordHash: 'h' },
          NOW,
        );
        assert.equal(again, null);
      });

      test('update changes only the patched fields and updatedAt', async () => {
        const user = await newUser();
        await storage.users.update(user.id, { name: 'Grace Hopper', avatarUrl: null, emailVerified: false }, LATER);
        const updated = await storage.users.findById(user.id);
        assert.deepEqual(updated, { ...user, name: 'Grace Hopper', avatarUrl: null, emailVerified: false, updatedAt: LATER });
      });

      test('unknown ids and emails are null', async () => {
        assert.equal(await storage.users.findById(2_000_000_000), null);
        assert.equal(await storage.users.findByEmail(`nobody-${unique()}@example.com`), null);
      });

      test('list returns users in id order', async () => {
        const a = await newUser();
        const b = await newUser();
        const ids = (await storage.users.list()).map((u) => u.id);
        assert.ok(ids.indexOf(a.id) < ids.indexOf(b.id));
        assert.deepEqual([...ids].sort((x, y) => x - y), ids);
      });
    });

    describe('clients', () => {
      test('insert and findById round-trip every field', async () => {
        const owner = await newUser();
        const client = await newClient(owner.id);
        assert.deepEqual(client.redirectUris, ['https://app.example.com/callback', 'http://127.0.0.1/cb']);
        assert.equal(client.ownerUserId, owner.id);
        assert.deepEqual(client.createdAt, NOW);
        assert.deepEqual(await storage.clients.findById(client.clientId), client);
        assert.equal(await storage.clients.findById(`missing-${unique()}`), null);
      });

      test('listByOwner returns only that owner’s clients; list includes them all', async () => {
        const owner = await newUser();
        const mine = [await newClient(owner.id), await newClient(owner.id)];
        const other = await newClient(null);
        const listed = await storage.clients.listByOwner(owner.id);
        assert.deepEqual(listed.map((c) => c.clientId).sort(), mine.map((c) => c.clientId).sort());
        const all = (await storage.clients.list()).map((c) => c.clientId);
        for (const c of [...mine, other]) assert.ok(all.includes(c.clientId));
      });

      test('update patches fields (including a far-future grace expiry) and reports unknown clients', async () => {
        const client = await newClient();
        assert.equal(
          await storage.clients.update(
            client.clientId,
            { redirectUris: ['https://new.example.com/cb'], previousSecretHash: 'old', previousSecretExpiresAt: FAR_FUTURE, logoUrl: 'https://l.example.com/x.png' },
            LATER,
          ),
          true,
        );
        const updated = await storage.clients.findById(client.clientId);
        assert.deepEqual(updated, {
          ...client,
          redirectUris: ['https://new.example.com/cb'],
          previousSecretHash: 'old',
          previousSecretExpiresAt: FAR_FUTURE,
          logoUrl: 'https://l.example.com/x.png',
          updatedAt: LATER,
        });
        assert.equal(await storage.clients.update(`missing-${unique()}`, { name: 'x' }, LATER), false);
      });

      test('delete removes the client with its codes, tokens, consents and events', async () => {
        const user = await newUser();
        const client = await newClient();
        const code = await newCode({ userId: user.id, clientId: client.clientId });
        const tokenHash = `tok-${unique()}`;
        await storage.tokens.insert({ tokenHash, clientId: client.clientId, userId: user.id, scope: ['profile'], grantId: code.grantId, createdAt: NOW, expiresAt: FAR_FUTURE });
        await storage.consents.grant(user.id, client.clientId, ['profile'], NOW);
        await storage.clientEvents.insert({ clientId: client.clientId, createdAt: NOW, endpoint: 'token', error: 'invalid_grant', description: 'd', requestId: 'r', details: null });

        assert.equal(await storage.clients.delete(client.clientId), true);
        assert.equal(await storage.clients.findById(client.clientId), null);
        assert.equal(await storage.authorizationCodes.findByHash(code.codeHash), null);
        assert.equal(await storage.tokens.findByHash(tokenHash), null);
        assert.equal(await storage.consents.find(user.id, client.clientId), null);
        assert.deepEqual(await storage.clientEvents.listRecent(client.clientId, 10), []);
        assert.equal(await storage.clients.delete(client.clientId), false);
      });
    });

    describe('authorization codes', () => {
      const conditionsOf = (code: NewAuthorizationCode) => ({
        codeHash: code.codeHash,
        clientId: code.clientId,
        redirectUri: code.redirectUri,
        codeChallenge: code.codeChallenge,
      });
      /** The conditions of `code` with exactly one binding wrong: the client, redirect_uri, or PKCE. */
      const conditionsFailingOneBinding = (code: NewAuthorizationCode, otherClientId: string) => [
        { ...conditionsOf(code), clientId: otherClientId },
        { ...conditionsOf(code), redirectUri: 'https://app.example.com/other' },
        { ...conditionsOf(code), codeChallenge: 'not-the-challenge' },
        { ...conditionsOf(code), codeChallenge: null },
      ];

      test('insert and findByHash round-trip every binding', async () => {
        const code = await newCode({ nonce: null });
        assert.deepEqual(await storage.authorizationCodes.findByHash(code.codeHash), { ...code, consumedAt: null });
        assert.equal(await storage.authorizationCodes.findByHash(`missing-${unique()}`), null);
      });

      test('consume returns the code to the first caller only, and marks it used', async () => {
        const code = await newCode();
        const first = await storage.authorizationCodes.consume(conditionsOf(code), NOW);
        assert.deepEqual(first, { ...code, consumedAt: NOW });
        assert.equal(await storage.authorizationCodes.consume(conditionsOf(code), NOW), null);
        assert.deepEqual((await storage.authorizationCodes.findByHash(code.codeHash))?.consumedAt, NOW);
      });

      test('consume without redirect_uri (RFC 6749 §4.1.3 departure; docs/protocol-decisions.md, "Token endpoint") still needs every other binding', async () => {
        const code = await newCode();
        assert.ok(await storage.authorizationCodes.consume({ ...conditionsOf(code), redirectUri: undefined }, NOW));
      });

      test('a consume that fails any binding consumes nothing', async () => {
        const code = await newCode();
        const other = await newClient();
        const wrong = conditionsFailingOneBinding(code, other.clientId);
        for (const conditions of wrong) assert.equal(await storage.authorizationCodes.consume(conditions, NOW), null);
        assert.equal((await storage.authorizationCodes.findByHash(code.codeHash))?.consumedAt, null);
        assert.ok(await storage.authorizationCodes.consume(conditionsOf(code), NOW));
      });

      test('a code issued without a challenge is consumed only without one (no PKCE downgrade either way)', async () => {
        const code = await newCode({ codeChallenge: null });
        assert.equal(await storage.authorizationCodes.consume({ ...conditionsOf(code), codeChallenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM' }, NOW), null);
        assert.ok(await storage.authorizationCodes.consume(conditionsOf(code), NOW));
      });

      test('an expired code is never consumed', async () => {
        const code = await newCode({ expiresAt: NOW });
        assert.equal(await storage.authorizationCodes.consume(conditionsOf(code), NOW), null);
        assert.equal(await storage.authorizationCodes.consume(conditionsOf(code), LATER), null);
      });

      test('race: concurrent consumes of one code on one connection pool, exactly one wins', async () => {
        const code = await newCode();
        const results = await Promise.all(Array.from({ length: 12 }, () => storage.authorizationCodes.consume(conditionsOf(code), NOW)));
        assert.equal(results.filter((r) => r !== null).length, 1);
      });

      test('race: concurrent consumes of one code from two independent connections, exactly one wins', async () => {
        const another = await database.openAnother();
        try {
          for (let round = 0; round < 5; round++) {
            const code = await newCode();
            const results = await Promise.all(
              Array.from({ length: 8 }, (_, i) => (i % 2 === 0 ? storage : another).authorizationCodes.consume(conditionsOf(code), NOW)),
            );
            assert.equal(results.filter((r) => r !== null).length, 1, `round ${round}`);
          }
        } finally {
          await another.close();
        }
      });

      /** A token to redeem a code for: only its hash and times are the caller's (client, user and scope come from the code). */
      const tokenFor = () => ({ tokenHash: `tok-${unique()}`, createdAt: NOW, expiresAt: FAR_FUTURE });

      /** How many of these tokens are stored. */
      async function storedCount(tokenHashes: string[]): Promise<number> {
        const found = await Promise.all(tokenHashes.map((hash) => storage.tokens.findByHash(hash)));
        return found.filter((token) => token !== null).length;
      }

      test('redeemCode consumes the code and stores one access token with the code’s client, user, scope and grant', async () => {
        const user = await newUser();
        const client = await newClient();
        const code = await newCode({ userId: user.id, clientId: client.clientId, scope: ['openid', 'email', 'profile'] });
        const token = tokenFor();
        const redeemed = await storage.tokens.redeemCode(conditionsOf(code), token, NOW);
        assert.deepEqual(redeemed, { ...code, consumedAt: NOW });
        assert.deepEqual((await storage.authorizationCodes.findByHash(code.codeHash))?.consumedAt, NOW);
        const stored = {
          tokenHash: token.tokenHash,
          clientId: client.clientId,
          userId: user.id,
          scope: ['openid', 'email', 'profile'],
          grantId: code.grantId,
          createdAt: NOW,
          expiresAt: FAR_FUTURE,
          revokedAt: null,
        };
        assert.deepEqual(await storage.tokens.findByHash(token.tokenHash), stored);
        // What userinfo reads is what was stored, with the code's user.
        assert.deepEqual(await storage.tokens.findActiveWithUser(token.tokenHash, NOW), { token: stored, user });
        // Exactly one token came from the code's grant.
        assert.equal(await storage.tokens.revokeByGrant(code.grantId, LATER), 1);
      });

      test('redeem without redirect_uri (RFC 6749 §4.1.3 departure; docs/protocol-decisions.md, "Token endpoint") still needs every other binding', async () => {
        const code = await newCode();
        const wrongClient = tokenFor();
        const other = await newClient();
        assert.equal(await storage.tokens.redeemCode({ ...conditionsOf(code), redirectUri: undefined, clientId: other.clientId }, wrongClient, NOW), null);
        const token = tokenFor();
        assert.ok(await storage.tokens.redeemCode({ ...conditionsOf(code), redirectUri: undefined }, token, NOW));
        assert.equal(await storedCount([wrongClient.tokenHash, token.tokenHash]), 1);
        assert.ok(await storage.tokens.findByHash(token.tokenHash));
      });

      test('a redeem that fails any condition returns null and writes nothing', async () => {
        const code = await newCode();
        const other = await newClient();
        const wrong = [...conditionsFailingOneBinding(code, other.clientId), { ...conditionsOf(code), codeHash: `missing-${unique()}` }];
        const tried: string[] = [];
        for (const conditions of wrong) {
          const token = tokenFor();
          tried.push(token.tokenHash);
          assert.equal(await storage.tokens.redeemCode(conditions, token, NOW), null);
        }
        assert.equal(await storedCount(tried), 0);
        assert.equal((await storage.authorizationCodes.findByHash(code.codeHash))?.consumedAt, null);

        // A code issued without a challenge: not with one (no PKCE downgrade).
        const plain = await newCode({ codeChallenge: null });
        const withChallenge = tokenFor();
        assert.equal(await storage.tokens.redeemCode({ ...conditionsOf(plain), codeChallenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM' }, withChallenge, NOW), null);
        assert.equal(await storedCount([withChallenge.tokenHash]), 0);
        assert.equal((await storage.authorizationCodes.findByHash(plain.codeHash))?.consumedAt, null);

        // Expired: at its expiry and after it.
        const expired = await newCode({ expiresAt: NOW });
        const atExpiry = tokenFor();
        const afterExpiry = tokenFor();
        assert.equal(await storage.tokens.redeemCode(conditionsOf(expired), atExpiry, NOW), null);
        assert.equal(await storage.tokens.redeemCode(conditionsOf(expired), afterExpiry, LATER), null);
        assert.equal(await storedCount([atExpiry.tokenHash, afterExpiry.tokenHash]), 0);
        assert.equal((await storage.authorizationCodes.findByHash(expired.codeHash))?.consumedAt, null);

        // Already used: the second redeem stores no second token, and the first use stands.
        const first = tokenFor();
        const replay = tokenFor();
        assert.ok(await storage.tokens.redeemCode(conditionsOf(code), first, NOW));
        assert.equal(await storage.tokens.redeemCode(conditionsOf(code), replay, LATER), null);
        assert.equal(await storedCount([first.tokenHash, replay.tokenHash]), 1);
        assert.ok(await storage.tokens.findByHash(first.tokenHash));
        assert.deepEqual((await storage.authorizationCodes.findByHash(code.codeHash))?.consumedAt, NOW);
        assert.equal(await storage.tokens.revokeByGrant(code.grantId, LATER), 1);
      });

      test('a redeem inside a transaction that rolls back leaves the code unused and no token', async () => {
        const code = await newCode();
        const token = tokenFor();
        await assert.rejects(
          storage.transaction(async (tx) => {
            assert.ok(await tx.tokens.redeemCode(conditionsOf(code), token, NOW));
            throw new Error('abort');
          }),
          /abort/,
        );
        assert.equal(await storedCount([token.tokenHash]), 0);
        assert.equal((await storage.authorizationCodes.findByHash(code.codeHash))?.consumedAt, null);
        assert.ok(await storage.tokens.redeemCode(conditionsOf(code), tokenFor(), NOW));
      });

      test('a redeem whose token cannot be stored fails whole: the code stays unused', async () => {
        const user = await newUser();
        const client = await newClient();
        const code = await newCode({ userId: user.id, clientId: client.clientId });
        const taken = tokenFor();
        const takenGrant = `grant-${unique()}`;
        await storage.tokens.insert({ ...taken, clientId: client.clientId, userId: user.id, scope: ['openid'], grantId: takenGrant });
        await assert.rejects(storage.tokens.redeemCode(conditionsOf(code), taken, NOW));
        assert.equal((await storage.authorizationCodes.findByHash(code.codeHash))?.consumedAt, null);
        assert.equal((await storage.tokens.findByHash(taken.tokenHash))?.grantId, takenGrant);
        assert.ok(await storage.tokens.redeemCode(conditionsOf(code), tokenFor(), NOW));
      });

      test('race: 12 concurrent redeems of one code on one connection pool, exactly one wins and one token is stored', async () => {
        const code = await newCode();
        const tokens = Array.from({ length: 12 }, tokenFor);
        const results = await Promise.all(tokens.map((token) => storage.tokens.redeemCode(conditionsOf(code), token, NOW)));
        assert.equal(results.filter((r) => r !== null).length, 1);
        assert.equal(await storedCount(tokens.map((t) => t.tokenHash)), 1);
        assert.equal(await storage.tokens.revokeByGrant(code.grantId, LATER), 1);
      });

      test('exchanges of one turn, of every shape, each get their own answer (one statement for all of them on PostgreSQL)', async () => {
        const client = await newClient();
        const user = await newUser();
        const withPkce = await newCode({ clientId: client.clientId, userId: user.id });
        const withoutPkce = await newCode({ clientId: client.clientId, userId: user.id, codeChallenge: null, redirectUri: 'http://127.0.0.1/cb' });
        const offline = await newCode({ clientId: client.clientId, userId: user.id, codeChallenge: null, scope: ['openid', 'offline_access'] });
        const wrongChallenge = await newCode({ clientId: client.clientId, userId: user.id });
        const wrongRedirect = await newCode({ clientId: client.clientId, userId: user.id, codeChallenge: null });
        const otherClients = await newCode({ userId: user.id });
        const unknown = { ...withPkce, codeHash: `code-${unique()}` };
        const tokens = Array.from({ length: 7 }, tokenFor);
        const refreshes = Array.from({ length: 7 }, () => `rt-${unique()}`);
        const requests: Array<[NewAuthorizationCode, ConsumeConditions]> = [
          [withPkce, conditionsOf(withPkce)],
          [withoutPkce, { ...conditionsOf(withoutPkce), redirectUri: undefined }],
          [offline, conditionsOf(offline)],
          [wrongChallenge, { ...conditionsOf(wrongChallenge), codeChallenge: 'x'.repeat(43) }],
          [wrongRedirect, { ...conditionsOf(wrongRedirect), redirectUri: 'https://app.example.com/other' }],
          [otherClients, { ...conditionsOf(otherClients), clientId: client.clientId }],
          [unknown, conditionsOf(unknown)],
        ];
        const results = await Promise.all(
          requests.map(([, conditions], i) =>
            storage.tokens.redeemCode(conditions, tokens[i]!, NOW, () => ({ tokenHash: refreshes[i]!, expiresAt: FAR_FUTURE, grantExpiresAt: FAR_FUTURE })),
          ),
        );
        assert.deepEqual(results.map((r) => r?.codeHash ?? null), [withPkce.codeHash, withoutPkce.codeHash, offline.codeHash, null, null, null, null]);
        assert.deepEqual(results[2], { ...offline, consumedAt: NOW });
        for (const [i, [code]] of requests.entries()) {
          const stored = await storage.tokens.findByHash(tokens[i]!.tokenHash);
          if (i < 3) assert.deepEqual([stored?.grantId, stored?.clientId, stored?.scope], [code.grantId, code.clientId, code.scope], `request ${i}`);
          else assert.equal(stored, null, `request ${i}`);
          // A refresh token only with offline_access, for the grant of its own code.
          assert.equal((await storage.tokens.findRefreshByHash(refreshes[i]!))?.grantId ?? null, i === 2 ? offline.grantId : null, `request ${i}`);
          if (i >= 3) assert.equal((await storage.authorizationCodes.findByHash(code.codeHash))?.consumedAt ?? null, null, `request ${i}`);
        }
      });

      test('an exchange of a turn whose token cannot be stored fails alone; the others of its turn succeed', async () => {
        const client = await newClient();
        const user = await newUser();
        const codes = await Promise.all(Array.from({ length: 3 }, () => newCode({ clientId: client.clientId, userId: user.id })));
        const tokens = codes.map(tokenFor);
        await storage.tokens.insert({ ...tokens[1]!, clientId: client.clientId, userId: user.id, scope: ['openid'], grantId: `grant-${unique()}` });
        const results = await Promise.allSettled(codes.map((code, i) => storage.tokens.redeemCode(conditionsOf(code), tokens[i]!, NOW)));
        assert.deepEqual(results.map((r) => r.status), ['fulfilled', 'rejected', 'fulfilled']);
        assert.equal((await storage.authorizationCodes.findByHash(codes[1]!.codeHash))?.consumedAt, null);
        assert.equal((await storage.tokens.findByHash(tokens[0]!.tokenHash))?.grantId, codes[0]!.grantId);
        assert.equal((await storage.tokens.findByHash(tokens[2]!.tokenHash))?.grantId, codes[2]!.grantId);
      });

      test('race: concurrent redeems of one code from two independent connections, exactly one wins and one token is stored', async () => {
        const another = await database.openAnother();
        try {
          for (let round = 0; round < 5; round++) {
            const code = await newCode();
            const tokens = Array.from({ length: 12 }, tokenFor);
            const results = await Promise.all(
              tokens.map((token, i) => (i % 2 === 0 ? storage : another).tokens.redeemCode(conditionsOf(code), token, NOW)),
            );
            assert.equal(results.filter((r) => r !== null).length, 1, `round ${round}`);
            assert.equal(await storedCount(tokens.map((t) => t.tokenHash)), 1, `round ${round}`);
            assert.equal(await storage.tokens.revokeByGrant(code.grantId, LATER), 1, `round ${round}`);
          }
        } finally {
          await another.close();
        }
      });

      test('deleteExpired removes codes that expired before the cutoff, and only those', async () => {
        const old = await newCode({ expiresAt: EARLIER });
        const live = await newCode({ expiresAt: FAR_FUTURE });
        assert.ok((await storage.authorizationCodes.deleteExpired(NOW)) >= 1);
        assert.equal(await storage.authorizationCodes.findByHash(old.codeHash), null);
        assert.ok(await storage.authorizationCodes.findByHash(live.codeHash));
      });

      test('deleteExpired with a limit deletes at most that many rows per call, and the rest on later calls', async () => {
        // Whatever earlier tests left expired goes first, so that the counts below are this test's own.
        while ((await storage.authorizationCodes.deleteExpired(NOW, 100)) > 0);
        const old = await Promise.all(Array.from({ length: 5 }, () => newCode({ expiresAt: EARLIER })));
        const live = await newCode({ expiresAt: FAR_FUTURE });
        assert.equal(await storage.authorizationCodes.deleteExpired(NOW, 2), 2);
        assert.equal(await storage.authorizationCodes.deleteExpired(NOW, 2), 2);
        assert.equal(await storage.authorizationCodes.deleteExpired(NOW, 2), 1);
        assert.equal(await storage.authorizationCodes.deleteExpired(NOW, 2), 0);
        for (const code of old) assert.equal(await storage.authorizationCodes.findByHash(code.codeHash), null);
        assert.ok(await storage.authorizationCodes.findByHash(live.codeHash));
      });

      test('the periodic cleanup (deleteExpiredRecords) goes through every batch until nothing expired is left', async () => {
        const old = await Promise.all(Array.from({ length: 7 }, () => newCode({ expiresAt: EARLIER })));
        const live = await newCode({ expiresAt: FAR_FUTURE });
        // Codes are kept a day past expiry (replay detection): clean up as of two days later, 3 rows a batch.
        await deleteExpiredRecords(storage, { refreshTokenReuseGraceSeconds: 60 }, at('2030-06-03T12:00:00Z'), 3);
        for (const code of old) assert.equal(await storage.authorizationCodes.findByHash(code.codeHash), null);
        assert.ok(await storage.authorizationCodes.findByHash(live.codeHash));
      });
    });

    describe('refresh tokens', () => {
      /** A code with offline_access redeemed for an access token and a refresh token; returns the refresh token's hash. */
      async function grantWithRefresh(expiresAt = FAR_FUTURE): Promise<{ refreshHash: string; code: NewAuthorizationCode }> {
        const code = await newCode({ scope: ['openid', 'profile', 'offline_access'] });
        const refreshHash = `rt-${unique()}`;
        const redeemed = await storage.tokens.redeemCode(
          { codeHash: code.codeHash, clientId: code.clientId, redirectUri: code.redirectUri, codeChallenge: code.codeChallenge },
          { tokenHash: `tok-${unique()}`, createdAt: NOW, expiresAt: FAR_FUTURE },
          NOW,
          () => ({ tokenHash: refreshHash, expiresAt, grantExpiresAt: FAR_FUTURE }),
        );
        assert.ok(redeemed);
        return { refreshHash, code };
      }
      const rotation = (tokenHash: string, clientId: string, narrowScope = (granted: string[]) => granted) => ({
        tokenHash,
        clientId,
        successor: { tokenHash: `rt-${unique()}`, encrypted: 'sealed', idleSeconds: 3600 },
        accessToken: { tokenHash: `tok-${unique()}`, createdAt: NOW, expiresAt: FAR_FUTURE },
        narrowScope,
      });

      test('refreshes of one turn that keep their scope (one statement for all of them on PostgreSQL): each rotates its own token', async () => {
        const grants = await Promise.all(Array.from({ length: 5 }, () => grantWithRefresh()));
        const tries = grants.map(({ refreshHash, code }) => ({ ...rotation(refreshHash, code.clientId), narrowScope: undefined }));
        // A sixth presents the first one's token again in the same turn; a seventh names another client.
        const again = { ...rotation(grants[0]!.refreshHash, grants[0]!.code.clientId), narrowScope: undefined };
        const wrongClient = { ...rotation(grants[1]!.refreshHash, grants[2]!.code.clientId), narrowScope: undefined };
        const results = await Promise.all([...tries, again, wrongClient].map((r) => storage.tokens.rotateRefreshToken(r, LATER)));
        const firstWon = results[0] !== null;
        assert.equal([results[0], results[5]].filter((r) => r !== null).length, 1, 'one of two refreshes of one token rotates it');
        assert.equal(results[6], null);
        for (const [i, { refreshHash, code }] of grants.entries()) {
          const result = i === 0 ? (firstWon ? results[0] : results[5]) : results[i];
          const used = i === 0 && !firstWon ? again : tries[i]!;
          assert.deepEqual([result?.rotated.tokenHash, result?.rotated.grantId, result?.scope], [refreshHash, code.grantId, code.scope], `grant ${i}`);
          const successor = await storage.tokens.findRefreshByHash(used.successor.tokenHash);
          assert.deepEqual([successor?.grantId, successor?.scope, successor?.rotatedAt], [code.grantId, code.scope, null], `grant ${i}`);
          assert.deepEqual((await storage.tokens.findByHash(used.accessToken.tokenHash))?.scope, code.scope, `grant ${i}`);
          assert.deepEqual((await storage.tokens.findRefreshByHash(refreshHash))?.rotatedAt, LATER, `grant ${i}`);
        }
        const loser = firstWon ? again : tries[0]!;
        assert.equal(await storage.tokens.findRefreshByHash(loser.successor.tokenHash), null, 'the loser stored nothing');
        assert.equal(await storage.tokens.findByHash(loser.accessToken.tokenHash), null);
      });

      test('a code redeemed with offline_access stores a refresh token bound to its client, user, grant, scope and auth_time', async () => {
        const { refreshHash, code } = await grantWithRefresh();
        const stored = await storage.tokens.findRefreshByHash(refreshHash);
        assert.deepEqual(stored, {
          tokenHash: refreshHash,
          grantId: code.grantId,
          clientId: code.clientId,
          userId: code.userId,
          scope: ['openid', 'profile', 'offline_access'],
          authTime: code.authTime,
          createdAt: NOW,
          expiresAt: FAR_FUTURE,
          grantExpiresAt: FAR_FUTURE,
          rotatedAt: null,
          successorEncrypted: null,
          revokedAt: null,
          sid: null,
          amr: code.amr,
          acr: code.acr,
        });
      });

      test('a refresh token keeps the sid of the session its code was approved in, through every rotation', async () => {
        const user = await newUser();
        const sid = `sid-${unique()}`;
        await storage.browserSessions.insert({ sessionHash: `s-${unique()}`, sid, userId: user.id, authTime: NOW, createdAt: NOW, lastSeenAt: NOW, expiresAt: FAR_FUTURE, userAgent: null, ipAddress: null });
        const code = await newCode({ userId: user.id, sid, scope: ['openid', 'offline_access'] });
        const refreshHash = `rt-${unique()}`;
        assert.equal((await storage.authorizationCodes.findByHash(code.codeHash))?.sid, sid);
        await storage.tokens.redeemCode(
          { codeHash: code.codeHash, clientId: code.clientId, redirectUri: code.redirectUri, codeChallenge: code.codeChallenge },
          { tokenHash: `tok-${unique()}`, createdAt: NOW, expiresAt: FAR_FUTURE },
          NOW,
          () => ({ tokenHash: refreshHash, expiresAt: FAR_FUTURE, grantExpiresAt: FAR_FUTURE }),
        );
        assert.equal((await storage.tokens.findRefreshByHash(refreshHash))?.sid, sid);
        const r = rotation(refreshHash, code.clientId);
        assert.equal((await storage.tokens.rotateRefreshToken(r, LATER))?.rotated.sid, sid);
        assert.equal((await storage.tokens.findRefreshByHash(r.successor.tokenHash))?.sid, sid);
        // And how the person signed in (amr, acr): every refreshed id_token describes the same sign-in.
        const successor = await storage.tokens.findRefreshByHash(r.successor.tokenHash);
        assert.deepEqual([successor?.amr, successor?.acr], [code.amr, code.acr]);
      });

      test('a code without offline_access stores no refresh token, even when one is offered', async () => {
        const code = await newCode({ scope: ['openid', 'profile'] });
        let asked = false;
        const refreshHash = `rt-${unique()}`;
        assert.ok(
          await storage.tokens.redeemCode(
            { codeHash: code.codeHash, clientId: code.clientId, redirectUri: code.redirectUri, codeChallenge: code.codeChallenge },
            { tokenHash: `tok-${unique()}`, createdAt: NOW, expiresAt: FAR_FUTURE },
            NOW,
            () => ((asked = true), { tokenHash: refreshHash, expiresAt: FAR_FUTURE, grantExpiresAt: FAR_FUTURE }),
          ),
        );
        // It may be asked for (a batch of exchanges on PostgreSQL asks before it knows the scope): it is not stored.
        void asked;
        assert.equal(await storage.tokens.findRefreshByHash(refreshHash), null);
      });

      test('rotation marks the token, stores the successor in the same grant and the access token with the narrowed scope', async () => {
        const { refreshHash, code } = await grantWithRefresh();
        const r = rotation(refreshHash, code.clientId, () => ['profile']);
        const result = await storage.tokens.rotateRefreshToken(r, LATER);
        assert.ok(result);
        assert.deepEqual(result.scope, ['profile']);
        assert.deepEqual(result.rotated.rotatedAt, LATER);
        assert.equal((await storage.tokens.findRefreshByHash(refreshHash))?.successorEncrypted, 'sealed');
        const successor = await storage.tokens.findRefreshByHash(r.successor.tokenHash);
        assert.equal(successor?.grantId, code.grantId);
        assert.deepEqual(successor?.scope, ['openid', 'profile', 'offline_access'], 'the refresh token keeps the granted scope');
        assert.deepEqual((await storage.tokens.findByHash(r.accessToken.tokenHash))?.scope, ['profile']);
        assert.equal(await storage.tokens.rotateRefreshToken(rotation(refreshHash, code.clientId), LATER), null, 'a rotated token rotates no more');
      });

      test('a rotation that fails any condition, or whose scope check throws, writes nothing', async () => {
        const { refreshHash, code } = await grantWithRefresh();
        const other = await newClient();
        const wrongClient = rotation(refreshHash, other.clientId);
        assert.equal(await storage.tokens.rotateRefreshToken(wrongClient, LATER), null);
        const refused = rotation(refreshHash, code.clientId, () => {
          throw new Error('wider than granted');
        });
        await assert.rejects(storage.tokens.rotateRefreshToken(refused, LATER), /wider than granted/);
        for (const r of [wrongClient, refused]) {
          assert.equal(await storage.tokens.findRefreshByHash(r.successor.tokenHash), null);
          assert.equal(await storage.tokens.findByHash(r.accessToken.tokenHash), null);
        }
        assert.equal((await storage.tokens.findRefreshByHash(refreshHash))?.rotatedAt, null);
        assert.ok(await storage.tokens.rotateRefreshToken(rotation(refreshHash, code.clientId), LATER));
      });

      test('race: concurrent rotations of one refresh token from two independent connections, exactly one wins', async () => {
        const another = await database.openAnother();
        try {
          for (let round = 0; round < 5; round++) {
            const { refreshHash, code } = await grantWithRefresh();
            const tries = Array.from({ length: 10 }, () => rotation(refreshHash, code.clientId));
            const results = await Promise.all(tries.map((r, i) => (i % 2 === 0 ? storage : another).tokens.rotateRefreshToken(r, LATER)));
            assert.equal(results.filter((r) => r !== null).length, 1, `round ${round}`);
            const successors = await Promise.all(tries.map((r) => storage.tokens.findRefreshByHash(r.successor.tokenHash)));
            assert.equal(successors.filter((t) => t !== null).length, 1, `round ${round}: one successor stored`);
          }
        } finally {
          await another.close();
        }
      });

      test('revokeByGrant revokes the refresh tokens with the access tokens', async () => {
        const { refreshHash, code } = await grantWithRefresh();
        assert.ok((await storage.tokens.revokeByGrant(code.grantId, LATER)) >= 2);
        assert.deepEqual((await storage.tokens.findRefreshByHash(refreshHash))?.revokedAt, LATER);
        assert.equal(await storage.tokens.rotateRefreshToken(rotation(refreshHash, code.clientId), LATER), null, 'a revoked token does not rotate');
      });

      test('countLiveGrants counts each grant of a client once while it has a live access or refresh token', async () => {
        const client = await newClient();
        const user = await newUser();
        assert.equal(await storage.tokens.countLiveGrants(client.clientId, NOW), 0);
        // A grant with both a live access token and a live refresh token counts once.
        const code = await newCode({ clientId: client.clientId, userId: user.id, scope: ['openid', 'offline_access'] });
        assert.ok(
          await storage.tokens.redeemCode(
            { codeHash: code.codeHash, clientId: client.clientId, redirectUri: code.redirectUri, codeChallenge: code.codeChallenge },
            { tokenHash: `tok-${unique()}`, createdAt: NOW, expiresAt: LATER },
            NOW,
            () => ({ tokenHash: `rt-${unique()}`, expiresAt: FAR_FUTURE, grantExpiresAt: FAR_FUTURE }),
          ),
        );
        // A grant with an access token only, and another client's grant.
        await storage.tokens.insert({ tokenHash: `tok-${unique()}`, clientId: client.clientId, userId: user.id, scope: ['profile'], grantId: `grant-${unique()}`, createdAt: NOW, expiresAt: LATER });
        const other = await newClient();
        await storage.tokens.insert({ tokenHash: `tok-${unique()}`, clientId: other.clientId, userId: user.id, scope: ['profile'], grantId: `grant-${unique()}`, createdAt: NOW, expiresAt: LATER });
        assert.equal(await storage.tokens.countLiveGrants(client.clientId, NOW), 2);
        // After the access tokens expire, the refresh token keeps its grant live; revoked, nothing is.
        assert.equal(await storage.tokens.countLiveGrants(client.clientId, at('2030-06-01T13:00:00Z')), 1);
        await storage.tokens.revokeByGrant(code.grantId, NOW);
        assert.equal(await storage.tokens.countLiveGrants(client.clientId, at('2030-06-01T13:00:00Z')), 0);
      });

      test('an idle-expired refresh token does not rotate, and deleteExpired removes it, not a live one', async () => {
        const expired = await grantWithRefresh(LATER);
        const live = await grantWithRefresh();
        assert.equal(await storage.tokens.rotateRefreshToken(rotation(expired.refreshHash, expired.code.clientId), LATER), null);
        await storage.tokens.deleteExpired(at('2030-06-02T00:00:00Z'));
        assert.equal(await storage.tokens.findRefreshByHash(expired.refreshHash), null);
        assert.ok(await storage.tokens.findRefreshByHash(live.refreshHash));
      });
    });

    describe('access tokens', () => {
      async function newToken(overrides: Partial<{ expiresAt: Date; grantId: string; userId: number; clientId: string }> = {}) {
        const user = overrides.userId === undefined ? await newUser() : await storage.users.findById(overrides.userId);
        const clientId = overrides.clientId ?? (await newClient()).clientId;
        assert.ok(user);
        const token = {
          tokenHash: `tok-${unique()}`,
          clientId,
          userId: user.id,
          scope: ['openid', 'profile'],
          grantId: overrides.grantId ?? `grant-${unique()}`,
          createdAt: NOW,
          expiresAt: overrides.expiresAt ?? FAR_FUTURE,
        };
        await storage.tokens.insert(token);
        return { token, user };
      }

      test('findActiveWithUser returns the token and its user in one read', async () => {
        const { token, user } = await newToken();
        assert.deepEqual(await storage.tokens.findActiveWithUser(token.tokenHash, NOW), { token: { ...token, revokedAt: null }, user });
        assert.deepEqual(await storage.tokens.findByHash(token.tokenHash), { ...token, revokedAt: null });
      });

      test('an expired or unknown token is not active', async () => {
        const { token } = await newToken({ expiresAt: LATER });
        assert.equal(await storage.tokens.findActiveWithUser(token.tokenHash, LATER), null);
        assert.equal(await storage.tokens.findActiveWithUser(`missing-${unique()}`, NOW), null);
      });

      test('revokeByGrant revokes every token of that grant, and only those', async () => {
        const grantId = `grant-${unique()}`;
        const { token: a, user } = await newToken({ grantId });
        const { token: b } = await newToken({ grantId, userId: user.id, clientId: a.clientId });
        const { token: unrelated } = await newToken();
        assert.equal(await storage.tokens.revokeByGrant(grantId, LATER), 2);
        assert.equal(await storage.tokens.revokeByGrant(grantId, LATER), 0);
        for (const t of [a, b]) {
          assert.equal(await storage.tokens.findActiveWithUser(t.tokenHash, NOW), null);
          assert.deepEqual((await storage.tokens.findByHash(t.tokenHash))?.revokedAt, LATER);
        }
        assert.ok(await storage.tokens.findActiveWithUser(unrelated.tokenHash, NOW));
      });

      test('revokeByUserAndClient revokes that user’s tokens for that client only', async () => {
        const { token, user } = await newToken();
        const { token: otherClient } = await newToken({ userId: user.id });
        assert.equal(await storage.tokens.revokeByUserAndClient(user.id, token.clientId, LATER), 1);
        assert.equal(await storage.tokens.findActiveWithUser(token.tokenHash, NOW), null);
        assert.ok(await storage.tokens.findActiveWithUser(otherClient.tokenHash, NOW));
      });

      test('deleteExpired removes expired tokens only', async () => {
        const { token: old } = await newToken({ expiresAt: EARLIER });
        const { token: live } = await newToken();
        assert.ok((await storage.tokens.deleteExpired(NOW)) >= 1);
        assert.equal(await storage.tokens.findByHash(old.tokenHash), null);
        assert.ok(await storage.tokens.findByHash(live.tokenHash));
      });
    });

    describe('consents', () => {
      test('grant records the union of scopes granted; find and listByUser return it', async () => {
        const user = await newUser();
        const client = await newClient();
        await storage.consents.grant(user.id, client.clientId, ['profile'], NOW);
        await storage.consents.grant(user.id, client.clientId, ['openid', 'profile'], LATER);
        const consent = await storage.consents.find(user.id, client.clientId);
        assert.deepEqual(consent, { userId: user.id, clientId: client.clientId, scope: ['openid', 'profile'], createdAt: NOW, updatedAt: LATER, lastUsedAt: null });
        assert.deepEqual(await storage.consents.listByUser(user.id), [consent]);
      });

      test('concurrent grants by one user to one client never fail and leave one consent', async () => {
        const user = await newUser();
        const client = await newClient();
        await Promise.all(Array.from({ length: 6 }, () => storage.consents.grant(user.id, client.clientId, ['profile'], NOW)));
        assert.equal((await storage.consents.listByUser(user.id)).length, 1);
      });

      test('markUsed records when the app last received tokens, at most once a minute, and only for an existing consent', async () => {
        const user = await newUser();
        const client = await newClient();
        await storage.consents.markUsed(user.id, client.clientId, NOW);
        assert.equal(await storage.consents.find(user.id, client.clientId), null, 'no consent is created by it');
        await storage.consents.grant(user.id, client.clientId, ['profile'], NOW);
        await storage.consents.markUsed(user.id, client.clientId, NOW);
        assert.deepEqual((await storage.consents.listByUser(user.id))[0]?.lastUsedAt, NOW);
        await storage.consents.markUsed(user.id, client.clientId, at('2030-06-01T12:00:30Z'));
        assert.deepEqual((await storage.consents.listByUser(user.id))[0]?.lastUsedAt, NOW, 'within the minute: not written again');
        await storage.consents.markUsed(user.id, client.clientId, LATER);
        assert.deepEqual((await storage.consents.listByUser(user.id))[0]?.lastUsedAt, LATER);
        // A grant of more scopes keeps the record.
        await storage.consents.grant(user.id, client.clientId, ['openid', 'profile'], LATER);
        assert.deepEqual((await storage.consents.listByUser(user.id))[0]?.lastUsedAt, LATER);
      });

      test('revoke removes the consent and reports whether there was one', async () => {
        const user = await newUser();
        const client = await newClient();
        await storage.consents.grant(user.id, client.clientId, ['profile'], NOW);
        assert.equal(await storage.consents.revoke(user.id, client.clientId), true);
        assert.equal(await storage.consents.find(user.id, client.clientId), null);
        assert.equal(await storage.consents.revoke(user.id, client.clientId), false);
      });
    });

    describe('browser sessions', () => {
      async function newSession(userId: number, expiresAt = FAR_FUTURE) {
        const session = { sessionHash: `s-${unique()}`, sid: `sid-${unique()}`, userId, authTime: NOW, createdAt: NOW, lastSeenAt: NOW, expiresAt, userAgent: 'test-agent', ipAddress: '127.0.0.1', amr: ['pwd'] };
        await storage.browserSessions.insert(session);
        return session;
      }

      test('findActive returns an unexpired session; touch moves lastSeenAt', async () => {
        const user = await newUser();
        const session = await newSession(user.id);
        assert.deepEqual(await storage.browserSessions.findActive(session.sessionHash, NOW), session);
        await storage.browserSessions.touch(session.sessionHash, LATER);
        assert.deepEqual((await storage.browserSessions.findActive(session.sessionHash, NOW))?.lastSeenAt, LATER);
      });

      test('an expired session is not active and deleteExpired removes it', async () => {
        const user = await newUser();
        const session = await newSession(user.id, LATER);
        assert.equal(await storage.browserSessions.findActive(session.sessionHash, LATER), null);
        assert.ok((await storage.browserSessions.deleteExpired(FAR_FUTURE)) >= 1);
        assert.equal(await storage.browserSessions.findActive(session.sessionHash, NOW), null);
      });

      test('end of all but one session returns each ended sid with the clients a code was issued to in it', async () => {
        const user = await newUser();
        const [kept, gone1, gone2] = [await newSession(user.id), await newSession(user.id), await newSession(user.id)];
        const [appA, appB] = [await newClient(), await newClient()];
        // Two codes for appA in one session count once; a code without a sid records nothing.
        for (const [session, client] of [[gone1, appA], [gone1, appA], [gone1, appB], [kept, appB]] as const) {
          await newCode({ userId: user.id, clientId: client.clientId, sid: session.sid });
        }
        await newCode({ userId: user.id, clientId: appA.clientId, sid: null });
        assert.equal((await storage.browserSessions.listByUser(user.id, NOW)).length, 3);
        const ended = await storage.transaction((tx) => tx.browserSessions.end(user.id, { allExcept: kept.sessionHash }));
        assert.deepEqual(
          ended.map((s) => ({ ...s, clientIds: [...s.clientIds].sort() })).sort((a, b) => a.sid.localeCompare(b.sid)),
          [
            { sid: gone1.sid, clientIds: [appA.clientId, appB.clientId].sort() },
            { sid: gone2.sid, clientIds: [] },
          ].sort((a, b) => a.sid.localeCompare(b.sid)),
        );
        assert.equal(await storage.browserSessions.findActive(gone1.sessionHash, NOW), null);
        assert.equal(await storage.browserSessions.findActive(gone2.sessionHash, NOW), null);
        // Another user's session is never ended by this user's ending.
        const stranger = await newSession((await newUser()).id);
        assert.deepEqual(await storage.transaction((tx) => tx.browserSessions.end(user.id, { sessionHash: stranger.sessionHash })), []);
        assert.ok(await storage.browserSessions.findActive(stranger.sessionHash, NOW));
        assert.deepEqual(await storage.transaction((tx) => tx.browserSessions.end(user.id, { sessionHash: kept.sessionHash })), [
          { sid: kept.sid, clientIds: [appB.clientId] },
        ]);
        assert.deepEqual(await storage.browserSessions.listByUser(user.id, NOW), []);
      });

      test('renew gives the session a new hash and auth_time and keeps its sid and its clients', async () => {
        const user = await newUser();
        const session = await newSession(user.id);
        const app = await newClient();
        await newCode({ userId: user.id, clientId: app.clientId, sid: session.sid });
        const renewed = { sessionHash: `s-${unique()}`, authTime: LATER, lastSeenAt: LATER, expiresAt: FAR_FUTURE, userAgent: 'other-agent', ipAddress: '127.0.0.2' };
        assert.equal(await storage.browserSessions.renew(session.sessionHash, renewed), true);
        assert.equal(await storage.browserSessions.findActive(session.sessionHash, NOW), null);
        assert.deepEqual(await storage.browserSessions.findActive(renewed.sessionHash, NOW), { ...session, ...renewed });
        assert.equal(await storage.browserSessions.renew(session.sessionHash, { ...renewed, sessionHash: `s-${unique()}` }), false);
        assert.deepEqual(await storage.transaction((tx) => tx.browserSessions.end(user.id, { sessionHash: renewed.sessionHash })), [
          { sid: session.sid, clientIds: [app.clientId] },
        ]);
      });

      test('codes of one turn (one statement for all of them on PostgreSQL): each stored whole, each session’s clients recorded once, a code that cannot be stored fails alone', async () => {
        const user = await newUser();
        const [live, ended] = [await newSession(user.id), await newSession(user.id)];
        await storage.transaction((tx) => tx.browserSessions.end(user.id, { sessionHash: ended.sessionHash }));
        const [appA, appB] = [await newClient(), await newClient()];
        const base = { userId: user.id, redirectUri: 'https://app.example.com/callback', scope: ['openid', 'profile'], authTime: EARLIER, createdAt: NOW, expiresAt: LATER };
        const codeOf = (clientId: string, sid: string | null, extra: Partial<NewAuthorizationCode> = {}): NewAuthorizationCode => ({
          ...base,
          codeHash: `code-${unique()}`,
          grantId: `grant-${unique()}`,
          clientId,
          nonce: null,
          codeChallenge: null,
          sid,
          ...extra,
        });
        const codes = [
          codeOf(appA.clientId, live.sid, { nonce: 'n-1', codeChallenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM', amr: ['pwd', 'otp'], acr: 'urn:x' }),
          // Two codes for appA in one session, in one turn: one row for the pair.
          codeOf(appA.clientId, live.sid),
          codeOf(appB.clientId, live.sid),
          // Its session has ended: the code is stored, no client recorded for that session.
          codeOf(appB.clientId, ended.sid),
          codeOf(appA.clientId, null),
          // No such client (as one deleted meanwhile): only this code fails.
          codeOf(`client-gone-${unique()}`, live.sid),
        ];
        const results = await Promise.allSettled(codes.map((code) => storage.authorizationCodes.insert(code)));
        assert.deepEqual(results.map((r) => r.status), ['fulfilled', 'fulfilled', 'fulfilled', 'fulfilled', 'fulfilled', 'rejected']);
        for (const [i, code] of codes.entries()) {
          const stored = await storage.authorizationCodes.findByHash(code.codeHash);
          if (i === 5) assert.equal(stored, null);
          else assert.deepEqual(stored, { amr: [], acr: null, ...code, consumedAt: null }, `code ${i}`);
        }
        const sessions = await storage.transaction((tx) => tx.browserSessions.end(user.id, { sessionHash: live.sessionHash }));
        assert.deepEqual(
          sessions.map((s) => ({ ...s, clientIds: [...s.clientIds].sort() })),
          [{ sid: live.sid, clientIds: [appA.clientId, appB.clientId].sort() }],
        );
      });

      test('a code issued for a session that has ended records no client for it', async () => {
        const user = await newUser();
        const session = await newSession(user.id);
        await storage.transaction((tx) => tx.browserSessions.end(user.id, { sessionHash: session.sessionHash }));
        const code = await newCode({ userId: user.id, sid: session.sid });
        assert.equal((await storage.authorizationCodes.findByHash(code.codeHash))?.sid, session.sid);
      });
    });

    describe('client events', () => {
      test('listRecent returns the newest first, up to the limit, with details parsed', async () => {
        const client = await newClient();
        for (let i = 0; i < 4; i++) {
          await storage.clientEvents.insert({
            clientId: client.clientId,
            createdAt: new Date(NOW.getTime() + i * 1000),
            endpoint: 'authorize',
            error: 'invalid_request',
            description: `event ${i}`,
            requestId: `req-${i}`,
            details: i === 3 ? { redirect_uri: 'https://x.example.com/cb', registered: ['a', 'b'] } : null,
          });
        }
        const recent = await storage.clientEvents.listRecent(client.clientId, 2);
        assert.deepEqual(recent.map((e) => e.description), ['event 3', 'event 2']);
        assert.deepEqual(recent[0]?.details, { redirect_uri: 'https://x.example.com/cb', registered: ['a', 'b'] });
        assert.equal(typeof recent[0]?.id, 'number');
      });

      test('deleteBefore removes older events only', async () => {
        const client = await newClient();
        const event = { clientId: client.clientId, endpoint: 'token', error: 'invalid_grant', description: 'd', requestId: 'r', details: null };
        await storage.clientEvents.insert({ ...event, createdAt: EARLIER });
        await storage.clientEvents.insert({ ...event, createdAt: LATER });
        assert.ok((await storage.clientEvents.deleteBefore(NOW)) >= 1);
        assert.deepEqual((await storage.clientEvents.listRecent(client.clientId, 10)).map((e) => e.createdAt), [LATER]);
      });
    });

    describe('email links', () => {
      async function newLink(overrides: Partial<{ expiresAt: Date; purpose: 'verify_email' | 'reset_password' }> = {}) {
        const user = await newUser();
        const link = {
          tokenHash: `link-${unique()}`,
          userId: user.id,
          purpose: overrides.purpose ?? ('reset_password' as const),
          email: user.email,
          createdAt: NOW,
          expiresAt: overrides.expiresAt ?? FAR_FUTURE,
        };
        await storage.emailLinks.insert(link);
        return link;
      }

      test('a link is usable until consumed, for its own purpose only', async () => {
        const link = await newLink();
        assert.deepEqual(await storage.emailLinks.findUsable(link.tokenHash, 'reset_password', NOW), { ...link, usedAt: null });
        assert.equal(await storage.emailLinks.findUsable(link.tokenHash, 'verify_email', NOW), null);
        assert.equal(await storage.emailLinks.consume(link.tokenHash, 'verify_email', NOW), null);
        assert.deepEqual(await storage.emailLinks.consume(link.tokenHash, 'reset_password', NOW), { ...link, usedAt: NOW });
        assert.equal(await storage.emailLinks.findUsable(link.tokenHash, 'reset_password', NOW), null);
      });

      test('race: concurrent uses of one link from two independent connections, exactly one wins', async () => {
        const another = await database.openAnother();
        try {
          const link = await newLink();
          const results = await Promise.all(
            Array.from({ length: 8 }, (_, i) => (i % 2 === 0 ? storage : another).emailLinks.consume(link.tokenHash, 'reset_password', NOW)),
          );
          assert.equal(results.filter((r) => r !== null).length, 1);
        } finally {
          await another.close();
        }
      });

      test('an expired link is never consumed', async () => {
        const link = await newLink({ expiresAt: LATER });
        assert.equal(await storage.emailLinks.consume(link.tokenHash, 'reset_password', LATER), null);
      });
    });

    describe('used WebAuthn challenges', () => {
      // Single use on the server (WebAuthn Level 2 §13.4.3): the challenge itself lives in the browser's cookie.
      const challengeHash = () => `challenge-${unique()}`;

      test('markUsed: true for the first use of a challenge, false for every later one', async () => {
        const hash = challengeHash();
        assert.equal(await storage.webauthnChallenges.markUsed(hash, LATER), true);
        assert.equal(await storage.webauthnChallenges.markUsed(hash, LATER), false);
        assert.equal(await storage.webauthnChallenges.markUsed(hash, FAR_FUTURE), false);
        assert.equal(await storage.webauthnChallenges.markUsed(challengeHash(), LATER), true);
      });

      test('race: concurrent uses of one challenge from two independent connections, exactly one wins', async () => {
        const another = await database.openAnother();
        try {
          for (let round = 0; round < 5; round++) {
            const hash = challengeHash();
            const results = await Promise.all(
              Array.from({ length: 8 }, (_, i) => (i % 2 === 0 ? storage : another).webauthnChallenges.markUsed(hash, FAR_FUTURE)),
            );
            assert.equal(results.filter((first) => first).length, 1, `round ${round}`);
          }
        } finally {
          await another.close();
        }
      });

      test('deleteExpired removes only the records that expired before the cutoff, in batches of `limit`', async () => {
        // Whatever earlier tests left expired goes first, so that the counts below are this test's own.
        while ((await storage.webauthnChallenges.deleteExpired(NOW, 100)) > 0);
        const expired = Array.from({ length: 3 }, challengeHash);
        const live = challengeHash();
        for (const hash of expired) assert.equal(await storage.webauthnChallenges.markUsed(hash, EARLIER), true);
        assert.equal(await storage.webauthnChallenges.markUsed(live, LATER), true);
        assert.equal(await storage.webauthnChallenges.deleteExpired(NOW, 2), 2);
        assert.equal(await storage.webauthnChallenges.deleteExpired(NOW, 2), 1);
        assert.equal(await storage.webauthnChallenges.deleteExpired(NOW, 2), 0);
        // The live record still refuses its challenge; an expired one is gone (its cookie can no longer carry it).
        assert.equal(await storage.webauthnChallenges.markUsed(live, LATER), false);
        for (const hash of expired) assert.equal(await storage.webauthnChallenges.markUsed(hash, EARLIER), true);
      });

      test('the periodic cleanup (deleteExpiredRecords) deletes expired records and keeps live ones', async () => {
        const expired = Array.from({ length: 4 }, challengeHash);
        const live = challengeHash();
        for (const hash of expired) await storage.webauthnChallenges.markUsed(hash, EARLIER);
        await storage.webauthnChallenges.markUsed(live, FAR_FUTURE);
        await deleteExpiredRecords(storage, { refreshTokenReuseGraceSeconds: 60 }, NOW, 3);
        assert.equal(await storage.webauthnChallenges.markUsed(live, FAR_FUTURE), false);
        for (const hash of expired) assert.equal(await storage.webauthnChallenges.markUsed(hash, EARLIER), true);
      });
    });

    describe('signing keys', () => {
      const key = (alg: 'RS256' | 'ES256', activatesAt: Date) => ({
        kid: `kid-${unique()}`,
        alg,
        publicJwk: { kty: 'EC', crv: 'P-256', x: 'x', y: 'y' },
        privateJwkEncrypted: `enc-${unique()}`,
        createdAt: NOW,
        activatesAt,
        deactivatesAt: null,
        retiresAt: null,
      });

      test('rotation ends the open keys of one algorithm; retired keys leave the published list', async () => {
        const first = key('ES256', NOW);
        await storage.signingKeys.insert(first);
        assert.ok((await storage.signingKeys.listAll()).some((k) => k.kid === first.kid && k.publicJwk.crv === 'P-256'));
        const ended = await storage.signingKeys.endOpenKeys('ES256', LATER, FAR_FUTURE);
        assert.ok(ended.includes(first.kid));
        const published = await storage.signingKeys.listPublished(LATER);
        assert.deepEqual(published.find((k) => k.kid === first.kid)?.retiresAt, FAR_FUTURE);
        assert.equal(await storage.signingKeys.retireNow(first.kid, LATER), true);
        assert.equal((await storage.signingKeys.listPublished(LATER)).some((k) => k.kid === first.kid), false);
        assert.equal(await storage.signingKeys.retireNow(`missing-${unique()}`, LATER), false);
      });
    });

    describe('transactions and health', () => {
      test('a transaction commits all of its writes together', async () => {
        const email = `tx-${unique()}@example.com`;
        const user = await storage.transaction(async (tx) => {
          const created = await tx.users.insert({ email, emailVerified: false, name: 'T', avatarUrl: null, passwordHash: 'h' }, NOW);
          assert.ok(created);
          await tx.users.update(created.id, { name: 'Committed' }, NOW);
          return created;
        });
        assert.equal((await storage.users.findById(user.id))?.name, 'Committed');
      });

      test('a transaction that throws leaves nothing behind', async () => {
        const email = `rollback-${unique()}@example.com`;
        await assert.rejects(
          storage.transaction(async (tx) => {
            await tx.users.insert({ email, emailVerified: false, name: 'T', avatarUrl: null, passwordHash: 'h' }, NOW);
            throw new Error('abort');
          }),
          /abort/,
        );
        assert.equal(await storage.users.findByEmail(email), null);
      });

      test('ping answers and the migrations are current', async () => {
        assert.equal(await storage.ping(), true);
        assert.equal(await storage.migrationsAreCurrent(), true);
      });
    });
  });
}
