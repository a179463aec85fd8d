/**
 * The delivery queue's worker while its database is away (backchannel-logout.ts): rounds keep failing, the
 * person's sign-out is not held up or failed by it, and the log gets one warning a minute without a stack
 * (the outage is the operator's to fix), not one per round.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { SigningKeyCache } from '../../keys/signing-key-cache.js';
import type { Storage } from '../../storage/storage.js';
import { BackchannelLogout } from './backchannel-logout.js';

test('while the database is away: one warning without a stack, rounds return 0, sign-outs go on', async () => {
  const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
  let claims = 0;
  const storage = {
    clients: {
      findById: async (clientId: string) => ({ clientId, backchannelLogoutUri: 'https://app.example.com/bcl' }),
    },
    backchannelLogoutDeliveries: {
      insert: async () => {
        throw refused;
      },
      claimDue: async () => {
        claims += 1;
        throw refused;
      },
    },
  } as unknown as Storage;
  const lines: Array<{ level: string; object: Record<string, unknown>; message: string }> = [];
  const log = {
    info: (object: object, message: string) => lines.push({ level: 'info', object: object as Record<string, unknown>, message }),
    warn: (object: object, message: string) => lines.push({ level: 'warn', object: object as Record<string, unknown>, message }),
  };
  const deliveries = new BackchannelLogout({ storage, signingKeys: {} as SigningKeyCache, issuer: 'https://id.example.com', allowPrivateAddresses: false, log });

  for (let round = 0; round < 3; round++) assert.equal(await deliveries.deliverDue(), 0);
  assert.equal(claims, 3, 'every round tried');
  const warnings = lines.filter((line) => line.level === 'warn');
  assert.equal(warnings.length, 1, 'one warning, not one per round');
  assert.equal(warnings[0]!.object.code, 'ECONNREFUSED');
  assert.equal('err' in warnings[0]!.object, false, 'no error object, so no stack');

  // A sign-out while the queue cannot be written: the listener resolves (the contract: it never rejects).
  await deliveries.ended({ userId: 1, sessions: [{ sid: 's', clientIds: ['c'] }], reason: 'signed_out' });
  await deliveries.stop();
});
