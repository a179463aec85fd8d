/**
 * Resource indicators (RFC 8707; README "APIs (resource servers)"; docs/protocol-decisions.md "Resource
 * indicators and JWT access tokens"): the `resource` parameter of the authorization and token requests names the API the access token
 * is for. Each value is an absolute URI without fragment (§2), may repeat at the authorization request (§2.1), and
 * must be a resource server registered with `latch resource create`; anything else is invalid_target (§2).
 * At the token endpoint one resource per request: a JWT access token has one audience, and the client asks for
 * one token per API (§2.2 lets the server refuse resources that "can't be combined").
 */
import { InvalidTarget, type OAuthErrorOptions } from '../../errors.js';
import type { RawParams } from '../../http/form-body.js';
import type { ResourceServer, Storage } from '../../storage/storage.js';
import { SUPPORTED_SCOPES } from './scope.js';

export const MAX_RESOURCES_PER_REQUEST = 10;
export const MAX_RESOURCE_LENGTH = 2048;

/** Why `value` is not a resource indicator (RFC 8707 §2), or null when it is one. */
export function resourceIndicatorProblem(value: string): string | null {
  if (value.length > MAX_RESOURCE_LENGTH) return `is longer than ${MAX_RESOURCE_LENGTH} characters`;
  // RFC 3986 §4.3: absolute-URI = scheme ":" hier-part [ "?" query ]; URL parsing alone would accept what it repairs.
  if (!/^[A-Za-z][A-Za-z0-9+.-]*:[^\s]+$/.test(value)) return 'is not an absolute URI (RFC 8707 §2)';
  if (value.includes('#')) return 'has a fragment, which a resource indicator must not have (RFC 8707 §2)';
  try {
    new URL(value);
  } catch {
    return 'is not an absolute URI (RFC 8707 §2)';
  }
  return null;
}

/**
 * Why `value` may not be registered as a resource server's identifier, or null. Stricter than a request's value:
 * http(s) only, in the form URL parsing writes it (so that what clients derive from the API's URL, as the MCP SDK
 * does, is byte for byte the registered one), without query (RFC 8707 §2: SHOULD NOT), and https except on loopback.
 */
export function resourceIdentifierProblem(value: string): string | null {
  const problem = resourceIndicatorProblem(value);
  if (problem !== null) return problem;
  const url = new URL(value);
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return 'must be an http or https URL';
  if (url.protocol === 'http:' && !['localhost', '127.0.0.1', '[::1]'].includes(url.hostname)) return 'must use https (http only on localhost, 127.0.0.1 or [::1])';
  if (url.search !== '' || value.includes('?')) return 'must not have a query (RFC 8707 §2)';
  if (url.username !== '' || url.password !== '') return 'must not have user information';
  if (url.href !== value) return `is not in canonical form; register ${url.href}`;
  return null;
}

/** Why `scope` may not be one of a resource server's scopes, or null (RFC 6749 §3.3 scope-token). */
export function resourceScopeProblem(scope: string): string | null {
  if (!/^[\x21\x23-\x5b\x5d-\x7e]{1,128}$/.test(scope)) return 'must be 1 to 128 characters, without spaces, quotes or backslashes (RFC 6749 §3.3)';
  if ((SUPPORTED_SCOPES as readonly string[]).includes(scope)) return `is one of Latch's own scopes (${SUPPORTED_SCOPES.join(', ')})`;
  return null;
}

/** Every `resource` value of a request, checked for form (not yet for registration). */
export function readResourceParams(params: RawParams, options: OAuthErrorOptions = {}): string[] {
  const raw = params.resource;
  const values = (raw === undefined ? [] : Array.isArray(raw) ? raw : [raw]).filter((value) => value !== '');
  if (values.some((value) => typeof value !== 'string')) throw new InvalidTarget('resource must be a string', options);
  if (values.length > MAX_RESOURCES_PER_REQUEST) throw new InvalidTarget(`At most ${MAX_RESOURCES_PER_REQUEST} resource values per request`, options);
  for (const value of values) {
    const problem = resourceIndicatorProblem(value);
    if (problem !== null) throw new InvalidTarget(`resource ${value} ${problem}`, options);
  }
  return [...new Set(values)];
}

/** The scope a token for `resource` carries: the granted scopes that the resource defines, in the granted order. */
export function scopeForResource(granted: readonly string[], resource: Pick<ResourceServer, 'scope'>): string[] {
  return granted.filter((scope) => resource.scope.includes(scope));
}

/** The registered resource servers the request names, in the order named; invalid_target when one is not registered. */
export async function findRequestedResources(storage: Storage, requested: readonly string[], options: OAuthErrorOptions = {}): Promise<ResourceServer[]> {
  if (requested.length === 0) return [];
  const found = await storage.resourceServers.findMany(requested);
  return requested.map((identifier) => {
    const resource = found.find((candidate) => candidate.identifier === identifier);
    if (!resource) throw new InvalidTarget(`resource ${identifier} is not an API registered with this server`, options);
    return resource;
  });
}

/**
 * The one resource of a token request (RFC 8707 §2.2): registered, and named by the grant's authorization request
 * (`grantResources`; null when the grant cannot be read, as for an invalid code, which then fails on its own).
 */
export async function findTokenResource(storage: Storage, params: RawParams, grantResources: () => Promise<string[] | null>): Promise<ResourceServer> {
  const requested = readResourceParams(params);
  if (requested.length === 0) throw new InvalidTarget('resource is empty; send the URI of the API the access token is for, or leave resource out');
  if (requested.length > 1) {
    throw new InvalidTarget('Ask for one resource per token request: an access token has one audience; make one token request for each API');
  }
  const [resource] = await findRequestedResources(storage, requested);
  const allowed = await grantResources();
  if (allowed !== null && !allowed.includes(resource!.identifier)) {
    throw new InvalidTarget(`resource ${resource!.identifier} was not named in the authorization request; a token request may only ask for the resources authorized (RFC 8707 §2.2)`);
  }
  return resource!;
}
