/**
 * id_token signing keys: generation, life cycle and rotation (OIDC Core §10.1.1; docs/protocol-decisions.md
 * "Signing keys").
 *
 * A key's state follows from its times, never from a flag that something must flip on time:
 *   pending  (now < activatesAt)                 published in the JWKS, signs nothing yet
 *   active   (activatesAt ≤ now < deactivatesAt) signs; the newest active key of an algorithm wins
 *   previous (deactivatesAt ≤ now < retiresAt)   published only, so that the id_tokens it signed still verify
 *   retired  (retiresAt ≤ now)                   gone from the JWKS, accepted nowhere
 * Every process reads the same rows and applies the same rule, so they switch keys at the same moment, and
 * rotation is safe while several processes run: a new key is published `leadSeconds` before it signs (long
 * enough for every process to reload its keys and every client to refetch the JWKS), and an old key stays
 * published until every id_token it can have signed has expired.
 */
import { calculateJwkThumbprint, exportJWK, generateKeyPair, type JWK } from 'jose';
import type { SigningKeyRecord, Storage } from '../storage/storage.js';
import type { KeyEncryption } from '../crypto/key-encryption.js';
import { SIGNING_ALGORITHMS, type SigningAlgorithm } from '../crypto/signing-algorithms.js';

export type SigningKeyState = 'pending' | 'active' | 'previous' | 'retired';

/** Allowance for clocks of different machines that disagree a little (OIDC Core §3.1.3.7 leaves skew to the RP). */
export const CLOCK_SKEW_SECONDS = 60;

export interface KeyTimes {
  activatesAt: Date;
  deactivatesAt: Date | null;
  retiresAt: Date | null;
}

export function signingKeyState(key: KeyTimes, now: Date): SigningKeyState {
  if (key.retiresAt !== null && key.retiresAt <= now) return 'retired';
  if (key.deactivatesAt !== null && key.deactivatesAt <= now) return 'previous';
  if (now < key.activatesAt) return 'pending';
  return 'active';
}

/** The key that signs for `alg` at `now`: the active one activated last (ties broken by kid, the same everywhere). */
export function pickSigningKey<K extends KeyTimes & { alg: SigningAlgorithm; kid: string }>(keys: readonly K[], alg: SigningAlgorithm, now: Date): K | undefined {
  let chosen: K | undefined;
  for (const key of keys) {
    if (key.alg !== alg || signingKeyState(key, now) !== 'active') continue;
    if (!chosen || key.activatesAt > chosen.activatesAt || (key.activatesAt.getTime() === chosen.activatesAt.getTime() && key.kid > chosen.kid)) chosen = key;
  }
  return chosen;
}

/** Only the public members, so that nothing private can reach the JWKS by accident (RFC 7517 §4, RFC 7518 §6). */
function publicMembers(jwk: JWK): Record<string, unknown> {
  const { kty, crv, n, e, x, y } = jwk;
  return Object.fromEntries(Object.entries({ kty, crv, n, e, x, y }).filter(([, value]) => value !== undefined));
}

/** A new key pair, not yet sealed for storage: what is slow about a new key (RSA's primes), kept apart from the sealing. */
export interface SigningKeyMaterial {
  alg: SigningAlgorithm;
  kid: string;
  publicJwk: Record<string, unknown>;
  privateJwk: JWK;
}

export async function generateSigningKeyMaterial(alg: SigningAlgorithm): Promise<SigningKeyMaterial> {
  // RS256 with 2048-bit moduli (RFC 7518 §3.3 minimum; what clients expect); ES256 on P-256; EdDSA on Ed25519.
  const { publicKey, privateKey } = await generateKeyPair(alg, { extractable: true, ...(alg === 'RS256' ? { modulusLength: 2048 } : alg === 'EdDSA' ? { crv: 'Ed25519' } : {}) });
  const publicJwk = publicMembers(await exportJWK(publicKey));
  // The RFC 7638 thumbprint: unique per key and the same in every process that sees it.
  const kid = await calculateJwkThumbprint(publicJwk as JWK);
  return { alg, kid, publicJwk, privateJwk: await exportJWK(privateKey) };
}

/** The stored form of a key: its private half encrypted under LATCH_SECRET, bound to its kid. */
export function sealSigningKey(material: SigningKeyMaterial, encryption: KeyEncryption, now: Date, activatesAt: Date): SigningKeyRecord {
  return {
    kid: material.kid,
    alg: material.alg,
    publicJwk: material.publicJwk,
    privateJwkEncrypted: encryption.encrypt(JSON.stringify(material.privateJwk), material.kid),
    createdAt: now,
    activatesAt,
    deactivatesAt: null,
    retiresAt: null,
  };
}

