/**
 * The signing keys of one process, decrypted and imported once, then held in memory: signing an id_token and
 * serving the JWKS read no database and decrypt nothing (docs/protocol-decisions.md "What each process caches").
 * The cache reloads the rows every `refreshSeconds`, importing only keys it has not seen, so that keys added by
 * `latch keys rotate` (from another process) are published here well before they sign (keys/signing-keys.ts).
 */
import { createPrivateKey, type JsonWebKey } from 'node:crypto';
import { createSigner } from 'fast-jwt';
import { importJWK, type JWK } from 'jose';
import { TemporarilyUnavailable } from '../errors.js';
import type { SigningKeyRecord, Storage } from '../storage/storage.js';
import { createKeyEncryption, KeyDecryptionError, type KeyEncryption } from '../crypto/key-encryption.js';
import type { SigningAlgorithm } from '../crypto/signing-algorithms.js';
import { ensureSigningKeys, pickSigningKey, signingKeyState } from './signing-keys.js';

export interface LoadedSigningKey {
  kid: string;
  alg: SigningAlgorithm;
  activatesAt: Date;
  deactivatesAt: Date | null;
  retiresAt: Date | null;
  /** The JWKS entry: public members plus kid, alg and use. */
  publicJwk: JWK;
  privateKey: CryptoKey;
  publicKey: CryptoKey;
  /** Signs a JWT with this key on the calling thread (fast-jwt over node:crypto); header alg, kid and typ JWT. */
  signJwt: (claims: Record<string, unknown>) => string;
}

export interface SigningKeyCacheOptions {
  refreshSeconds: number;
  logger?: { warn(object: unknown, message: string): void };
}

export class SigningKeyStartupError extends Error {}

export class SigningKeyCache {
  private keys: LoadedSigningKey[] = [];
  private timer: NodeJS.Timeout | undefined;
  private refreshing: Promise<void> | undefined;
  private loaded = false;

  private constructor(
    private readonly storage: Storage,
    private readonly encryption: KeyEncryption,
    private options: SigningKeyCacheOptions,
  ) {}

  /**
   * Generates the first keys if there are none, loads every published key, and starts the periodic reload.
   * A process may start before its database is reachable or migrated (`latch serve --no-migrate`, readiness
   * probes): then it starts without keys and loads them on first use or at the next reload. Keys that exist
   * but do not decrypt are a configuration error and stop the start.
   */
  static async open(storage: Storage, secret: string, options: SigningKeyCacheOptions): Promise<SigningKeyCache> {
    const cache = new SigningKeyCache(storage, createKeyEncryption(secret), options);
    try {
      await cache.load(new Date(), { strict: true });
    } catch (error) {
      if (error instanceof KeyDecryptionError) {
        throw new SigningKeyStartupError(
          'The signing keys in the database cannot be decrypted with this LATCH_SECRET: every process must use the secret the keys were created with',
          { cause: error },
        );
      }
      options.logger?.warn({ err: error }, 'signing keys are not available yet (database unreachable or not migrated); retrying on first use');
    }
    cache.timer = setInterval(() => {
      cache.refresh().catch((err: unknown) => cache.options.logger?.warn({ err }, 'reloading signing keys failed; keeping the keys loaded before'));
    }, options.refreshSeconds * 1000);
    cache.timer.unref();
    return cache;
  }

  /** Reloads from the database now (also run periodically). Concurrent calls share one reload. */
  refresh(now = new Date()): Promise<void> {
    this.refreshing ??= this.load(now, { strict: false }).finally(() => {
      this.refreshing = undefined;
    });
    return this.refreshing;
  }

  /** True once keys have been loaded; before that, `ensureLoaded` tries once more. */
  get isLoaded(): boolean {
    return this.loaded;
  }

  /** Loads now if the start could not (database not ready then). Cheap once loaded. */
  async ensureLoaded(): Promise<void> {
    if (this.loaded) return;
    try {
      await this.refresh();
    } catch (error) {
      throw new TemporarilyUnavailable('The signing keys cannot be loaded right now; retry shortly', { cause: error });
    }
  }

