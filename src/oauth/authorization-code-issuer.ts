/**
 * Issuing an authorization code (DESIGN "Authorization code"): 256 random bits, stored only as a hash,
 * bound to client, redirect_uri, user, scope, nonce and PKCE challenge, valid for a short time.
 */
import type { Config } from '../config.js';
import { generateTimeOrderedSecret, hashTimeOrderedSecret, SECRET_PREFIX } from '../crypto/secrets.js';
import type { Storage } from '../storage/storage.js';
import type { AuthorizationRequest } from './authorize-request.js';
import { buildRedirectUrl } from './redirect.js';

export async function issueAuthorizationCode(
  storage: Storage,
  config: Config,
  request: AuthorizationRequest,
  userId: number,
  authTime: Date,
  now = new Date(),
): Promise<string> {
  const code = generateTimeOrderedSecret(SECRET_PREFIX.authorizationCode, now.getTime());
  await storage.authorizationCodes.insert({
    codeHash: hashTimeOrderedSecret(code),
    clientId: request.client.clientId,
    userId,
    redirectUri: request.redirectUri,
    scope: request.scope,
    nonce: request.nonce,
    codeChallenge: request.codeChallenge,
    authTime,
    createdAt: now,
    expiresAt: new Date(now.getTime() + config.authorizationCodeTtlSeconds * 1000),
  });
  return code;
}

/** The success redirect: code, the exact state, and iss (RFC 9207). */
export function buildCodeRedirect(config: Config, request: AuthorizationRequest, code: string): string {
  return buildRedirectUrl(request.redirectUri, { code, state: request.state, iss: config.issuer });
}