export async function generateSigningKey(alg: SigningAlgorithm, encryption: KeyEncryption, now: Date, activatesAt: Date): Promise<SigningKeyRecord> {
  return sealSigningKey(await generateSigningKeyMaterial(alg), encryption, now, activatesAt);
}

/** True when `keys` hold one of `alg` that can still sign (no end of signing set yet). */
function canSign(keys: readonly SigningKeyRecord[], alg: SigningAlgorithm): boolean {
  return keys.some((key) => key.alg === alg && key.deactivatesAt === null);
}

/**
 * First start: a key for every algorithm that has none able to sign, active at once (nothing was signed or
 * published before, so there is nothing to lead). Processes starting together create one key per algorithm
 * between them: each checks again and inserts under SigningKeyRepository.lockForCreation, so a key another
 * process inserted meanwhile wins and this one is dropped. Returns the keys this call inserted.
 */
export async function ensureSigningKeys(storage: Storage, encryption: KeyEncryption, now = new Date()): Promise<SigningKeyRecord[]> {
  const existing = await storage.signingKeys.listPublished(now);
  const created: SigningKeyRecord[] = [];
  for (const alg of SIGNING_ALGORITHMS) {
    if (canSign(existing, alg)) continue;
    // Key generation (slow for RSA) stays outside the transaction: SQLite has one writer.
    const key = await generateSigningKey(alg, encryption, now, now);
    const inserted = await storage.transaction(async (trx) => {
      await trx.signingKeys.lockForCreation();
      if (canSign(await trx.signingKeys.listPublished(now), alg)) return false;
      await trx.signingKeys.insert(key);
      return true;
    });
    if (inserted) created.push(key);
  }
  return created;
}

export interface RotationOptions {
  algorithms: readonly SigningAlgorithm[];
  /** How long the new key is published before it signs. */
  leadSeconds: number;
  /** The id_token lifetime: how long the old key must stay published after its last signature. */
  idTokenTtlSeconds: number;
  /** How often processes reload their keys: a process may sign with the old key that much longer. */
  refreshSeconds: number;
}

export interface RotationResult {
  added: SigningKeyRecord;
  ended: string[];
  predecessorsRetireAt: Date;
}

/** Adds a successor per algorithm and schedules the end of its predecessors, each in one transaction. */
export async function rotateSigningKeys(storage: Storage, encryption: KeyEncryption, options: RotationOptions, now = new Date()): Promise<RotationResult[]> {
  const results: RotationResult[] = [];
  for (const alg of options.algorithms) {
    const activatesAt = new Date(now.getTime() + options.leadSeconds * 1000);
    // The last id_token of an old key is signed at the latest one refresh interval after the switch (a process
    // that had not reloaded yet); it expires one id_token lifetime later. Skew covers clocks a little apart.
    const predecessorsRetireAt = new Date(activatesAt.getTime() + (options.refreshSeconds + options.idTokenTtlSeconds + CLOCK_SKEW_SECONDS) * 1000);
    // Key generation (slow for RSA) stays outside the transaction: SQLite has one writer.
    const added = await generateSigningKey(alg, encryption, now, activatesAt);
    const ended = await storage.transaction(async (trx) => {
      const endedKids = await trx.signingKeys.endOpenKeys(alg, activatesAt, predecessorsRetireAt);
      await trx.signingKeys.insert(added);
      return endedKids;
    });
    results.push({ added, ended, predecessorsRetireAt });
  }
  return results;
}

export class SigningKeyRetirementError extends Error {}

/**
 * Takes a key out of use at once (a compromised key): it signs nothing more and leaves the JWKS, so every
 * id_token it signed stops verifying. Refused for the only key of its algorithm that can still sign: rotate first.
 */
export async function retireSigningKey(storage: Storage, kid: string, now = new Date()): Promise<SigningKeyRecord> {
  const keys = await storage.signingKeys.listAll();
  const key = keys.find((k) => k.kid === kid);
  if (!key) throw new SigningKeyRetirementError(`No signing key with kid ${kid}`);
  const successors = keys.filter((k) => k.alg === key.alg && k.kid !== kid && k.deactivatesAt === null && signingKeyState(k, now) !== 'retired');
  if (successors.length === 0) {
    throw new SigningKeyRetirementError(`${kid} is the only ${key.alg} key that can sign; run \`latch keys rotate --alg ${key.alg}\` first`);
  }
  await storage.signingKeys.retireNow(kid, now);
  return { ...key, deactivatesAt: key.deactivatesAt && key.deactivatesAt < now ? key.deactivatesAt : now, retiresAt: now };
}
