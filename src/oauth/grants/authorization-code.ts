/**
 * The authorization_code grant (RFC 6749 §4.1.3–4.1.4, RFC 7636 §4.5–4.6, DESIGN "Authorization code").
 *
 * The hot path is one conditional update that consumes the code only when every binding holds (client,
 * redirect_uri, PKCE, unused, unexpired), and the access token insert, in one transaction: so a failed
 * request consumes nothing, two racing exchanges cannot both win, and a replay that loses sees the winner's
 * token and revokes it. Only when the update matches nothing does the slow path read the code to say why.
 */
import type { Config } from '../../config.js';
import { generateTimeOrderedSecret, hashTimeOrderedSecret, SECRET_PREFIX } from '../../crypto/secrets.js';
import { InvalidGrant, InvalidRequest } from '../../errors.js';
import type { AuthorizationCode, Client, ConsumeConditions, Storage, User } from '../../storage/storage.js';
import { readParam, requireParam, type RawParams } from '../params.js';
import { computeS256Challenge, isValidCodeVerifier } from '../pkce.js';

export interface IssuedTokens {
  accessToken: string;
  expiresInSeconds: number;
  code: AuthorizationCode;
  user: User;
}

export async function exchangeAuthorizationCode(
  storage: Storage,
  config: Config,
  client: Client,
  params: RawParams,
  now: Date,
): Promise<IssuedTokens> {
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

  const redeemed = await storage.authorizationCodes.redeem(conditions, { tokenHash: hashTimeOrderedSecret(accessToken), createdAt: now, expiresAt }, now);
  if (!redeemed) throw await explainRejectedCode(storage, conditions, codeVerifier !== undefined, now);
  return { accessToken, expiresInSeconds: config.accessTokenTtlSeconds, code: redeemed.code, user: redeemed.user };
}

/** The slow path: why the conditional consume matched nothing. Revokes the tokens of a replayed code. */
async function explainRejectedCode(storage: Storage, conditions: ConsumeConditions, verifierSent: boolean, now: Date): Promise<InvalidGrant | InvalidRequest> {
  const code = await storage.authorizationCodes.findByHash(conditions.codeHash);
  if (!code) return new InvalidGrant('The code is invalid: it was never issued, or it expired and was removed');
  if (code.clientId !== conditions.clientId) return new InvalidGrant('The code was issued to another client');
  if (code.consumedAt !== null) {
    // RFC 6749 §4.1.2: a code used twice is treated as stolen; everything issued from it is revoked.
    const revoked = await storage.accessTokens.revokeByAuthorizationCode(code.codeHash, now);
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
  await storage.accessTokens.revokeByAuthorizationCode(code.codeHash, now);
  return new InvalidGrant('The code has already been used; codes are single-use');
}
