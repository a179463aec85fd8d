/**
 * An account's second factors as an operator sees them (`latch user show`, never a secret or a hash), and the
 * reset for a person locked out of their account (`latch user reset-mfa`).
 */
import type { Storage } from '../../storage/storage.js';

export interface AccountFactors {
  authenticatorApp: { addedAt: Date; lastUsedAt: Date | null } | null;
  recoveryCodesLeft: number;
  passkeys: { name: string; addedAt: Date; lastUsedAt: Date | null; synced: boolean }[];
}

export async function describeAccountFactors(storage: Storage, userId: number): Promise<AccountFactors> {
  const [app, codes, passkeys] = await Promise.all([storage.secondFactors.findTotp(userId), storage.secondFactors.listRecoveryCodes(userId), storage.passkeys.listByUser(userId)]);
  return {
    authenticatorApp: app && { addedAt: app.createdAt, lastUsedAt: app.lastUsedAt },
    recoveryCodesLeft: codes.filter((code) => code.usedAt === null).length,
    passkeys: passkeys.map((passkey) => ({ name: passkey.name, addedAt: passkey.createdAt, lastUsedAt: passkey.lastUsedAt, synced: passkey.backedUp })),
  };
}

/**
 * Removes every second factor of the account in one transaction: the authenticator app, the recovery codes and
 * the passkeys (a lost phone often held the passkey too). The password then signs in alone; the person sets up
 * new factors. Returns what was removed.
 */
export async function resetAccountFactors(storage: Storage, userId: number): Promise<{ authenticatorApp: boolean; recoveryCodes: number; passkeys: number }> {
  return storage.transaction(async (tx) => {
    const passkeys = await tx.passkeys.listByUser(userId);
    for (const passkey of passkeys) await tx.passkeys.delete(userId, passkey.credentialId);
    return {
      authenticatorApp: await tx.secondFactors.deleteTotp(userId),
      recoveryCodes: await tx.secondFactors.deleteRecoveryCodes(userId),
      passkeys: passkeys.length,
    };
  });
}
