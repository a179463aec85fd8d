/**
 * Device authorization requests (RFC 8628; migration 2026_11_25_0500; docs/protocol-decisions.md "Device
 * authorization grant"). Every change of state is one conditional update, so that racing polls and decisions,
 * also from several processes, each see one outcome.
 */
import { sql, type Kysely, type Selectable } from 'kysely';
import type { Database, DeviceAuthorizationsTable } from '../database.js';
import type { DeviceAuthorization, DeviceAuthorizationRepository, DeviceAuthorizationStatus } from '../storage.js';
import { deleteRows } from './batched-delete.js';
import { fromEpochSeconds, fromNullableEpochSeconds, fromScopeText, toEpochSeconds, toExpiryEpochSeconds, toScopeText } from './columns.js';

const STATUSES: readonly string[] = ['pending', 'approved', 'denied'];

function toDeviceAuthorization(row: Selectable<DeviceAuthorizationsTable>): DeviceAuthorization {
  return {
    deviceCodeHash: row.device_code_hash,
    userCodeHash: row.user_code_hash,
    clientId: row.client_id,
    scope: fromScopeText(row.scope),
    intervalSeconds: Number(row.interval_seconds),
    lastPolledAt: row.last_polled_at_ms === null ? null : new Date(Number(row.last_polled_at_ms)),
    // Written only by this file; anything else reads as denied, the safe side.
    status: (STATUSES.includes(row.status) ? row.status : 'denied') as DeviceAuthorizationStatus,
    userId: row.user_id === null ? null : Number(row.user_id),
    decidedAt: fromNullableEpochSeconds(row.decided_at),
    createdAt: fromEpochSeconds(row.created_at),
    expiresAt: fromEpochSeconds(row.expires_at),
    resources: row.resources === '' ? [] : row.resources.split(' '),
  };
}

export function createDeviceAuthorizationRepository(db: Kysely<Database>): DeviceAuthorizationRepository {
  /** The request while it may still be polled or decided: pending and unexpired. */
  const pendingRow = (deviceCodeHash: string, now: Date) =>
    db
      .updateTable('device_authorizations')
      .where('device_code_hash', '=', deviceCodeHash)
      .where('status', '=', 'pending')
      .where('expires_at', '>', toEpochSeconds(now));

  return {
    async insert(authorization) {
      const inserted = await db
        .insertInto('device_authorizations')
        .values({
          device_code_hash: authorization.deviceCodeHash,
          user_code_hash: authorization.userCodeHash,
          client_id: authorization.clientId,
          scope: toScopeText(authorization.scope),
          interval_seconds: authorization.intervalSeconds,
          last_polled_at_ms: null,
          status: 'pending',
          user_id: null,
          decided_at: null,
          created_at: toEpochSeconds(authorization.createdAt),
          expires_at: toExpiryEpochSeconds(authorization.expiresAt),
          resources: authorization.resources.join(' '),
        })
        .onConflict((conflict) => conflict.column('user_code_hash').doNothing())
        .returning('device_code_hash')
        .executeTakeFirst();
      return inserted !== undefined;
    },

    async findByDeviceCodeHash(deviceCodeHash) {
      const row = await db.selectFrom('device_authorizations').selectAll().where('device_code_hash', '=', deviceCodeHash).executeTakeFirst();
      return row ? toDeviceAuthorization(row) : null;
    },

    async findByUserCodeHash(userCodeHash) {
      const row = await db.selectFrom('device_authorizations').selectAll().where('user_code_hash', '=', userCodeHash).executeTakeFirst();
      return row ? toDeviceAuthorization(row) : null;
    },

    async poll(deviceCodeHash, now, { toleranceMs, slowDownSeconds }) {
      // Casts: PostgreSQL would otherwise type the parameter by interval_seconds (integer), too small for milliseconds.
      const nowMs = sql<number>`cast(${now.getTime()} as bigint)`;
      const inTime = await pendingRow(deviceCodeHash, now)
        .set({ last_polled_at_ms: nowMs })
        .where((eb) =>
          eb.or([eb('last_polled_at_ms', 'is', null), eb('last_polled_at_ms', '<=', sql<number>`${nowMs} - interval_seconds * 1000 + ${sql<number>`cast(${toleranceMs} as bigint)`}`)]),
        )
        .executeTakeFirst();
      if (Number(inTime.numUpdatedRows) === 1) return 'pending';
      // RFC 8628 §3.5: "the interval MUST be increased by 5 seconds for this and all subsequent requests".
      const tooSoon = await pendingRow(deviceCodeHash, now)
        .set((eb) => ({ interval_seconds: eb('interval_seconds', '+', slowDownSeconds), last_polled_at_ms: nowMs }))
        .executeTakeFirst();
      return Number(tooSoon.numUpdatedRows) === 1 ? 'slow_down' : null;
    },

    async decide(deviceCodeHash, { status, userId }, now) {
      const result = await pendingRow(deviceCodeHash, now).set({ status, user_id: userId, decided_at: toEpochSeconds(now) }).executeTakeFirst();
      return Number(result.numUpdatedRows) === 1;
    },

    async deleteExpired(before, limit) {
      const cutoff = toEpochSeconds(before);
      return deleteRows(db, 'device_authorizations', 'device_code_hash', 'expires_at', (q) => q.where('expires_at', '<', cutoff), limit);
    },
  };
}
