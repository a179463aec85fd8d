/**
 * Validating an authorization request (RFC 6749 §4.1.1, RFC 7636 §4.3; docs/protocol-decisions.md
 * "Authorization request").
 *
 * Two phases, because they fail differently: `verifyClientAndRedirectUri` checks client_id and redirect_uri,
 * and its errors are shown on Latch's own error page, never redirected (RFC 6749 §4.1.2.1: an unverified
 * redirect_uri must not receive anything). Once both hold, `parseAuthorizationRequest`'s errors go back to the
 * client's redirect_uri.
 */
import { isRegisteredRedirectUri, describeRedirectUriMismatch } from '../../clients/redirect-uri-match.js';
import { InvalidRequest, InvalidScope, UnauthorizedClient, UnsupportedResponseType } from '../../errors.js';
import type { Client, ResourceServer, Storage } from '../../storage/storage.js';
import { parseOidcParameters, rejectRequestObjects, type OidcParameters } from './oidc-request.js';
import type { RawParams } from '../../http/form-body.js';
import { findDuplicatedParam, readParam } from './params.js';
import { isValidS256Challenge } from './pkce.js';
import { OFFLINE_ACCESS, parseAuthorizationScope } from './scope.js';
import { unknownClientDescription } from './unknown-client.js';

export const MAX_STATE_LENGTH = 2048;

export interface VerifiedClientRedirect {
  client: Client;
  redirectUri: string;
}

export interface AuthorizationRequest extends VerifiedClientRedirect, OidcParameters {
  scope: string[];
  /** Scope values of an OpenID Connect request that Latch does not know, ignored (scope.ts parseAuthorizationScope). */
  ignoredScope: string[];
  state: string | undefined;
  /** The S256 code challenge, or null when the client sent none. */
  codeChallenge: string | null;
  /** The registered APIs the request names with `resource` (RFC 8707 §2.1; request/resource.ts); empty for most. */
  resources: ResourceServer[];
}

const NOT_REDIRECTABLE = { redirectable: false } as const;

/**
 * Finds the client of a client_id: storage.clients.findById, or with Client ID Metadata Documents on, the client a
 * URL's document describes (client-metadata-document.ts; its failures are thrown, not redirectable). Null: unknown.
 */
export type ClientFinder = (clientId: string) => Promise<Client | null>;

export async function verifyClientAndRedirectUri(
  params: RawParams,
  storage: Storage,
  onClientKnown: (client: Client) => void,
  findClient: ClientFinder = (clientId) => storage.clients.findById(clientId),
): Promise<VerifiedClientRedirect> {
  const clientId = readParam(params, 'client_id', { ...NOT_REDIRECTABLE, maxLength: 256 });
  if (clientId === undefined) throw new InvalidRequest('client_id is required', NOT_REDIRECTABLE);
  const client = await findClient(clientId);
  if (!client) throw new InvalidRequest(unknownClientDescription(clientId), NOT_REDIRECTABLE);
  onClientKnown(client);

  const redirectUri = readParam(params, 'redirect_uri', NOT_REDIRECTABLE);
  if (redirectUri === undefined) {
    throw new InvalidRequest('redirect_uri is required; send one of the redirect URIs registered for this client', NOT_REDIRECTABLE);
  }
  if (!isRegisteredRedirectUri(client.redirectUris, redirectUri)) {
    // The public page names no registered URI; the developer console gets the comparison.
    throw new InvalidRequest(`redirect_uri ${redirectUri} is not registered for this client`, {
      ...NOT_REDIRECTABLE,
      details: { redirectUriMismatch: describeRedirectUriMismatch(redirectUri, client.redirectUris) },
    });
  }
  return { client, redirectUri };
}

/** The state to echo on an error redirect: only when it was sent exactly once. */
export function stateForErrorRedirect(params: RawParams): string | undefined {
  const state = params.state;
  return typeof state === 'string' && state !== '' && state.length <= MAX_STATE_LENGTH ? state : undefined;
}

/** `resources`: the registered resource servers `resource` names (request/resource.ts), looked up by the caller. */
export function parseAuthorizationRequest(params: RawParams, verified: VerifiedClientRedirect, resources: ResourceServer[] = []): AuthorizationRequest {
  // RFC 8707 §2.1: resource alone may repeat.
  const duplicated = findDuplicatedParam(params, ['resource']);
  if (duplicated) throw new InvalidRequest(`${duplicated} was sent more than once; send it exactly once`);
  rejectRequestObjects(params);

  const state = readParam(params, 'state', { maxLength: MAX_STATE_LENGTH });
  const responseType = readParam(params, 'response_type', { maxLength: 64 });
  if (responseType === undefined) throw new InvalidRequest('response_type is required; use response_type=code');
  if (responseType !== 'code') {
    throw new UnsupportedResponseType(`response_type ${responseType} is not supported; Latch supports only the authorization code flow (response_type=code)`);
  }

  const { client } = verified;
  if (!client.grantTypes.includes('authorization_code')) {
    throw new UnauthorizedClient(`This client is registered for ${client.grantTypes.join(', ')} only, not for sign-ins (authorization_code)`);
  }
  // The scopes of the named resources are known to this request (README "APIs (resource servers)").
  const resourceScopes = resources.flatMap((resource) => resource.scope);
  const { scope, ignored: ignoredScope } = parseAuthorizationScope(readParam(params, 'scope', { maxLength: 1024 }), resourceScopes);
  if (scope.includes(OFFLINE_ACCESS) && !client.grantTypes.includes('refresh_token')) {
    throw new InvalidScope('offline_access asks for a refresh token, and this client is not registered for the refresh_token grant');
  }

  const codeChallenge = readParam(params, 'code_challenge', { maxLength: 128 });
  const codeChallengeMethod = readParam(params, 'code_challenge_method', { maxLength: 32 });
  if (codeChallengeMethod !== undefined && codeChallenge === undefined) {
    throw new InvalidRequest('code_challenge_method was sent without code_challenge');
  }
  if (codeChallenge !== undefined) {
    // RFC 7636 §4.3 defaults the method to plain; Latch supports only S256, so the method must be explicit.
    if (codeChallengeMethod !== 'S256') {
      throw new InvalidRequest(
        codeChallengeMethod === undefined
          ? 'code_challenge_method is required with code_challenge; use S256'
          : `code_challenge_method ${codeChallengeMethod} is not supported; use S256`,
      );
    }
    if (!isValidS256Challenge(codeChallenge)) {
      throw new InvalidRequest('code_challenge must be the 43-character BASE64URL(SHA256(code_verifier)) (RFC 7636 §4.2)');
    }
  } else if (client.tokenEndpointAuthMethod === 'none') {
    // RFC 9700 §2.1.1: without a secret, PKCE is what binds the code to the app that asked for it.
    throw new InvalidRequest('code_challenge is required: this is a public client (a single-page or mobile app), and public clients must use PKCE with code_challenge_method=S256 (RFC 9700 §2.1.1)');
  }

  return { ...verified, scope, ignoredScope, state, codeChallenge: codeChallenge ?? null, resources, ...parseOidcParameters(params) };
}
