/**
 * What an account's second factors can do, over storage: check a code from the authenticator app (each time
 * step accepted once, RFC 6238 §5.2), use a recovery code, and check "your password or a current code" before
 * a change to the factors. Secrets are decrypted only here, for the one check, and never logged.
 */
import { verifyPassword } from '../passwords.js';
import type { EnrolledFactors } from '../../session/authentication-methods.js';
import type { Storage, User } from '../../storage/storage.js';
import { findRecoveryCode, generateRecoveryCodes, hashRecoveryCode } from './recovery-codes.js';
import { totpSecretAssociatedData, type SecondFactorKeys } from './second-factor-keys.js';
import { matchTotpCode, normalizeTotpCode } from './totp.js';

/**
 * True when the account has a second factor, an authenticator app or a passkey: then a sign-in with the password
 * needs it too (docs/protocol-decisions.md "Second factors and passkeys").
 */
export async function hasSecondFactor(storage: Storage, userId: number): Promise<boolean> {
  const factors = await enrolledFactors(storage, userId);
  return factors.authenticatorApp || factors.passkeys.length > 0;
}

/** What the account has enrolled that could raise a sign-in (a step-up, session/authentication-methods.ts). */
export async function enrolledFactors(storage: Storage, userId: number): Promise<EnrolledFactors> {
  const [app, passkeys] = await Promise.all([storage.secondFactors.findTotp(userId), storage.passkeys.listByUser(userId)]);
  return { authenticatorApp: app !== null, passkeys: passkeys.map((passkey) => ({ deviceBound: !passkey.backupEligible })) };
}

/** True when `code` is the app's code for now (± one step) and its step was not used before; records the step. */
export async function useAuthenticatorCode(storage: Storage, keys: SecondFactorKeys, userId: number, code: string, now: Date): Promise<boolean> {
  const app = await storage.secondFactors.findTotp(userId);
  if (!app) return false;
  const secret = keys.totpSecrets.decrypt(app.secretEncrypted, totpSecretAssociatedData(userId));
  const step = matchTotpCode(secret, code, now);
  return step !== null && (await storage.secondFactors.useTotpStep(userId, step, now));
}

/** True when `typed` is one of the account's unused recovery codes; it is then used up. */
export async function useRecoveryCode(storage: Storage, keys: SecondFactorKeys, userId: number, typed: string, now: Date): Promise<boolean> {
  const unused = (await storage.secondFactors.listRecoveryCodes(userId)).filter((code) => code.usedAt === null).map((code) => code.codeHash);
  const match = findRecoveryCode(keys.recoveryCodes, typed, unused);
  return match !== null && (await storage.secondFactors.useRecoveryCode(userId, match, now));
}

/**
 * A proof that the person at the keyboard is the account's owner, before the factors change: the password, or a
 * current code from the app (someone who found the browser signed in has neither).
 */
export async function checkPasswordOrCode(storage: Storage, keys: SecondFactorKeys, user: User, proof: string, now: Date): Promise<boolean> {
  if (proof === '') return false;
  if (normalizeTotpCode(proof) !== null && (await useAuthenticatorCode(storage, keys, user.id, proof, now))) return true;
  return verifyPassword(user.passwordHash, proof);
}

/** A new set of recovery codes for the account (the old set stops working); returns the codes to show once. */
export async function replaceRecoveryCodes(storage: Storage, keys: SecondFactorKeys, userId: number, now: Date): Promise<string[]> {
  const codes = generateRecoveryCodes();
  const hashes = codes.map((code) => hashRecoveryCode(keys.recoveryCodes, code));
  await storage.transaction((tx) => tx.secondFactors.replaceRecoveryCodes(userId, hashes, now));
  return codes;
}
