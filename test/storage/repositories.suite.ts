/**
 * One conformance suite for every repository, run on each database (sqlite.test.ts, postgres.test.ts), in the
 * manner of hydra's manager test helpers and better-auth's adapter tests: what the protocol code relies on
 * must hold on both, including single use under races (DESIGN "Authorization code").
 *
 * A repository added later gets its block here, so that both databases check it.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import type { Client, NewAuthorizationCode, Storage, User } from '../../src/storage/storage.js';

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
        clientId: client?.clientId ?? overrides.clientId!,
        userId: user?.id ?? overrides.userId!,
        redirectUri: 'https://app.example.com/callback',
        scope: ['openid', 'profile'],
        nonce: 'n-0S6_WzA2Mj',
        codeChallenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
        authTime: EARLIER,
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
        await storage.accessTokens.insert({ tokenHash, clientId: client.clientId, userId: user.id, scope: ['profile'], authorizationCodeHash: code.codeHash, createdAt: NOW, expiresAt: FAR_FUTURE });
        await storage.consents.grant(user.id, client.clientId, ['profile'], NOW);
        await storage.clientEvents.insert({ clientId: client.clientId, createdAt: NOW, endpoint: 'token', error: 'invalid_grant', description: 'd', requestId: 'r', details: null });

        assert.equal(await storage.clients.delete(client.clientId), true);
        assert.equal(await storage.clients.findById(client.clientId), null);
        assert.equal(await storage.authorizationCodes.findByHash(code.codeHash), null);
        assert.equal(await storage.accessTokens.findByHash(tokenHash), null);
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

      test('consume without redirect_uri (spec 4.2 B) still needs every other binding', async () => {
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
        const found = await Promise.all(tokenHashes.map((hash) => storage.accessTokens.findByHash(hash)));
        return found.filter((token) => token !== null).length;
      }

      test('redeem consumes the code and stores one access token with the code’s client, user, scope and hash', async () => {
        const user = await newUser();
        const client = await newClient();
        const code = await newCode({ userId: user.id, clientId: client.clientId, scope: ['openid', 'email', 'profile'] });
        const token = tokenFor();
        const redeemed = await storage.authorizationCodes.redeem(conditionsOf(code), token, NOW);
        assert.deepEqual(redeemed, { code: { ...code, consumedAt: NOW }, user });
        assert.deepEqual((await storage.authorizationCodes.findByHash(code.codeHash))?.consumedAt, NOW);
        const stored = {
          tokenHash: token.tokenHash,
          clientId: client.clientId,
          userId: user.id,
          scope: ['openid', 'email', 'profile'],
          authorizationCodeHash: code.codeHash,
          createdAt: NOW,
          expiresAt: FAR_FUTURE,
          revokedAt: null,
        };
        assert.deepEqual(await storage.accessTokens.findByHash(token.tokenHash), stored);
        // What userinfo reads (cached by redeem on SQLite) is what was stored.
        assert.deepEqual(await storage.accessTokens.findActiveWithUser(token.tokenHash, NOW), { token: stored, user });
        // Exactly one token came from the code.
        assert.equal(await storage.accessTokens.revokeByAuthorizationCode(code.codeHash, LATER), 1);
      });

      test('redeem without redirect_uri (spec 4.2 B) still needs every other binding', async () => {
        const code = await newCode();
        const wrongClient = tokenFor();
        const other = await newClient();
        assert.equal(await storage.authorizationCodes.redeem({ ...conditionsOf(code), redirectUri: undefined, clientId: other.clientId }, wrongClient, NOW), null);
        const token = tokenFor();
        assert.ok(await storage.authorizationCodes.redeem({ ...conditionsOf(code), redirectUri: undefined }, token, NOW));
        assert.equal(await storedCount([wrongClient.tokenHash, token.tokenHash]), 1);
        assert.ok(await storage.accessTokens.findByHash(token.tokenHash));
      });

      test('a redeem that fails any condition returns null and writes nothing', async () => {
        const code = await newCode();
        const other = await newClient();
        const wrong = [...conditionsFailingOneBinding(code, other.clientId), { ...conditionsOf(code), codeHash: `missing-${unique()}` }];
        const tried: string[] = [];
        for (const conditions of wrong) {
          const token = tokenFor();
          tried.push(token.tokenHash);
          assert.equal(await storage.authorizationCodes.redeem(conditions, token, NOW), null);
        }
        assert.equal(await storedCount(tried), 0);
        assert.equal((await storage.authorizationCodes.findByHash(code.codeHash))?.consumedAt, null);

        // A code issued without a challenge: not with one (no PKCE downgrade).
        const plain = await newCode({ codeChallenge: null });
        const withChallenge = tokenFor();
        assert.equal(await storage.authorizationCodes.redeem({ ...conditionsOf(plain), codeChallenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM' }, withChallenge, NOW), null);
        assert.equal(await storedCount([withChallenge.tokenHash]), 0);
        assert.equal((await storage.authorizationCodes.findByHash(plain.codeHash))?.consumedAt, null);

        // Expired: at its expiry and after it.
        const expired = await newCode({ expiresAt: NOW });
        const atExpiry = tokenFor();
        const afterExpiry = tokenFor();
        assert.equal(await storage.authorizationCodes.redeem(conditionsOf(expired), atExpiry, NOW), null);
        assert.equal(await storage.authorizationCodes.redeem(conditionsOf(expired), afterExpiry, LATER), null);
        assert.equal(await storedCount([atExpiry.tokenHash, afterExpiry.tokenHash]), 0);
        assert.equal((await storage.authorizationCodes.findByHash(expired.codeHash))?.consumedAt, null);

        // Already used: the second redeem stores no second token, and the first use stands.
        const first = tokenFor();
        const replay = tokenFor();
        assert.ok(await storage.authorizationCodes.redeem(conditionsOf(code), first, NOW));
        assert.equal(await storage.authorizationCodes.redeem(conditionsOf(code), replay, LATER), null);
        assert.equal(await storedCount([first.tokenHash, replay.tokenHash]), 1);
        assert.ok(await storage.accessTokens.findByHash(first.tokenHash));
        assert.deepEqual((await storage.authorizationCodes.findByHash(code.codeHash))?.consumedAt, NOW);
        assert.equal(await storage.accessTokens.revokeByAuthorizationCode(code.codeHash, LATER), 1);
      });

      test('a redeem inside a transaction that rolls back leaves the code unused and no token', async () => {
        const code = await newCode();
        const token = tokenFor();
        await assert.rejects(
          storage.transaction(async (tx) => {
            assert.ok(await tx.authorizationCodes.redeem(conditionsOf(code), token, NOW));
            throw new Error('abort');
          }),
          /abort/,
        );
        assert.equal(await storedCount([token.tokenHash]), 0);
        assert.equal((await storage.authorizationCodes.findByHash(code.codeHash))?.consumedAt, null);
        assert.ok(await storage.authorizationCodes.redeem(conditionsOf(code), tokenFor(), NOW));
      });

      test('a redeem whose token cannot be stored fails whole: the code stays unused', async () => {
        const user = await newUser();
        const client = await newClient();
        const code = await newCode({ userId: user.id, clientId: client.clientId });
        const taken = tokenFor();
        await storage.accessTokens.insert({ ...taken, clientId: client.clientId, userId: user.id, scope: ['openid'], authorizationCodeHash: null });
        await assert.rejects(storage.authorizationCodes.redeem(conditionsOf(code), taken, NOW));
        assert.equal((await storage.authorizationCodes.findByHash(code.codeHash))?.consumedAt, null);
        assert.equal((await storage.accessTokens.findByHash(taken.tokenHash))?.authorizationCodeHash, null);
        assert.ok(await storage.authorizationCodes.redeem(conditionsOf(code), tokenFor(), NOW));
      });

      test('race: 12 concurrent redeems of one code on one connection pool, exactly one wins and one token is stored', async () => {
        const code = await newCode();
        const tokens = Array.from({ length: 12 }, tokenFor);
        const results = await Promise.all(tokens.map((token) => storage.authorizationCodes.redeem(conditionsOf(code), token, NOW)));
        assert.equal(results.filter((r) => r !== null).length, 1);
        assert.equal(await storedCount(tokens.map((t) => t.tokenHash)), 1);
        assert.equal(await storage.accessTokens.revokeByAuthorizationCode(code.codeHash, LATER), 1);
      });

      test('race: concurrent redeems of one code from two independent connections, exactly one wins and one token is stored', async () => {
        const another = await database.openAnother();
        try {
          for (let round = 0; round < 5; round++) {
            const code = await newCode();
            const tokens = Array.from({ length: 12 }, tokenFor);
            const results = await Promise.all(
              tokens.map((token, i) => (i % 2 === 0 ? storage : another).authorizationCodes.redeem(conditionsOf(code), token, NOW)),
            );
            assert.equal(results.filter((r) => r !== null).length, 1, `round ${round}`);
            assert.equal(await storedCount(tokens.map((t) => t.tokenHash)), 1, `round ${round}`);
            assert.equal(await storage.accessTokens.revokeByAuthorizationCode(code.codeHash, LATER), 1, `round ${round}`);
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
    });

    describe('access tokens', () => {
      async function newToken(overrides: Partial<{ expiresAt: Date; codeHash: string | null; userId: number; clientId: string }> = {}) {
        const user = overrides.userId === undefined ? await newUser() : await storage.users.findById(overrides.userId);
        const clientId = overrides.clientId ?? (await newClient()).clientId;
        assert.ok(user);
        const token = {
          tokenHash: `tok-${unique()}`,
          clientId,
          userId: user.id,
          scope: ['openid', 'profile'],
          authorizationCodeHash: overrides.codeHash === undefined ? `code-${unique()}` : overrides.codeHash,
          createdAt: NOW,
          expiresAt: overrides.expiresAt ?? FAR_FUTURE,
        };
        await storage.accessTokens.insert(token);
        return { token, user };
      }

      test('findActiveWithUser returns the token and its user in one read', async () => {
        const { token, user } = await newToken();
        assert.deepEqual(await storage.accessTokens.findActiveWithUser(token.tokenHash, NOW), { token: { ...token, revokedAt: null }, user });
        assert.deepEqual(await storage.accessTokens.findByHash(token.tokenHash), { ...token, revokedAt: null });
      });

      test('an expired or unknown token is not active', async () => {
        const { token } = await newToken({ expiresAt: LATER });
        assert.equal(await storage.accessTokens.findActiveWithUser(token.tokenHash, LATER), null);
        assert.equal(await storage.accessTokens.findActiveWithUser(`missing-${unique()}`, NOW), null);
      });

      test('revokeByAuthorizationCode revokes every token from that code, and only those', async () => {
        const codeHash = `code-${unique()}`;
        const { token: a, user } = await newToken({ codeHash });
        const { token: b } = await newToken({ codeHash, userId: user.id, clientId: a.clientId });
        const { token: unrelated } = await newToken();
        assert.equal(await storage.accessTokens.revokeByAuthorizationCode(codeHash, LATER), 2);
        assert.equal(await storage.accessTokens.revokeByAuthorizationCode(codeHash, LATER), 0);
        for (const t of [a, b]) {
          assert.equal(await storage.accessTokens.findActiveWithUser(t.tokenHash, NOW), null);
          assert.deepEqual((await storage.accessTokens.findByHash(t.tokenHash))?.revokedAt, LATER);
        }
        assert.ok(await storage.accessTokens.findActiveWithUser(unrelated.tokenHash, NOW));
      });

      test('revokeByUserAndClient revokes that user’s tokens for that client only', async () => {
        const { token, user } = await newToken({ codeHash: null });
        const { token: otherClient } = await newToken({ userId: user.id });
        assert.equal(await storage.accessTokens.revokeByUserAndClient(user.id, token.clientId, LATER), 1);
        assert.equal(await storage.accessTokens.findActiveWithUser(token.tokenHash, NOW), null);
        assert.ok(await storage.accessTokens.findActiveWithUser(otherClient.tokenHash, NOW));
      });

      test('deleteExpired removes expired tokens only', async () => {
        const { token: old } = await newToken({ expiresAt: EARLIER });
        const { token: live } = await newToken();
        assert.ok((await storage.accessTokens.deleteExpired(NOW)) >= 1);
        assert.equal(await storage.accessTokens.findByHash(old.tokenHash), null);
        assert.ok(await storage.accessTokens.findByHash(live.tokenHash));
      });
    });

    describe('consents', () => {
      test('grant records the union of scopes granted; find and listByUser return it', async () => {
        const user = await newUser();
        const client = await newClient();
        await storage.consents.grant(user.id, client.clientId, ['profile'], NOW);
        await storage.consents.grant(user.id, client.clientId, ['openid', 'profile'], LATER);
        const consent = await storage.consents.find(user.id, client.clientId);
        assert.deepEqual(consent, { userId: user.id, clientId: client.clientId, scope: ['openid', 'profile'], createdAt: NOW, updatedAt: LATER });
        assert.deepEqual(await storage.consents.listByUser(user.id), [consent]);
      });

      test('concurrent grants by one user to one client never fail and leave one consent', async () => {
        const user = await newUser();
        const client = await newClient();
        await Promise.all(Array.from({ length: 6 }, () => storage.consents.grant(user.id, client.clientId, ['profile'], NOW)));
        assert.equal((await storage.consents.listByUser(user.id)).length, 1);
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
        const session = { sessionHash: `s-${unique()}`, userId, authTime: NOW, createdAt: NOW, lastSeenAt: NOW, expiresAt, userAgent: 'test-agent', ipAddress: '127.0.0.1' };
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

      test('deleteByUser ends every session of the user except the one kept; delete ends one', async () => {
        const user = await newUser();
        const [kept, gone1, gone2] = [await newSession(user.id), await newSession(user.id), await newSession(user.id)];
        assert.equal((await storage.browserSessions.listByUser(user.id, NOW)).length, 3);
        assert.equal(await storage.browserSessions.deleteByUser(user.id, kept.sessionHash), 2);
        assert.equal(await storage.browserSessions.findActive(gone1.sessionHash, NOW), null);
        assert.equal(await storage.browserSessions.findActive(gone2.sessionHash, NOW), null);
        await storage.browserSessions.delete(kept.sessionHash);
        assert.deepEqual(await storage.browserSessions.listByUser(user.id, NOW), []);
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
