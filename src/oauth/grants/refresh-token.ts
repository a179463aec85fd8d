/**
 * The refresh_token grant (RFC 6749 §6; OIDC Core §12; RFC 9700 §4.14.2; docs/protocol-decisions.md "Refresh
 * tokens").
 *
 * Every refresh rotates: one conditional update marks the presented token as used, and the successor and a new
 * access token are stored in the same transaction, so that of racing refreshes exactly one rotates. Only when
 * the update matches nothing does the slow path read the token to say why:
 * - rotated within the grace window (a lost response, two tabs, a race just lost): the same successor is
 *   answered again, with a new access token; the grant does not fork and the user is not signed out;
 * - rotated before that: reuse is treated as theft and the whole grant is revoked;
 * - revoked, expired, unknown, or another client's: invalid_grant.
 */
import { refreshLifetimes } from '../../clients/refresh-lifetimes.js';
import type { Config } from '../../config.js';
import { generateTimeOrderedSecret, hashTimeOrderedSecret, SECRET_PREFIX } from '../../crypto/secrets.js';
import { InvalidGrant, InvalidScope } from '../../errors.js';
import type { RefreshToken, Storage } from '../../storage/storage.js';
import { readParam, requireParam } from '../request/params.js';
import { parseScope, SUPPORTED_SCOPES } from '../request/scope.js';
import { recoverSuccessor, successorOf } from '../tokens/refresh-successor.js';
import type { Grant, GrantRequest, IssuedGrant } from './index.js';
import { refreshForResource } from './resource-target.js';

// RFC 8707 §2.2: with `resource`, the refresh goes through resource-target.ts; without, as always.
const refreshForOneResource = refreshForResource(refresh);
export const refreshTokenGrant: Grant = {
  issuedEvent: 'token.refreshed',
  issue: (request) => (request.params.resource === undefined ? refresh(request) : refreshForOneResource(request)),
};

/** RFC 6749 §6: the requested scope may narrow what was granted, never widen it; left out, it is all of it (undefined). */
function narrowing(requested: string | undefined): ((granted: string[]) => string[]) | undefined {
  if (requested === undefined) return undefined;
  return (granted) => {
    // The granted scopes of resources (RFC 8707) are known here too, so that they can be narrowed to.
    const asked = parseScope(requested, granted.filter((scope) => !(SUPPORTED_SCOPES as readonly string[]).includes(scope)));
    const beyond = asked.filter((scope) => !granted.includes(scope));
    if (beyond.length > 0) {
      throw new InvalidScope(`scope may only narrow what was granted (${granted.join(' ')}); ${beyond.join(', ')} was not granted (RFC 6749 §6)`);
    }
    return asked;
  };
}

async function refresh({ storage, config, client, params, now, audit, source }: GrantRequest): Promise<IssuedGrant> {
  const presented = requireParam(params, 'refresh_token', { maxLength: 512 });
  const narrowScope = narrowing(readParam(params, 'scope', { maxLength: 1000 }));
  const tokenHash = hashTimeOrderedSecret(presented);
  const accessToken = generateTimeOrderedSecret(SECRET_PREFIX.accessToken, now.getTime());
  const access = { tokenHash: hashTimeOrderedSecret(accessToken), createdAt: now, expiresAt: new Date(now.getTime() + config.accessTokenTtlSeconds * 1000) };
  // Derived from the presented token, so that a retry within the grace window gets it again (refresh-successor.ts).
  const { successor, recovery } = successorOf(config, presented, now);

  const result = await storage.tokens.rotateRefreshToken(
    {
      tokenHash,
      clientId: client.clientId,
      successor: { tokenHash: hashTimeOrderedSecret(successor), encrypted: recovery, idleSeconds: refreshLifetimes(client, config).idleSeconds },
      accessToken: access,
      ...(narrowScope && { narrowScope }),
    },
    now,
  );
  if (result) return issued(storage, config, result.rotated, result.scope, accessToken, successor, now);

  const found = await storage.tokens.findRefreshByHash(tokenHash);
  if (!found || found.clientId !== client.clientId) throw new InvalidGrant('The refresh token is invalid: it was never issued to this client');
  if (found.revokedAt !== null) throw new InvalidGrant('The refresh token has been revoked; send the user through the authorization request again');
  if (found.rotatedAt !== null) {
    const retry = await answerAgain(storage, config, found, presented, now);
    if (retry) {
      const scope = narrowScope ? narrowScope(found.scope) : found.scope;
      await storage.tokens.insert({ ...access, clientId: found.clientId, userId: found.userId, scope, grantId: found.grantId });
      return issued(storage, config, found, scope, accessToken, retry, now);
    }
    const revoked = await storage.tokens.revokeByGrant(found.grantId, now);
    audit.record(source, { type: 'token.refresh_reuse_detected', userId: found.userId, clientId: found.clientId, details: { tokens_revoked: revoked } });
    throw new InvalidGrant(
      'The refresh token was already used: every refresh returns a new one, and reuse of an old one is treated as theft (RFC 9700 §4.14.2), so every token of this grant is now revoked',
    );
  }
  if (found.expiresAt <= now || found.grantExpiresAt <= now) throw new InvalidGrant('The refresh token has expired; send the user through the authorization request again');
  // Every condition holds now: the rotation failed for another reason (a scope it could not narrow throws first).
  throw new InvalidGrant('The refresh token could not be used; try again');
}

/**
 * A retry of a token rotated within the grace window: its successor, when that is still the grant's live token
 * (not itself rotated or revoked since). Null otherwise: then the retry is reuse.
 */
async function answerAgain(storage: Storage, config: Config, rotated: RefreshToken, presented: string, now: Date): Promise<string | null> {
  if (rotated.successorEncrypted === null || rotated.rotatedAt === null) return null;
  if (now.getTime() - rotated.rotatedAt.getTime() > config.refreshTokenReuseGraceSeconds * 1000) return null;
  const successor = recoverSuccessor(config, presented, rotated.tokenHash, rotated.successorEncrypted);
  if (successor === null) return null;
  const live = await storage.tokens.findRefreshByHash(hashTimeOrderedSecret(successor));
  if (!live || live.revokedAt !== null || live.rotatedAt !== null || live.expiresAt <= now) return null;
  return successor;
}

async function issued(storage: Storage, config: Config, from: RefreshToken, scope: string[], accessToken: string, refreshToken: string, now: Date): Promise<IssuedGrant> {
  const user = await storage.users.findById(from.userId);
  if (!user) {
    await storage.tokens.revokeByGrant(from.grantId, now);
    throw new InvalidGrant('The account the refresh token was issued for no longer exists');
  }
  return {
    accessToken,
    expiresInSeconds: config.accessTokenTtlSeconds,
    refreshToken,
    scope,
    user,
    // OIDC Core §12.2: a new id_token with the same sub, the original auth_time, and no nonce.
    authentication: scope.includes('openid') ? { nonce: null, authTime: from.authTime, sid: from.sid, amr: from.amr, acr: from.acr } : null,
  };
}
