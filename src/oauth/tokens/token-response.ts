/**
 * The token endpoint's success response, for every grant (RFC 6749 §5.1; OIDC Core §3.1.3.3): the access
 * token, its lifetime and scope, an id_token when the grant carries a sign-in, and the user object of the
 * token response (user-object.ts).
 */
import type { Config } from '../../config.js';
import type { SigningKeyCache } from '../../keys/signing-key-cache.js';
import type { Client } from '../../storage/storage.js';
import type { IssuedGrant } from '../grants/index.js';
import { hashTimeOrderedSecret } from '../../crypto/secrets.js';
import { createAccessTokenJwt } from './access-token-jwt.js';
import { createIdToken } from './id-token.js';
import { buildTokenResponseUser, type UserClaims } from './user-object.js';

export interface TokenResponse {
  access_token: string;
  token_type: 'Bearer';
  expires_in: number;
  scope: string;
  refresh_token?: string;
  id_token?: string;
  /** Left out for a service's own token (client_credentials): there is no user. */
  user?: Omit<UserClaims, 'picture'> & { client: string };
}

/**
 * Signed with the cached key after the grant's tokens are stored: a failure here cannot leave a code usable
 * twice (the endpoint checks that the keys are loaded before it dispatches).
 */
export async function buildTokenResponse(
  issued: IssuedGrant,
  { client, config, signingKeys, now }: { client: Client; config: Config; signingKeys: SigningKeyCache; now: Date },
): Promise<TokenResponse> {
  const { user } = issued;
  // RFC 8707 / RFC 9068: a token for a registered API is a JWT it can verify itself; any other stays opaque.
  const accessToken = issued.resource === undefined ? issued.accessToken : await createAccessTokenJwt(signingKeys, {
    issuer: config.issuer,
    audience: issued.resource.identifier,
    clientId: client.clientId,
    subject: user ? String(user.id) : client.clientId,
    scope: issued.resource.scope,
    jti: hashTimeOrderedSecret(issued.accessToken),
    authTime: issued.authentication?.authTime ?? null,
    ttlSeconds: issued.expiresInSeconds,
    now,
  });
  const idToken = issued.authentication && user
    ? await createIdToken(signingKeys, {
        issuer: config.issuer,
        clientId: client.clientId,
        alg: client.idTokenSignedResponseAlg,
        user,
        scope: issued.scope,
        nonce: issued.authentication.nonce,
        authTime: issued.authentication.authTime,
        sid: issued.authentication.sid,
        amr: issued.authentication.amr,
        acr: issued.authentication.acr,
        accessToken,
        ttlSeconds: config.idTokenTtlSeconds,
        now,
      })
    : undefined;
  return {
    access_token: accessToken,
    token_type: 'Bearer',
    expires_in: issued.expiresInSeconds,
    // RFC 6749 §5.1: the scope of the access token; for a resource, the granted scopes that resource defines.
    scope: (issued.resource?.scope ?? issued.scope).join(' '),
    ...(issued.refreshToken !== undefined && { refresh_token: issued.refreshToken }),
    ...(idToken !== undefined && { id_token: idToken }),
    ...(user && { user: buildTokenResponseUser(user, issued.scope, client.name) }),
  };
}
