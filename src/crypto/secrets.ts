/**
 * High-entropy secrets: client secrets, access and refresh tokens, authorization codes and session ids.
 *
 * Each is 256 random bits, carried with a short recognisable prefix so that secret scanners can find leaked
 * ones, and stored only as a SHA-256 hash. A fast hash is right for 256-bit random values (a slow KDF would
 * only cost throughput); comparisons of secrets are constant-time.
 */
import { hash, randomBytes, randomFillSync, timingSafeEqual } from 'node:crypto';

export const SECRET_PREFIX = {
  clientSecret: 'latch_cs_',
  accessToken: 'latch_at_',
  authorizationCode: 'latch_ac_',
  browserSession: 'latch_bs_',
  refreshToken: 'latch_rt_',
  /** An access token of the client_credentials grant (no user): told apart by its prefix before any lookup. */
  serviceToken: 'latch_st_',
  /** RFC 7592 registration access token of a client that registered itself. */
  registrationAccessToken: 'latch_rat_',
  /** RFC 7591 §3 initial access token, made by `latch registration-token create`. */
  initialAccessToken: 'latch_iat_',
  /** RFC 8628 §3.2 device_code: the device's handle on its pending authorization, polled at the token endpoint. */
  deviceCode: 'latch_dc_',
} as const;

/**
 * 256 bits from the CSPRNG, drawn from a pool filled 4 KiB at a time (as Node's randomUUID does): one
 * randomFillSync per 128 secrets instead of one each, on every token and code issued. Bytes handed out are
 * zeroed in the pool.
 */
const POOL_BYTES = 4096;
let pool = Buffer.alloc(0);
let poolOffset = 0;
function random256Base64url(): string {
  if (poolOffset + 32 > pool.length) {
    pool = randomFillSync(Buffer.allocUnsafe(POOL_BYTES));
    poolOffset = 0;
  }
  const bytes = pool.subarray(poolOffset, poolOffset + 32);
  poolOffset += 32;
  const text = bytes.toString('base64url');
  bytes.fill(0);
  return text;
}

/** A new secret: the prefix followed by 256 random bits in base64url (only RFC 3986 unreserved characters). */
export function generateSecret(prefix: string): string {
  return prefix + random256Base64url();
}

/**
 * A random identifier that is not a secret (client ids, record ids); unreserved characters only. Never starts
 * with `-` (or `_`): a client id is an argument of the CLI (`latch client show ID`), where one starting with a
 * dash was taken for an option (one id in 64).
 */
export function generateIdentifier(byteLength = 16): string {
  for (;;) {
    const identifier = randomBytes(byteLength).toString('base64url');
    if (identifier[0] !== '-' && identifier[0] !== '_') return identifier;
  }
}

/** Digits of the creation time (milliseconds, hexadecimal) that lead a time-ordered secret; 11 last until the year 2527. */
const TIME_DIGITS = 11;
/**
 * A whole time-ordered secret: prefix, time digits, 43 characters of random bits. Anchored to its length because
 * a secret issued before time digits (prefix and 43 characters) can itself start with 11 hex digits (one in 4^11).
 */
const TIME_ORDERED = /^latch_[a-z]{2}_([0-9a-f]{11})[A-Za-z0-9_-]{43}$/;

/**
 * A new secret for a table that grows with every request (access tokens, authorization codes): the prefix,
 * the creation time (11 hex digits of milliseconds, not secret) and 256 random bits in base64url.
 *
 * Why the time: its stored key (hashTimeOrderedSecret) starts with it, so new rows land at the end of the
 * table's key index instead of on a random page. On SQLite every page a commit touches is written to the WAL
 * whole; a random key costs a 4 KiB page write per index per insert, the larger part of a code exchange's work,
 * while a time-ordered key shares the last page with the other inserts of its group commit
 * (BENCHMARKS.md, "Time-ordered token and code keys").
 */
export function generateTimeOrderedSecret(prefix: string, now = Date.now()): string {
  return prefix + timeDigits(now) + random256Base64url();
}

/** The time digits that lead a time-ordered secret (milliseconds, hexadecimal, 11 digits). */
export function timeDigits(now: number): string {
  return Math.floor(now).toString(16).padStart(TIME_DIGITS, '0');
}

/**
 * A new identifier (not a secret) for rows that grow with every request and are indexed, such as grant ids:
 * the creation time first, for the reason given above (an index on it is appended to, not written at a random
 * page), then 128 random bits.
 */
export function generateTimeOrderedIdentifier(now = Date.now()): string {
  return timeDigits(now) + random256Base64url().slice(0, 22);
}

/**
 * The stored form of a time-ordered secret: its time digits, a dot, and the SHA-256 of the whole secret. A
 * secret without time digits (issued before they existed) is stored as its plain hash, as hashSecret does.
 */
export function hashTimeOrderedSecret(secret: string): string {
  const time = TIME_ORDERED.exec(secret)?.[1];
  return time === undefined ? hashSecret(secret) : `${time}.${hashSecret(secret)}`;
}

/** SHA-256 of a secret, base64url: the only form in which secrets are stored. */
export function hashSecret(secret: string): string {
  // crypto.hash: the one-shot form, without a Hash object, is the cheaper one on every token request
  // (BENCHMARKS.md, "SHA-256 in one call").
  return hash('sha256', secret, 'base64url');
}

/**
 * Compares two stored-form hashes (hashSecret) in constant time. Both are 43 characters whenever they are
 * real hashes; a length difference says nothing about a secret, so it is answered at once.
 */
export function hashesEqual(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  return timingSafeEqual(Buffer.from(a, 'latin1'), Buffer.from(b, 'latin1'));
}
