import type { RefreshTokenRow } from '../database.js';
import type { RefreshToken } from '../storage.js';
import { fromEpochSeconds, fromNullableEpochSeconds, fromScopeText } from './columns.js';

/** A refresh_tokens row as the repository answers it (tokens.ts, and its PostgreSQL forms in tokens-postgres.ts). */
export function toRefreshToken(row: RefreshTokenRow): RefreshToken {
  return {
    tokenHash: row.token_hash,
    grantId: row.grant_id,
    clientId: row.client_id,
    userId: Number(row.user_id),
    scope: fromScopeText(row.scope),
    authTime: fromEpochSeconds(row.auth_time),
    createdAt: fromEpochSeconds(row.created_at),
    expiresAt: fromEpochSeconds(row.expires_at),
    grantExpiresAt: fromEpochSeconds(row.grant_expires_at),
    rotatedAt: fromNullableEpochSeconds(row.rotated_at),
    successorEncrypted: row.successor_encrypted,
    revokedAt: fromNullableEpochSeconds(row.revoked_at),
    sid: row.sid,
    amr: fromScopeText(row.amr),
    acr: row.acr,
  };
}
