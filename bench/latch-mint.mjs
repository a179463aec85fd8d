/**
 * Mints authorization codes, access tokens or refresh tokens for Latch through its own store API (the compiled
 * ../dist), on the same database the running server uses (its SQLite file or PostgreSQL database), exactly as its authorization and token endpoints
 * store them: a fresh 256-bit secret, only its SHA-256 hash stored, the endpoint's lifetimes.
 *
 *   node latch-mint.mjs '{"databaseUrl": "sqlite:…", "kind": "code"|"token"|"refresh", "count": N, "clientId": "…",
 *                         "userId": 1, "scope": ["profile"], "redirectUri": "…", "nonce": null, "out": "file"}'
 *
 * A refresh token is minted the way the token endpoint issues one: a code with the scope (which must include
 * offline_access) is inserted and redeemed through tokens.redeemCode with the authorization_code grant's
 * refresh token, so the row has the code's grant id, auth_time and the configured idle and absolute lifetimes
 * (the redemption's access token and spent code stay behind, as after a real exchange).
 *
 * Writes one secret per line to `out`.
 */
import { writeFileSync } from 'node:fs';
import { generateTimeOrderedSecret, hashTimeOrderedSecret, SECRET_PREFIX } from '../dist/crypto/secrets.js';
import { loadConfig } from '../dist/config.js';
import { openStorage } from '../dist/storage/open-storage.js';
import { sql } from 'kysely';

const options = JSON.parse(process.argv[2]);
const config = loadConfig({ ...process.env, LATCH_DATABASE_URL: options.databaseUrl });
const storage = await openStorage(options.databaseUrl, { migrate: false });
if (options.kind === 'refresh' && !options.scope.includes('offline_access')) throw new Error('a refresh token needs offline_access in its scope (OIDC Core §11)');
const secrets = [];
const BATCH = 500;

/** One refresh token, through a code redeemed as the authorization_code grant redeems it (the code and its access token are throwaway). */
async function mintRefreshToken(trx, secret, now) {
  const code = generateTimeOrderedSecret(SECRET_PREFIX.authorizationCode);
  const codeHash = hashTimeOrderedSecret(code);
  await trx.authorizationCodes.insert({
    codeHash,
    grantId: codeHash,
    clientId: options.clientId,
    userId: options.userId,
    redirectUri: options.redirectUri,
    scope: options.scope,
    nonce: null,
    codeChallenge: null,
    authTime: now,
    createdAt: now,
    expiresAt: new Date(now.getTime() + config.authorizationCodeTtlSeconds * 1000),
  });
  const accessToken = { tokenHash: hashTimeOrderedSecret(generateTimeOrderedSecret(SECRET_PREFIX.accessToken)), createdAt: now, expiresAt: new Date(now.getTime() + config.accessTokenTtlSeconds * 1000) };
  let issued = false;
  const redeemed = await trx.tokens.redeemCode({ codeHash, clientId: options.clientId, redirectUri: options.redirectUri, codeChallenge: null }, accessToken, now, () => {
    issued = true;
    return {
      tokenHash: hashTimeOrderedSecret(secret),
      expiresAt: new Date(now.getTime() + config.refreshTokenIdleSeconds * 1000),
      grantExpiresAt: new Date(now.getTime() + config.refreshTokenMaxSeconds * 1000),
    };
  });
  if (!redeemed || !issued) throw new Error('the minted code was not redeemed with a refresh token');
}
try {
  for (let done = 0; done < options.count; done += BATCH) {
    const batch = [];
    const prefix = { code: SECRET_PREFIX.authorizationCode, token: SECRET_PREFIX.accessToken, refresh: SECRET_PREFIX.refreshToken }[options.kind];
    if (prefix === undefined) throw new Error(`unknown kind ${options.kind}; use code, token or refresh`);
    for (let i = done; i < Math.min(options.count, done + BATCH); i++) batch.push(generateTimeOrderedSecret(prefix));
    const now = new Date();
    await storage.transaction(async (trx) => {
      for (const secret of batch) {
        if (options.kind === 'refresh') await mintRefreshToken(trx, secret, now);
        else if (options.kind === 'code') {
          await trx.authorizationCodes.insert({
            codeHash: hashTimeOrderedSecret(secret),
            grantId: hashTimeOrderedSecret(secret),
            clientId: options.clientId,
            userId: options.userId,
            redirectUri: options.redirectUri,
            scope: options.scope,
            nonce: options.nonce ?? null,
            codeChallenge: null,
            authTime: now,
            createdAt: now,
            expiresAt: new Date(now.getTime() + config.authorizationCodeTtlSeconds * 1000),
          });
        } else {
          await trx.tokens.insert({
            tokenHash: hashTimeOrderedSecret(secret),
            clientId: options.clientId,
            userId: options.userId,
            scope: options.scope,
            grantId: hashTimeOrderedSecret(secret),
            createdAt: now,
            expiresAt: new Date(now.getTime() + config.accessTokenTtlSeconds * 1000),
          });
        }
      }
    });
    secrets.push(...batch);
  }
  // The pool is setup, not workload: fold the WAL it wrote back into the database file now, so that the
  // measured run does not pay for checkpointing tens of thousands of minted rows (the peer mints in memory).
  if (storage.dialect === 'sqlite') await sql`PRAGMA wal_checkpoint(TRUNCATE)`.execute(storage.db);
  // On PostgreSQL the same for autovacuum: the pool's inserts (and the previous run's rotations and exchanges)
  // would otherwise set it off in the middle of the measured run, taking a core of this two-core machine for
  // seconds (others 43% and a p99 of 103 ms in one run of the refresh at a fixed load, 2026-11-25).
  else {
    await sql`VACUUM (ANALYZE) authorization_codes, access_tokens, refresh_tokens`.execute(storage.db);
    // And a checkpoint, so that the pool's dirty pages are written and synced now: a checkpoint's sync phase in the
    // middle of a measured run holds up every commit's WAL flush behind it (PostgreSQL's log showed sync phases of
    // 3–5 s over thousands of files here, after the test suite's schemas). Needs superuser or pg_checkpoint.
    try {
      await sql`CHECKPOINT`.execute(storage.db);
    } catch (error) {
      process.stderr.write(`latch-mint: no CHECKPOINT before the run (${error.message})\n`);
    }
  }
} finally {
  await storage.close();
}
writeFileSync(options.out, `${secrets.join('\n')}\n`);
