/**
 * The change notifications of migration 2026_11_27_2300_change_notifications, on PostgreSQL: every repository method
 * that METHOD_EFFECTS (cached-storage.ts) classes as `invalidates` announces itself on the schema's channel from its
 * own transaction, so that no process keeps a cached answer it changed (one case per method, and a check that every
 * such method has its case); and the writes of the hot paths and of the cleanups announce nothing, so that they never
 * empty the caches of every process. The repositories run uncached here: what is heard comes from the triggers alone.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import { METHOD_EFFECTS } from '../../src/storage/cached-storage.js';
import { openStorage, type OpenedStorage } from '../../src/storage/open-storage.js';
import { channelFor } from '../../src/storage/postgres/change-channel.js';
import { createTestSchema, POSTGRES_TEST_URL, postgresUnavailableReason, type TestSchema } from '../helpers/postgres.js';

const skip = (await postgresUnavailableReason()) ?? false;

const inAnHour = () => new Date(Date.now() + 3_600_000);
const anHourAgo = () => new Date(Date.now() - 3_600_000);
const unique = () => randomUUID().slice(0, 12);

describe('PostgreSQL change notifications (triggers on the cached tables)', { skip }, () => {
  let schema: TestSchema;
  let storage: OpenedStorage;
  let listener: pg.Client;
  let channel: string;
  const sentinel = `latch_test_sentinel_${unique().replace(/-/g, '')}`;
  const heard: Array<{ channel: string; payload: string | undefined }> = [];

  before(async () => {
    schema = await createTestSchema();
    storage = await openStorage(POSTGRES_TEST_URL, { postgresSchema: schema.name, poolSize: 2 });
    assert.equal(storage.signal, null, 'uncached: nothing but the triggers announces');
    channel = channelFor(schema.name);
    listener = new pg.Client({ connectionString: POSTGRES_TEST_URL });
    await listener.connect();
    listener.on('notification', (message) => heard.push({ channel: message.channel, payload: message.payload }));
    await listener.query(`LISTEN "${channel}"; LISTEN "${sentinel}"`);
  });
  after(async () => {
    await listener?.end();
    await storage?.close();
    await schema?.drop();
  });

  /**
   * The announcements a write makes. Notifications are delivered in the order their transactions committed, so once
   * a notification sent after the write has come back, any the write sent has come back before it.
   */
  async function announcementsOf(write: () => Promise<unknown>): Promise<number> {
    heard.length = 0;
    await write();
    const mark = unique();
    await listener.query('select pg_notify($1, $2)', [sentinel, mark]);
    const deadline = Date.now() + 5000;
    while (!heard.some((n) => n.channel === sentinel && n.payload === mark)) {
      if (Date.now() > deadline) assert.fail('the sentinel notification did not come back');
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    return heard.filter((n) => n.channel === channel).length;
  }

  const newUser = async () => (await storage.users.insert({ email: `u-${unique()}@example.com`, emailVerified: true, name: 'Ada', avatarUrl: null, passwordHash: 'h' }, new Date()))!;
  const newClient = (extra: { registeredDynamically?: boolean; metadataDocumentExpiresAt?: Date | null } = {}) =>
    storage.clients.insert(
      {
        clientId: `client-${unique()}`,
        name: 'App',
        secretHash: 'h',
        previousSecretHash: null,
        previousSecretExpiresAt: null,
        redirectUris: ['https://app.example.com/cb'],
        ownerUserId: null,
        homepageUrl: null,
        logoUrl: null,
        ...extra,
      },
      anHourAgo(),
    );
  const newToken = async (expiresAt = inAnHour()) => {
    const user = await newUser();
    const client = await newClient();
    const token = { tokenHash: `tok-${unique()}`, clientId: client.clientId, userId: user.id, scope: ['openid'], grantId: `grant-${unique()}`, createdAt: new Date(), expiresAt };
    await storage.tokens.insert(token);
    return { user, client, token };
  };
  const newSession = async (expiresAt = inAnHour()) => {
    const user = await newUser();
    const session = { sessionHash: `s-${unique()}`, sid: `sid-${unique()}`, userId: user.id, authTime: new Date(), createdAt: new Date(), lastSeenAt: new Date(), expiresAt, userAgent: null, ipAddress: null };
    await storage.browserSessions.insert(session);
    return { user, session };
  };
  const newConsent = async () => {
    const user = await newUser();
    const client = await newClient();
    await storage.consents.grant(user.id, client.clientId, ['openid'], new Date());
    return { user, client };
  };
  /** A redeemed code with offline_access: its grant's refresh token. */
  const newRefreshGrant = async () => {
    const user = await newUser();
    const client = await newClient();
    const code = {
      codeHash: `code-${unique()}`,
      grantId: `grant-${unique()}`,
      clientId: client.clientId,
      userId: user.id,
      redirectUri: 'https://app.example.com/cb',
      scope: ['openid', 'offline_access'],
      nonce: null,
      codeChallenge: null,
      authTime: new Date(),
      sid: null,
      createdAt: new Date(),
      expiresAt: inAnHour(),
    };
    await storage.authorizationCodes.insert(code);
    return { user, client, code };
  };

  /** Every `invalidates` method: the rows it needs, then the write, which must announce itself. */
  const announcing: Record<string, () => Promise<() => Promise<unknown>>> = {
    'users.update': async () => {
      const user = await newUser();
      return () => storage.users.update(user.id, { name: 'Grace' }, new Date());
    },
    'users.delete': async () => {
      const user = await newUser();
      return () => storage.users.delete(user.id);
    },
    'clients.update': async () => {
      const client = await newClient();
      return () => storage.clients.update(client.clientId, { name: 'Renamed' }, new Date());
    },
    'clients.delete': async () => {
      const client = await newClient();
      return () => storage.clients.delete(client.clientId);
    },
    'clients.deleteUnusedRegistrations': async () => {
      await newClient({ registeredDynamically: true });
      return async () => assert.ok((await storage.clients.deleteUnusedRegistrations(new Date())) > 0);
    },
    'clients.deleteUnusedMetadataDocumentClients': async () => {
      await newClient({ metadataDocumentExpiresAt: anHourAgo() });
      return async () => assert.ok((await storage.clients.deleteUnusedMetadataDocumentClients(new Date())) > 0);
    },
    'tokens.revokeAccessToken': async () => {
      const { token } = await newToken();
      return async () => assert.equal(await storage.tokens.revokeAccessToken(token.tokenHash, token.clientId, new Date()), true);
    },
    'tokens.revokeByGrant': async () => {
      const { token } = await newToken();
      return async () => assert.ok((await storage.tokens.revokeByGrant(token.grantId, new Date())) > 0);
    },
    'tokens.revokeByUserAndClient': async () => {
      const { token } = await newToken();
      return async () => assert.ok((await storage.tokens.revokeByUserAndClient(token.userId, token.clientId, new Date())) > 0);
    },
    'tokens.revokeByUser': async () => {
      const { token } = await newToken();
      return async () => assert.ok((await storage.tokens.revokeByUser(token.userId, new Date())) > 0);
    },
    // A first grant inserts (only found consents are cached: nothing to announce); a grant to a consent that exists
    // changes what is cached.
    'consents.grant': async () => {
      const { user, client } = await newConsent();
      return () => storage.consents.grant(user.id, client.clientId, ['openid', 'email'], new Date());
    },
    'consents.revoke': async () => {
      const { user, client } = await newConsent();
      return () => storage.consents.revoke(user.id, client.clientId);
    },
    'browserSessions.touch': async () => {
      const { session } = await newSession();
      return () => storage.browserSessions.touch(session.sessionHash, new Date());
    },
    'browserSessions.renew': async () => {
      const { session } = await newSession();
      return () => storage.browserSessions.renew(session.sessionHash, { ...session, sessionHash: `s-${unique()}` });
    },
    'browserSessions.end': async () => {
      const { user, session } = await newSession();
      return () => storage.browserSessions.end(user.id, { sessionHash: session.sessionHash });
    },
  };

  test('every method classed `invalidates` has its case here', () => {
    const classed = Object.entries(METHOD_EFFECTS).flatMap(([repository, methods]) =>
      Object.entries(methods as Record<string, string>)
        .filter(([, effect]) => effect === 'invalidates')
        .map(([method]) => `${repository}.${method}`),
    );
    assert.deepEqual(Object.keys(announcing).sort(), classed.sort());
  });

  for (const [method, prepare] of Object.entries(announcing)) {
    test(`${method} announces itself`, async () => {
      const write = await prepare();
      assert.ok((await announcementsOf(write)) >= 1, `${method} committed without a notification`);
    });
  }

  test('changes made outside Latch (psql) announce themselves: an update, and the deletion of a live token or session', async () => {
    const user = await newUser();
    assert.equal(await announcementsOf(() => listener.query(`update "${schema.name}".users set name = 'Psql' where id = $1`, [user.id])), 1);
    // Deleted alone, not through a parent's cascade: the trigger's own condition (unexpired, unrevoked) decides.
    const { token } = await newToken();
    assert.equal(await announcementsOf(() => listener.query(`delete from "${schema.name}".access_tokens where token_hash = $1`, [token.tokenHash])), 1);
    const { session } = await newSession();
    assert.equal(await announcementsOf(() => listener.query(`delete from "${schema.name}".browser_sessions where session_hash = $1`, [session.sessionHash])), 1);
  });

  test('many rows changed in one transaction announce once', async () => {
    const { user, client } = await newToken();
    for (let i = 0; i < 5; i++) {
      await storage.tokens.insert({ tokenHash: `tok-${unique()}`, clientId: client.clientId, userId: user.id, scope: ['openid'], grantId: `g-${unique()}`, createdAt: new Date(), expiresAt: inAnHour() });
    }
    assert.equal(await announcementsOf(() => storage.tokens.revokeByUserAndClient(user.id, client.clientId, new Date())), 1);
  });

  /** The writes of the hot paths and the cleanups: no cached answer changes by them, and none may empty every cache. */
  const silent: Record<string, () => Promise<() => Promise<unknown>>> = {
    'users.insert': async () => () => newUser(),
    'clients.insert': async () => () => newClient(),
    'clients.markUsed (a client\'s first use)': async () => {
      const client = await newClient({ registeredDynamically: true });
      return async () => assert.equal(await storage.clients.markUsed(client.clientId, new Date()), true);
    },
    'clients.deleteUnusedRegistrations with none due': async () => async () => assert.equal(await storage.clients.deleteUnusedRegistrations(new Date(0)), 0),
    'tokens.insert': async () => () => newToken(),
    'consents.grant of a first consent (an insert)': async () => {
      const user = await newUser();
      const client = await newClient();
      return () => storage.consents.grant(user.id, client.clientId, ['openid'], new Date());
    },
    'consents.markUsed': async () => {
      const { user, client } = await newConsent();
      return () => storage.consents.markUsed(user.id, client.clientId, new Date());
    },
    'tokens.redeemCode (the code exchange, with a refresh token)': async () => {
      const { code } = await newRefreshGrant();
      return async () =>
        assert.ok(
          await storage.tokens.redeemCode(
            { codeHash: code.codeHash, clientId: code.clientId, redirectUri: code.redirectUri, codeChallenge: null },
            { tokenHash: `tok-${unique()}`, createdAt: new Date(), expiresAt: inAnHour() },
            new Date(),
            () => ({ tokenHash: `rt-${unique()}`, expiresAt: inAnHour(), grantExpiresAt: inAnHour() }),
          ),
        );
    },
    'tokens.rotateRefreshToken (the refresh grant)': async () => {
      const { code } = await newRefreshGrant();
      const refreshHash = `rt-${unique()}`;
      await storage.tokens.redeemCode(
        { codeHash: code.codeHash, clientId: code.clientId, redirectUri: code.redirectUri, codeChallenge: null },
        { tokenHash: `tok-${unique()}`, createdAt: new Date(), expiresAt: inAnHour() },
        new Date(),
        () => ({ tokenHash: refreshHash, expiresAt: inAnHour(), grantExpiresAt: inAnHour() }),
      );
      return async () =>
        assert.ok(
          await storage.tokens.rotateRefreshToken(
            {
              tokenHash: refreshHash,
              clientId: code.clientId,
              successor: { tokenHash: `rt-${unique()}`, encrypted: 'sealed', idleSeconds: 3600 },
              accessToken: { tokenHash: `tok-${unique()}`, createdAt: new Date(), expiresAt: inAnHour() },
            },
            new Date(),
          ),
        );
    },
    'tokens.deleteExpired (expired access tokens)': async () => {
      await newToken(new Date(Date.now() - 120_000));
      return async () => assert.ok((await storage.tokens.deleteExpired(new Date(Date.now() - 60_000))) > 0);
    },
    'browserSessions.insert': async () => () => newSession(),
    'browserSessions.deleteExpired (expired sessions)': async () => {
      await newSession(new Date(Date.now() - 120_000));
      return async () => assert.ok((await storage.browserSessions.deleteExpired(new Date(Date.now() - 60_000))) > 0);
    },
  };

  for (const [write, prepare] of Object.entries(silent)) {
    test(`${write} announces nothing`, async () => {
      const run = await prepare();
      assert.equal(await announcementsOf(run), 0);
    });
  }
});
