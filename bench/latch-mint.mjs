/**
 * Mints authorization codes or access tokens for Latch through its own store API (the compiled ../dist), on
 * the same SQLite file the running server uses, exactly as its authorization and token endpoints store them:
 * a fresh 256-bit secret, only its SHA-256 hash stored, the endpoint's lifetimes.
 *
 *   node latch-mint.mjs '{"databaseUrl": "sqlite:…", "kind": "code"|"token", "count": N, "clientId": "…",
 *                         "userId": 1, "scope": ["profile"], "redirectUri": "…", "nonce": null, "out": "file"}'
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
const secrets = [];
const BATCH = 500;
try {
  for (let done = 0; done < options.count; done += BATCH) {
    const batch = [];
    for (let i = done; i < Math.min(options.count, done + BATCH); i++) {
      batch.push(generateTimeOrderedSecret(options.kind === 'code' ? SECRET_PREFIX.authorizationCode : SECRET_PREFIX.accessToken));
    }
    const now = new Date();
    await storage.transaction(async (trx) => {
      for (const secret of batch) {
        if (options.kind === 'code') {
          await trx.authorizationCodes.insert({
            codeHash: hashTimeOrderedSecret(secret),
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
          await trx.accessTokens.insert({
            tokenHash: hashTimeOrderedSecret(secret),
            clientId: options.clientId,
            userId: options.userId,
            scope: options.scope,
            authorizationCodeHash: null,
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
} finally {
  await storage.close();
}
writeFileSync(options.out, `${secrets.join('\n')}\n`);
