/**
 * Storage with per-process cached reads (cached-reads.ts), wrapped around any Storage whose engine offers an
 * invalidation signal (invalidation-signal.ts). The repositories underneath know nothing of it.
 *
 * Every repository method is classified once, in METHOD_EFFECTS: the type requires an entry for each method,
 * and cached-storage.test.ts fails on a method of a running Storage that has none. A method classified
 * `invalidates` signals every process after it returns (also when it throws: it may have committed), so a
 * new write method cannot leave a revoked token answering /userinfo by forgetting a call.
 */
import { CachedReads, readThrough } from './cached-reads.js';
import type { InvalidationSignal } from './invalidation-signal.js';
import { fromEpochSeconds, toEpochSeconds, toExpiryEpochSeconds } from './repositories/columns.js';
import type { Storage } from './storage.js';

/** What a repository method does to the answers cached here. */
export type MethodEffect =
  /** A read answered from the cache (the wrapper below). */
  | 'cached read'
  /** A read that goes to the database every time. */
  | 'read'
  /** A write that may change a cached answer: every process forgets what it cached, after the write. */
  | 'invalidates'
  /**
   * A write that cannot change a cached answer: an insert (only found rows are cached), a change to a table
   * no cached read selects, or a delete of rows whose expiry every cache hit checks anyway.
   */
  | 'keeps cached reads';

type Repositories = Omit<Storage, 'dialect' | 'transaction' | 'ping' | 'migrationsAreCurrent' | 'close'>;

export type MethodEffects = { readonly [R in keyof Repositories]: { readonly [M in keyof Repositories[R]]: MethodEffect } };

