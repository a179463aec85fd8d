/**
 * What kind of client a registration describes (issue 18; docs/protocol-decisions.md "Public clients and
 * services"), checked before anything is stored:
 * - a web app (confidential, the default): authorization_code and refresh_token, a secret;
 * - a single-page or mobile app (public, `token_endpoint_auth_method=none`): the same grants, no secret, PKCE;
 * - a service: client_credentials, a secret, the scopes it may ask for, and no redirect URIs needed;
 * - a command-line tool or TV (RFC 8628): the device_code grant, public or confidential, with refresh_token when
 *   it should stay signed in; no redirect URIs needed unless it also signs people in with authorization_code.
 */
import { DEVICE_CODE_GRANT_TYPE, type ClientGrantType } from '../storage/storage.js';

export const CLIENT_GRANT_TYPES: readonly ClientGrantType[] = ['authorization_code', 'refresh_token', 'client_credentials', DEVICE_CODE_GRANT_TYPE];
export const DEFAULT_CLIENT_GRANT_TYPES: readonly ClientGrantType[] = ['authorization_code', 'refresh_token'];

/**
 * The scopes about a signed-in user (oauth/request/scope.ts SUPPORTED_SCOPES, which this folder may not import:
 * oauth/ depends on clients/). A service's tokens have no user, so these make no sense for it.
 */
const USER_SCOPES: readonly string[] = ['openid', 'profile', 'email', 'offline_access'];

/** RFC 6749 §3.3: scope-token = 1*( %x21 / %x23-5B / %x5D-7E ). */
const SCOPE_TOKEN = /^[\x21\x23-\x5B\x5D-\x7E]{1,64}$/;
const MAX_SERVICE_SCOPES = 50;

export interface ClientKind {
  isPublic: boolean;
  grantTypes: readonly string[];
  scope: readonly string[];
}

export function isClientGrantType(value: string): value is ClientGrantType {
  return (CLIENT_GRANT_TYPES as readonly string[]).includes(value);
}

/** Every problem with a client's kind, in words; empty when it is consistent. */
export function checkClientKind({ isPublic, grantTypes, scope }: ClientKind): string[] {
  const problems: string[] = [];
  const unknown = grantTypes.filter((grant) => !isClientGrantType(grant));
  if (unknown.length > 0) problems.push(`Unknown grant type ${unknown.join(', ')}; use ${CLIENT_GRANT_TYPES.join(', ')}`);
  if (grantTypes.length === 0) problems.push('Register at least one grant type');
  if (grantTypes.includes('refresh_token') && !grantTypes.includes('authorization_code') && !grantTypes.includes(DEVICE_CODE_GRANT_TYPE)) {
    problems.push(`refresh_token needs authorization_code or ${DEVICE_CODE_GRANT_TYPE}: refresh tokens are issued from a sign-in`);
  }
  if (isPublic && grantTypes.includes('client_credentials')) {
    problems.push('client_credentials needs a confidential client with a secret (RFC 6749 §4.4); a public client cannot use it');
  }
  for (const token of scope) {
    if (!SCOPE_TOKEN.test(token)) problems.push(`Scope ${JSON.stringify(token.slice(0, 70))} is not a valid scope token (RFC 6749 §3.3)`);
    else if (USER_SCOPES.includes(token)) {
      problems.push(`Scope ${token} is about a user, and a service's tokens have none; register the API scopes the service needs`);
    }
  }
  if (scope.length > MAX_SERVICE_SCOPES) problems.push(`At most ${MAX_SERVICE_SCOPES} scopes per service`);
  if (scope.length > 0 && !grantTypes.includes('client_credentials')) {
    problems.push('Registered scopes are for services: add --grant-type client_credentials, or leave the scopes out');
  }
  return problems;
}