  /** Where reload failures are reported, once the app's logger exists. */
  setLogger(logger: NonNullable<SigningKeyCacheOptions['logger']>): void {
    this.options.logger = logger;
  }

  close(): void {
    clearInterval(this.timer);
  }

  /** The key that signs for `alg` now. Throws when there is none (keys not loaded yet, or all retired by hand). */
  signingKey(alg: SigningAlgorithm, now = new Date()): LoadedSigningKey {
    const key = pickSigningKey(this.keys, alg, now);
    if (!key) {
      throw new TemporarilyUnavailable(`No ${alg} signing key is available on this server yet; retry shortly`, {
        cause: new Error(this.loaded ? `no active ${alg} key: run \`latch keys rotate --alg ${alg}\`` : 'signing keys not loaded yet'),
      });
    }
    return key;
  }

  /** A published key by kid: what a token Latch signed may be verified with. Retired and unknown kids get nothing. */
  verificationKey(kid: string, now = new Date()): LoadedSigningKey | undefined {
    const key = this.keys.find((k) => k.kid === kid);
    return key && signingKeyState(key, now) !== 'retired' ? key : undefined;
  }

  /** The JWKS document (RFC 7517 §5): public keys only, every key not retired, pending ones included. */
  publishedJwks(now = new Date()): { keys: JWK[] } {
    return { keys: this.keys.filter((key) => signingKeyState(key, now) !== 'retired').map((key) => key.publicJwk) };
  }

  private async load(now: Date, { strict }: { strict: boolean }): Promise<void> {
    // Also on reloads: a process that started before `latch migrate` generates the first keys once it can.
    if (!this.loaded) await ensureSigningKeys(this.storage, this.encryption, now);
    const rows = await this.storage.signingKeys.listPublished(now);
    const known = new Map(this.keys.map((key) => [key.kid, key]));
    const next: LoadedSigningKey[] = [];
    for (const row of rows) {
      const loaded = known.get(row.kid);
      if (loaded) {
        // Times change on rotation and retirement; the key material never does.
        next.push({ ...loaded, activatesAt: row.activatesAt, deactivatesAt: row.deactivatesAt, retiresAt: row.retiresAt });
        continue;
      }
      try {
        next.push(await this.importKey(row));
      } catch (error) {
        if (strict) throw error;
        this.options.logger?.warn({ err: error, kid: row.kid }, 'a signing key could not be loaded; it is left out');
      }
    }
    this.keys = next;
    this.loaded = true;
  }

  private async importKey(row: SigningKeyRecord): Promise<LoadedSigningKey> {
    const privateJwk = JSON.parse(this.encryption.decrypt(row.privateJwkEncrypted, row.kid)) as JWK;
    const publicJwk: JWK = { ...(row.publicJwk as JWK), kid: row.kid, alg: row.alg, use: 'sig' };
    const [privateKey, publicKey] = await Promise.all([importJWK(privateJwk, row.alg), importJWK(publicJwk, row.alg)]);
    // Built once per key: fast-jwt parses the key here and keeps the KeyObject.
    const signJwt = createSigner({
      key: createPrivateKey({ key: privateJwk as JsonWebKey, format: 'jwk' }).export({ type: 'pkcs8', format: 'pem' }).toString(),
      algorithm: row.alg,
      kid: row.kid,
      header: { alg: row.alg, typ: 'JWT' },
      // iat, exp and the rest are ours (oauth/tokens/id-token.ts); fast-jwt keeps a given iat.
      noTimestamp: false,
    });
    return {
      signJwt,
      kid: row.kid,
      alg: row.alg,
      activatesAt: row.activatesAt,
      deactivatesAt: row.deactivatesAt,
      retiresAt: row.retiresAt,
      publicJwk,
      privateKey: privateKey as CryptoKey,
      publicKey: publicKey as CryptoKey,
    };
  }
}
