/**
 * Issuing an authorization code (RFC 6749 §4.1.2; docs/protocol-decisions.md "Authorization code"): 256 random
 * bits, stored only as a hash, bound to client, redirect_uri, user, scope, nonce and PKCE challenge, valid for a
 * short time.
 */
import type { Config } from '../../config.js';
import { generateTimeOrderedIdentifier, generateTimeOrderedSecret, hashTimeOrderedSecret, SECRET_PREFIX } from '../../crypto/secrets.js';
import type { Storage } from '../../storage/storage.js';
import type { AuthorizationRequest } from '../request/authorize-request.js';
import { buildRedirectUrl } from '../request/redirect.js';

export async function issueAuthorizationCode(
  storage: Storage,
  config: Config,
  request: AuthorizationRequest,
  session: { userId: number; authTime: Date; sid: string; amr: string[]; acr: string | null },
  now = new Date(),
): Promise<string> {
  const code = generateTimeOrderedSecret(SECRET_PREFIX.authorizationCode, now.getTime());
  // A new grant starts here: the tokens issued from this code share its id (storage.ts AuthorizationCode).
  const grantId = generateTimeOrderedIdentifier(now.getTime());
  // RFC 8707 §2.2: the resources named here bound what the grant's token requests may ask for. Written before the
  // code, so that no code exists without them.
  if (request.resources.length > 0) await storage.resourceServers.recordGrantResources(grantId, request.resources.map((resource) => resource.identifier), now);
  await storage.authorizationCodes.insert({
    codeHash: hashTimeOrderedSecret(code),
    grantId,
    clientId: request.client.clientId,
    userId: session.userId,
    redirectUri: request.redirectUri,
    scope: request.scope,
    nonce: request.nonce,
    codeChallenge: request.codeChallenge,
    authTime: session.authTime,
    // The session it was approved in: its sid goes into the grant's id_tokens, and the session records this
    // client, so that a logout of it knows whom to tell.
    sid: session.sid,
    // How the person signed in, and the acr chosen for this request: the grant's id_tokens carry both.
    amr: session.amr,
    acr: session.acr,
    createdAt: now,
    expiresAt: new Date(now.getTime() + config.authorizationCodeTtlSeconds * 1000),
  });
  return code;
}

/** The success redirect: code, the exact state, and iss (RFC 9207). */
export function buildCodeRedirect(config: Config, request: AuthorizationRequest, code: string): string {
  return buildRedirectUrl(request.redirectUri, { code, state: request.state, iss: config.issuer });
}
