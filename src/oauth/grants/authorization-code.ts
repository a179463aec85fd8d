/**
 * The authorization_code grant (RFC 6749 §4.1.3–4.1.4, RFC 7636 §4.5–4.6; docs/protocol-decisions.md).
 *
 * The hot path is one conditional update that consumes the code only when every binding holds (client,
 * redirect_uri, PKCE, unused, unexpired), and the access token insert, in one transaction: so a failed
 * request consumes nothing, two racing exchanges cannot both win, and a replay that loses sees the winner's
 * token and revokes it. Only when the update matches nothing does the slow path read the code to say why.
 */
import { refreshLifetimes } from '../../clients/refresh-lifetimes.js';
import { generateTimeOrderedSecret, hashTimeOrderedSecret, SECRET_PREFIX } from '../../crypto/secrets.js';
import { InvalidGrant, InvalidRequest } from '../../errors.js';
import type { AuthorizationCode, ConsumeConditions, Storage } from '../../storage/storage.js';
import { readParam, requireParam } from '../request/params.js';
import { computeS256Challenge, isValidCodeVerifier } from '../request/pkce.js';
import type { Grant, GrantRequest, IssuedGrant } from './index.js';
import { codeForResource } from './resource-target.js';

// RFC 8707: with `resource`, the exchange goes through resource-target.ts; without, straight to the hot path.
const exchangeForResource = codeForResource(exchangeAuthorizationCode);
export const authorizationCodeGrant: Grant = {
  issuedEvent: 'token.code_exchanged',
  issue: (request) => (request.params.resource === undefined ? exchangeAuthorizationCode(request) : exchangeForResource(request)),
};

async function exchangeAuthorizationCode({ storage, config, client, params, now, audit, source }: GrantRequest): Promise<IssuedGrant> {
  const code = requireParam(params, 'code', { maxLength: 512 });
  const redirectUri = readParam(params, 'redirect_uri');
  const codeVerifier = readParam(params, 'code_verifier', { maxLength: 256 });
  if (codeVerifier !== undefined && !isValidCodeVerifier(codeVerifier)) {
    throw new InvalidGrant('code_verifier must be 43 to 128 characters of A-Z a-z 0-9 - . _ ~ (RFC 7636 §4.1)');
  }

  const conditions: ConsumeConditions = {
    codeHash: hashTimeOrderedSecret(code),
    clientId: client.clientId,
    redirectUri,
    codeChallenge: codeVerifier === undefined ? null : computeS256Challenge(codeVerifier),
  };
  const accessToken = generateTimeOrderedSecret(SECRET_PREFIX.accessToken, now.getTime());
  const expiresAt = new Date(now.getTime() + config.accessTokenTtlSeconds * 1000);

  let refreshToken: string | undefined;
  const lifetimes = refreshLifetimes(client, config);
  const issueRefreshToken = () => {
    refreshToken = generateTimeOrderedSecret(SECRET_PREFIX.refreshToken, now.getTime());
    return {
      tokenHash: hashTimeOrderedSecret(refreshToken),
      expiresAt: new Date(now.getTime() + lifetimes.idleSeconds * 1000),
      grantExpiresAt: new Date(now.getTime() + lifetimes.maxSeconds * 1000),
    };
  };
  const redeemed = await storage.tokens.redeemCode(conditions, { tokenHash: hashTimeOrderedSecret(accessToken), createdAt: now, expiresAt }, now, issueRefreshToken);
  if (!redeemed) throw await explainRejectedCode(storage, conditions, codeVerifier !== undefined, now, (code, revoked) =>
    audit.record(source, { type: 'token.code_reuse_detected', userId: code.userId, clientId: code.clientId, details: { tokens_revoked: revoked } }),
  );
  // users → codes cascades on delete: a code just consumed has its user, unless it was deleted since.
  const user = await storage.users.findById(redeemed.userId);
  if (!user) {
    await storage.tokens.revokeByGrant(redeemed.grantId, now);
    throw new InvalidGrant('The account the code was issued for no longer exists');
  }
  return {
    accessToken,
    expiresInSeconds: config.accessTokenTtlSeconds,
    // OIDC Core §11: only a grant with offline_access has a refresh token. The storage may ask for one before it
    // knows the code's scope (a batch of exchanges on PostgreSQL), and stores it only with offline_access.
    ...(refreshToken !== undefined && redeemed.scope.includes('offline_access') && { refreshToken }),
    scope: redeemed.scope,
    user,
    // OIDC Core §3.1.3.3: an id_token when the authorization request had scope openid.
    authentication: redeemed.scope.includes('openid') ? { nonce: redeemed.nonce, authTime: redeemed.authTime, sid: redeemed.sid, amr: redeemed.amr, acr: redeemed.acr } : null,
  };
}

/** The slow path: why the conditional consume matched nothing. Revokes the tokens of a replayed code. */
async function explainRejectedCode(
  storage: Storage,
  conditions: ConsumeConditions,
  verifierSent: boolean,
  now: Date,
  reuseDetected: (code: AuthorizationCode, tokensRevoked: number) => void,
): Promise<InvalidGrant | InvalidRequest> {
  const code = await storage.authorizationCodes.findByHash(conditions.codeHash);
  if (!code) return new InvalidGrant('The code is invalid: it was never issued, or it expired and was removed');
  if (code.clientId !== conditions.clientId) return new InvalidGrant('The code was issued to another client');
  if (code.consumedAt !== null) {
    // RFC 6749 §4.1.2: a code used twice is treated as stolen; everything issued in its grant is revoked.
    const revoked = await storage.tokens.revokeByGrant(code.grantId, now);
    reuseDetected(code, revoked);
    return new InvalidGrant(
      `The code has already been used; codes are single-use${revoked > 0 ? ', and the tokens issued from it are now revoked' : ''}`,
    );
  }
  if (code.expiresAt <= now) return new InvalidGrant('The code has expired; authorization codes are valid for a short time, so exchange them at once');
  if (conditions.redirectUri !== undefined && conditions.redirectUri !== code.redirectUri) {
    return new InvalidGrant(`redirect_uri ${conditions.redirectUri} is not the redirect_uri of the authorization request`);
  }
  if (code.codeChallenge === null && verifierSent) {
    return new InvalidGrant('code_verifier was sent, but the authorization request had no code_challenge');
  }
  if (code.codeChallenge !== null && !verifierSent) {
    return new InvalidGrant('code_verifier is required: the authorization request had a code_challenge');
  }
  if (code.codeChallenge !== null && code.codeChallenge !== conditions.codeChallenge) {
    return new InvalidGrant('code_verifier does not match the code_challenge of the authorization request');
  }
  // Every condition holds now, so another exchange won the race a moment ago: the same as reuse.
  reuseDetected(code, await storage.tokens.revokeByGrant(code.grantId, now));
  return new InvalidGrant('The code has already been used; codes are single-use');
}