export const METHOD_EFFECTS: MethodEffects = {
  users: {
    findById: 'cached read',
    findByEmail: 'read',
    insert: 'keeps cached reads',
    update: 'invalidates',
    list: 'read',
    search: 'read',
    // Its sessions and tokens go with it (cascade): none may answer from a cache.
    delete: 'invalidates',
  },
  clients: {
    findById: 'cached read',
    list: 'read',
    listByOwner: 'read',
    insert: 'keeps cached reads',
    update: 'invalidates',
    // Its tokens, consents and codes go with it (cascade).
    delete: 'invalidates',
    deleteUnusedRegistrations: 'invalidates',
    countUnusedRegistrations: 'read',
    deleteUnusedMetadataDocumentClients: 'invalidates',
    // A column no cached answer carries (Client has no first use).
    markUsed: 'keeps cached reads',
  },
  authorizationCodes: { insert: 'keeps cached reads', consume: 'keeps cached reads', findByHash: 'read', deleteExpired: 'keeps cached reads' },
  tokens: {
    insert: 'keeps cached reads',
    // client_credentials tokens: never cached, always read from the database.
    insertServiceToken: 'keeps cached reads',
    findActiveServiceToken: 'read',
    revokeServiceToken: 'keeps cached reads',
    // Consumes a code (never cached) and inserts tokens.
    redeemCode: 'keeps cached reads',
    // Rotates a refresh token (never cached) and inserts tokens.
    rotateRefreshToken: 'keeps cached reads',
    findRefreshByHash: 'read',
    forgetSuccessors: 'keeps cached reads',
    findActiveWithUser: 'cached read',
    findByHash: 'read',
    // A revoked token must not answer userinfo from any process's cache.
    revokeAccessToken: 'invalidates',
    revokeByGrant: 'invalidates',
    revokeByUserAndClient: 'invalidates',
    revokeByUser: 'invalidates',
    countLiveGrants: 'read',
    deleteExpired: 'keeps cached reads',
  },
  // last_used_at is read by listByUser only, which is never cached.
  consents: { find: 'cached read', listByUser: 'read', grant: 'invalidates', markUsed: 'keeps cached reads', revoke: 'invalidates' },
  browserSessions: {
    insert: 'keeps cached reads',
    findActive: 'cached read',
    listByUser: 'read',
    // A cached session carries last_seen_at.
    touch: 'invalidates',
    // The old hash must stop answering in every process.
    renew: 'invalidates',
    end: 'invalidates',
    deleteExpired: 'keeps cached reads',
  },
  clientEvents: { insert: 'keeps cached reads', listRecent: 'read', deleteBefore: 'keeps cached reads' },
  emailLinks: {
    insert: 'keeps cached reads',
    findUsable: 'read',
    consume: 'keeps cached reads',
    invalidateByUser: 'keeps cached reads',
    deleteExpired: 'keeps cached reads',
  },
  outbox: { insert: 'keeps cached reads', listRecent: 'read', deleteBefore: 'keeps cached reads' },
  avatarImages: { insert: 'keeps cached reads', findById: 'read', deleteByUserExcept: 'keeps cached reads' },
  // The signing-key cache reloads on its own timer (keys/signing-key-cache.ts).
  signingKeys: {
    listPublished: 'read',
    listAll: 'read',
    insert: 'keeps cached reads',
    // A lock (on SQLite a write that matches no row): changes nothing.
    lockForCreation: 'keeps cached reads',
    endOpenKeys: 'keeps cached reads',
    retireNow: 'keeps cached reads',
    deleteRetired: 'keeps cached reads',
  },
  // Nothing reads this table through a cache.
  backchannelLogoutDeliveries: { insert: 'keeps cached reads', claimDue: 'keeps cached reads', reschedule: 'keeps cached reads', delete: 'keeps cached reads' },
  // Append-only, and read only by listings that go to the database (the account page, `latch events`).
  auditEvents: { insertMany: 'keeps cached reads', list: 'read', deleteBefore: 'keeps cached reads' },
  // Second factors are read only during a sign-in and on the account page, always from the database: a code
  // accepted in one process must be refused in every other at once (RFC 6238 §5.2).
  secondFactors: {
    findTotp: 'read',
    insertTotp: 'keeps cached reads',
    useTotpStep: 'keeps cached reads',
    deleteTotp: 'keeps cached reads',
    listRecoveryCodes: 'read',
    replaceRecoveryCodes: 'keeps cached reads',
    useRecoveryCode: 'keeps cached reads',
    deleteRecoveryCodes: 'keeps cached reads',
  },
  // Read only at a passkey ceremony and on the account's pages, from the database.
  passkeys: { insert: 'keeps cached reads', findByCredentialId: 'read', listByUser: 'read', recordUse: 'keeps cached reads', delete: 'keeps cached reads' },
  // A table no cached read selects: a challenge's use is decided by the database alone, in every process.
  webauthnChallenges: { markUsed: 'keeps cached reads', deleteExpired: 'keeps cached reads' },
  // Read by the audit log (which keeps the subscriptions a moment itself) and the command line, from the database.
  webhooks: { insert: 'keeps cached reads', findById: 'read', list: 'read', listSubscriptions: 'read', delete: 'keeps cached reads' },
  // Read at registration only, never cached: a revoked token stops working at once.
  registrationTokens: { insert: 'keeps cached reads', findUsable: 'read', list: 'read', revoke: 'keeps cached reads' },
  // Read at the token endpoint and the /device page only, never cached: a decision must be seen by the next poll.
  deviceAuthorizations: {
    insert: 'keeps cached reads',
    findByDeviceCodeHash: 'read',
    findByUserCodeHash: 'read',
    poll: 'keeps cached reads',
    decide: 'keeps cached reads',
    deleteExpired: 'keeps cached reads',
  },
  // Read at authorization and token requests for a resource only (RFC 8707), from the database: a resource deleted
  // with `latch resource delete` is refused at once.
  resourceServers: { insert: 'keeps cached reads', list: 'read', findMany: 'read', delete: 'keeps cached reads', recordGrantResources: 'keeps cached reads', listGrantResources: 'read', deleteEndedGrantResources: 'keeps cached reads' },
  // A queue and a log: nothing reads them through a cache.
  webhookDeliveries: { claimDue: 'keeps cached reads', recordAttempt: 'keeps cached reads', listByWebhook: 'read', deleteFinishedBefore: 'keeps cached reads' },
};

type AnyMethod = (...args: unknown[]) => Promise<unknown>;

/** One repository with its invalidating writes wrapped; `cachedReads` supplies every `cached read`. */
function wrapRepository<R extends object>(
  name: string,
  inner: R,
  effects: Record<string, MethodEffect>,
  cachedReads: Partial<R>,
  reads: CachedReads,
): R {
  const wrapped: Record<string, AnyMethod> = {};
  for (const [method, effect] of Object.entries(effects)) {
    const innerMethod = (inner as Record<string, AnyMethod>)[method];
    if (typeof innerMethod !== 'function') throw new Error(`cached storage: ${name}.${method} is classified but does not exist`);
    const call = innerMethod.bind(inner);
    if (effect === 'cached read') {
      const cached = (cachedReads as Record<string, AnyMethod | undefined>)[method];
      if (!cached) throw new Error(`cached storage: ${name}.${method} is a cached read without a cache`);
      wrapped[method] = cached;
    } else if (effect === 'invalidates') {
      wrapped[method] = async (...args) => {
        try {
          return await call(...args);
        } finally {
          reads.invalidate();
        }
      };
    } else {
      wrapped[method] = call;
    }
  }
  return wrapped as unknown as R;
}

/**
 * With `enabled`, redeemCode caches the access token it stored, with its user when the user is cached, as
 * findActiveWithUser would read it back (times in whole seconds, as stored). Tagged with the signal taken before
 * the write, so an invalidation from any process after it (a revocation, the user's deletion) leaves it unused.
 */
