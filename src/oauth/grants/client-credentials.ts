/**
 * The client_credentials grant (RFC 6749 §4.4; docs/protocol-decisions.md "Public clients and services"): a
 * service asks for a token for itself, with no user.
 * - Confidential clients registered for it only (§4.4: "MUST only be used by confidential clients"); any other
 *   client gets unauthorized_client (§5.2).
 * - `scope` is optional: it may name any of the scopes the service was registered for, and left out it is all
 *   of them (§3.3 lets the server apply a default); anything else is invalid_scope.
 * - An access token only: no refresh token (§4.4.3: "SHOULD NOT be included") and no id_token (no sign-in).
 *   The token is stored as a hash in service_tokens, with a prefix of its own.
 */
import { generateTimeOrderedSecret, hashTimeOrderedSecret, SECRET_PREFIX } from '../../crypto/secrets.js';
import { InvalidScope } from '../../errors.js';
import { readParam } from '../request/params.js';
import { findTokenResource, scopeForResource } from '../request/resource.js';
import type { Grant, GrantRequest, IssuedGrant } from './index.js';

export const clientCredentialsGrant: Grant = { issuedEvent: 'token.client_credentials_issued', issue: issueServiceToken };

/** The granted scope: what was asked for, in the order it was registered; all of it when nothing was asked for. */
export function grantServiceScope(registered: readonly string[], requested: string | undefined): string[] {
  if (requested === undefined || requested.trim() === '') return [...registered];
  const asked = new Set(requested.split(' ').filter((token) => token !== ''));
  const beyond = [...asked].filter((scope) => !registered.includes(scope));
  if (beyond.length > 0) {
    const allowed = registered.length > 0 ? `it may ask for ${registered.join(' ')}` : 'it was registered without scopes, so leave scope out';
    throw new InvalidScope(`This service was not registered for ${beyond.join(', ')}; ${allowed}`);
  }
  return registered.filter((scope) => asked.has(scope));
}

async function issueServiceToken({ storage, config, client, params, now }: GrantRequest): Promise<IssuedGrant> {
  const scope = grantServiceScope(client.scope, readParam(params, 'scope', { maxLength: 1000 }));
  // RFC 8707 §2.2: a token for one registered API, a JWT (RFC 9068, sub = client_id: §2.2) carrying the service's
  // scopes that the API defines. No grant to bound it: the service's registered scopes do (none of the API's: refused).
  const resource = params.resource === undefined ? undefined : await findTokenResource(storage, params, async () => null);
  const resourceScope = resource && scopeForResource(scope, resource);
  if (resource && resourceScope!.length === 0) {
    throw new InvalidScope(`This service is registered for none of the scopes of ${resource.identifier} (${resource.scope.join(' ')}); register it with one of them, or ask for a token without resource`);
  }
  const accessToken = generateTimeOrderedSecret(SECRET_PREFIX.serviceToken, now.getTime());
  await storage.tokens.insertServiceToken({
    tokenHash: hashTimeOrderedSecret(accessToken),
    clientId: client.clientId,
    scope,
    createdAt: now,
    expiresAt: new Date(now.getTime() + config.accessTokenTtlSeconds * 1000),
  });
  return {
    accessToken,
    expiresInSeconds: config.accessTokenTtlSeconds,
    scope,
    user: null,
    authentication: null,
    ...(resource && { resource: { identifier: resource.identifier, scope: resourceScope! } }),
  };
}
