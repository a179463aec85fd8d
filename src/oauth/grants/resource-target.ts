/**
 * A grant's token request with `resource` (RFC 8707 §2.2; README "APIs (resource servers)"): the resource must be a
 * registered API that the grant's authorization request named; the grant then issues as always, and the access
 * token becomes a JWT for that API (tokens/access-token-jwt.ts, built in tokens/token-response.ts) carrying the
 * granted scopes the API defines. Kept apart from the grants, so that a request without `resource` pays nothing.
 */
import { hashTimeOrderedSecret } from '../../crypto/secrets.js';
import { findTokenResource, scopeForResource } from '../request/resource.js';
import type { GrantRequest, IssuedGrant } from './index.js';

type Issue = (request: GrantRequest) => Promise<IssuedGrant>;

/** `grantIdOf`: the grant the request's code or refresh token belongs to, if it is this client's; null otherwise. */
function forResource(issue: Issue, grantIdOf: (request: GrantRequest) => Promise<string | null>): Issue {
  return async (request) => {
    const resource = await findTokenResource(request.storage, request.params, async () => {
      const grantId = await grantIdOf(request);
      return grantId === null ? null : request.storage.resourceServers.listGrantResources(grantId);
    });
    const issued = await issue(request);
    return { ...issued, resource: { identifier: resource.identifier, scope: scopeForResource(issued.scope, resource) } };
  };
}

function presented(request: GrantRequest, name: string): string | null {
  const value = request.params[name];
  return typeof value === 'string' && value !== '' ? hashTimeOrderedSecret(value) : null;
}

/** authorization_code with resource: the code's grant (an unknown code fails afterwards, in the grant itself). */
export function codeForResource(issue: Issue): Issue {
  return forResource(issue, async (request) => {
    const codeHash = presented(request, 'code');
    const code = codeHash === null ? null : await request.storage.authorizationCodes.findByHash(codeHash);
    return code !== null && code.clientId === request.client.clientId ? code.grantId : null;
  });
}

/** refresh_token with resource: the refresh token's grant (RFC 8707 §2.2: the refresh narrows to one of its resources). */
export function refreshForResource(issue: Issue): Issue {
  return forResource(issue, async (request) => {
    const tokenHash = presented(request, 'refresh_token');
    const token = tokenHash === null ? null : await request.storage.tokens.findRefreshByHash(tokenHash);
    return token !== null && token.clientId === request.client.clientId ? token.grantId : null;
  });
}

/** device_code with resource: the grant the person approved at /device, whose code's hash is the device code's. */
export function deviceCodeForResource(issue: Issue): Issue {
  return forResource(issue, async (request) => {
    // While the person has not decided there is no code yet: the resource must then only be registered, and the
    // poll is answered authorization_pending as always.
    const codeHash = presented(request, 'device_code');
    const code = codeHash === null ? null : await request.storage.authorizationCodes.findByHash(codeHash);
    return code !== null && code.clientId === request.client.clientId ? code.grantId : null;
  });
}