function withIssuedTokensCached(tokens: Storage['tokens'], reads: CachedReads, enabled: boolean): Storage['tokens'] {
  if (!enabled) return tokens;
  const redeem = tokens.redeemCode;
  return {
    ...tokens,
    async redeemCode(conditions, token, now, refreshToken) {
      const signal = await reads.signal();
      const code = await redeem(conditions, token, now, refreshToken);
      const user = code && reads.users.get(String(code.userId), signal);
      if (code && user) {
        const issued = {
          tokenHash: token.tokenHash,
          clientId: code.clientId,
          userId: code.userId,
          // A copy: the cached entry is frozen, and the code goes back to its caller.
          scope: [...code.scope],
          grantId: code.grantId,
          createdAt: fromEpochSeconds(toEpochSeconds(token.createdAt)),
          expiresAt: fromEpochSeconds(toExpiryEpochSeconds(token.expiresAt)),
          revokedAt: null,
        };
        reads.issuedTokens.set(token.tokenHash, { token: issued, user }, signal);
      }
      return code;
    },
  };
}

export interface CachedStorageOptions {
  /**
   * Cache the access token of each code exchange as it is issued, for the userinfo request that usually follows
   * (PostgreSQL, where that read is a round trip: BENCHMARKS.md, "PostgreSQL: the new token cached at its
   * exchange"). Only the last few are kept (CachedReads.issuedTokens), so that an entry is gone before V8 would
   * promote it to its old space, where an entry per exchange shows as major-GC pauses. Off on SQLite, where the read
   * costs less than the entry.
   */
  cacheIssuedAccessTokens?: boolean;
}

export function createCachedStorage(inner: Storage, signal: InvalidationSignal, options: CachedStorageOptions = {}): Storage {
  const reads = new CachedReads(signal);
  const wrap = <K extends keyof Repositories>(name: K, cachedReads: Partial<Repositories[K]> = {}): Repositories[K] =>
    wrapRepository(name, inner[name], METHOD_EFFECTS[name] as Record<string, MethodEffect>, cachedReads, reads);
  return {
    dialect: inner.dialect,
    users: wrap('users', {
      findById: (id) => readThrough(reads, reads.users, String(id), () => inner.users.findById(id)),
    }),
    clients: wrap('clients', {
      findById: (clientId) => readThrough(reads, reads.clients, clientId, () => inner.clients.findById(clientId)),
    }),
    authorizationCodes: wrap('authorizationCodes'),
    tokens: withIssuedTokensCached(
      wrap('tokens', {
        // Userinfo caches a token on first use; with cacheIssuedAccessTokens, the new token of an exchange is found
        // among the few just issued (CachedReads.issuedTokens).
        findActiveWithUser: (tokenHash, now) =>
          readThrough(
            reads,
            reads.activeTokens,
            tokenHash,
            // readThrough has just taken the signal: an issued entry is used only while it still holds.
            async () => reads.issuedTokens.get(tokenHash, reads.lastSignal) ?? inner.tokens.findActiveWithUser(tokenHash, now),
            (found) => found.token.expiresAt > now,
          ),
      }),
      reads,
      options.cacheIssuedAccessTokens === true,
    ),
    consents: wrap('consents', {
      find: (userId, clientId) => readThrough(reads, reads.consents, `${userId} ${clientId}`, () => inner.consents.find(userId, clientId)),
    }),
    browserSessions: wrap('browserSessions', {
      findActive: (sessionHash, now) =>
        readThrough(reads, reads.browserSessions, sessionHash, () => inner.browserSessions.findActive(sessionHash, now), (session) => session.expiresAt > now),
    }),
    clientEvents: wrap('clientEvents'),
    emailLinks: wrap('emailLinks'),
    outbox: wrap('outbox'),
    avatarImages: wrap('avatarImages'),
    signingKeys: wrap('signingKeys'),
    backchannelLogoutDeliveries: wrap('backchannelLogoutDeliveries'),
    auditEvents: wrap('auditEvents'),
    secondFactors: wrap('secondFactors'),
    passkeys: wrap('passkeys'),
    webauthnChallenges: wrap('webauthnChallenges'),
    webhooks: wrap('webhooks'),
    webhookDeliveries: wrap('webhookDeliveries'),
    registrationTokens: wrap('registrationTokens'),
    deviceAuthorizations: wrap('deviceAuthorizations'),
    resourceServers: wrap('resourceServers'),
    // Inside, repositories run on the transaction, uncached; anything it changed is signalled once it ends.
    transaction: async (fn) => {
      try {
        return await inner.transaction(fn);
      } finally {
        reads.invalidate();
      }
    },
    ping: () => inner.ping(),
    migrationsAreCurrent: () => inner.migrationsAreCurrent(),
    close: () => inner.close(),
  };
}
