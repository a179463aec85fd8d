/**
 * Client ID Metadata Documents (draft-ietf-oauth-client-id-metadata-document, which MCP 2025-11-25 adopted; issue 18
 * item 4; docs/protocol-decisions.md "Client ID Metadata Documents"): the rules for the client_id URL, for the
 * document it serves, and for how long a fetched document is kept. Pure: the fetch and the storage are in
 * oauth/request/client-metadata-document.ts.
 *
 * Every rule that refuses says what to change, in words for the developer who publishes the document.
 */
import { isSigningAlgorithm, SIGNING_ALGORITHMS, type SigningAlgorithm } from '../crypto/signing-algorithms.js';
import type { ClientGrantType } from '../storage/storage.js';
import { checkClientName, checkLogoutSettings, checkRedirectUris, ClientRegistrationError, type RegistrationPolicy } from './client-registration.js';
import { isLoopbackHost } from './redirect-uri-policy.js';

/** The draft (§4 "Client Metadata Document" security) recommends at most 5 KiB; a larger document is refused. */
export const METADATA_DOCUMENT_MAX_BYTES = 5 * 1024;
/** Resolution, connection and the whole body. An authorization request waits for it, so it is short. */
export const METADATA_DOCUMENT_TIMEOUT_MS = 3000;
/**
 * How long a fetched document is used before it is fetched again: its HTTP caching headers (RFC 9111), within
 * bounds. The floor keeps a document that says no-store (or max-age=0) from being fetched at every request, which
 * would let anyone who can start authorization requests make Latch fetch as fast as they ask; the ceiling makes a
 * changed or withdrawn document count within a day whatever it said.
 */
export const METADATA_CACHE_FLOOR_SECONDS = 5 * 60;
export const METADATA_CACHE_CEILING_SECONDS = 24 * 60 * 60;
/** A document sent with no caching headers at all. */
export const METADATA_CACHE_DEFAULT_SECONDS = 60 * 60;
/** A failed fetch or refused document is remembered this long, so that a bad URL cannot make Latch fetch in a loop. */
export const METADATA_FAILURE_CACHE_SECONDS = 30;
/** readParam's limit on client_id at the authorization endpoint. */
const MAX_CLIENT_ID_LENGTH = 256;

/** A document or client_id URL that cannot be used; the message says why and what to change. */
export class MetadataDocumentError extends Error {}

/**
 * Whether a client_id names a metadata document rather than a registered client: Latch's own client ids never
 * contain a colon (crypto/secrets.ts generateIdentifier), and the draft (§3) forbids self-made ids beginning with https://.
 */
export function isMetadataDocumentClientId(clientId: string): boolean {
  return clientId.startsWith('https://') || clientId.startsWith('http://');
}

/**
 * The client_id URL rules (draft §3): https, a path, no dot segments, no fragment, no user name or password.
 * In development mode http is allowed too, to a loopback host only (local development and tests). The URL must be
 * written as URL parsers write it (lower-case host, no default port, …): the document's client_id is compared
 * with it as a string, and one document must not be two clients.
 */
export function checkClientIdUrl(clientId: string, policy: RegistrationPolicy): string | null {
  if (clientId.length > MAX_CLIENT_ID_LENGTH) return `a client_id URL must be at most ${MAX_CLIENT_ID_LENGTH} characters`;
  let url: URL;
  try {
    url = new URL(clientId);
  } catch {
    return 'the client_id is not an absolute URL';
  }
  if (url.protocol !== 'https:') {
    if (!(url.protocol === 'http:' && policy.developmentMode && isLoopbackHost(url.hostname))) {
      return policy.developmentMode ? 'a client_id URL must use https (http only to localhost, 127.0.0.1 or [::1] in development mode)' : 'a client_id URL must use https';
    }
  }
  if (url.username !== '' || url.password !== '' || /^[a-z]+:\/\/[^/]*@/i.test(clientId)) return 'a client_id URL must not contain a user name or password';
  if (clientId.includes('#')) return 'a client_id URL must not contain a fragment (#…)';
  const rawPath = clientId.replace(/^[a-z]+:\/\/[^/?#]*/i, '').replace(/[?#].*$/, '');
  if (rawPath === '' || rawPath === '/') return 'a client_id URL must have a path (such as https://app.example.com/oauth/client.json), not only a host';
  if (rawPath.split('/').some((segment) => segment === '.' || segment === '..' || /^(%2e|\.){1,2}$/i.test(segment))) {
    return 'a client_id URL must not contain . or .. path segments';
  }
  if (url.href !== clientId) return `the client_id URL must be written in its normal form, ${url.href}`;
  return null;
}

/** What Latch keeps of a valid document: a public client (token_endpoint_auth_method none). */
export interface MetadataDocumentClient {
  name: string;
  redirectUris: string[];
  grantTypes: ClientGrantType[];
  homepageUrl: string | null;
  logoUrl: string | null;
  policyUrl: string | null;
  termsUrl: string | null;
  postLogoutRedirectUris: string[];
  backchannelLogoutUri: string | null;
  idTokenSignedResponseAlg: SigningAlgorithm | null;
}

/** Shared secrets cannot be published in a document anyone can read (draft §4.1). */
const SHARED_SECRET_METHODS = new Set(['client_secret_basic', 'client_secret_post', 'client_secret_jwt']);

function optionalString(document: Record<string, unknown>, field: string): string | undefined {
  const value = document[field];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') throw new MetadataDocumentError(`${field} must be a string`);
  return value;
}

function stringList(document: Record<string, unknown>, field: string): string[] | undefined {
  const value = document[field];
  if (value === undefined || value === null) return undefined;
  if (!Array.isArray(value) || !value.every((item) => typeof item === 'string')) throw new MetadataDocumentError(`${field} must be a JSON array of strings`);
  return value as string[];
}

/** client_uri, logo_uri, policy_uri, tos_uri: shown to people as links or images, so https (http only in development mode). */
function webAddress(document: Record<string, unknown>, field: string, policy: RegistrationPolicy): string | null {
  const raw = optionalString(document, field);
  if (raw === undefined || raw === '') return null;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new MetadataDocumentError(`${field} must be an absolute https:// URL`);
  }
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && policy.developmentMode)) throw new MetadataDocumentError(`${field} must start with https://`);
  if (url.username !== '' || url.password !== '') throw new MetadataDocumentError(`${field} must not contain a user name or password`);
  return url.href;
}

/**
 * Reads a fetched document (already parsed JSON) for the client_id it was fetched from. Fields Latch does not
 * know are ignored (as RFC 7591 §3.1 says of registrations); fields it knows but cannot honour are refused.
 */
export function readMetadataDocument(clientId: string, document: unknown, policy: RegistrationPolicy): MetadataDocumentClient {
  if (document === null || typeof document !== 'object' || Array.isArray(document)) throw new MetadataDocumentError('the document must be a JSON object of client metadata');
  const fields = document as Record<string, unknown>;
  // Draft §4: "client_id … MUST match the URL of the document using simple string comparison" (RFC 3986 §6.2.1).
  if (fields.client_id !== clientId) {
    throw new MetadataDocumentError(
      typeof fields.client_id === 'string' ? `its client_id (${JSON.stringify(fields.client_id.slice(0, 300))}) must be exactly the URL it is served from` : 'its client_id must be the URL it is served from, exactly',
    );
  }
  for (const field of ['client_secret', 'client_secret_expires_at']) {
    if (field in fields) throw new MetadataDocumentError(`${field} cannot be in a metadata document: the document is public, so its client has no secret`);
  }
  // A document cannot hold a secret, so the only client it can describe to Latch is a public one: none is the
  // default, not RFC 7591's client_secret_basic.
  const method = optionalString(fields, 'token_endpoint_auth_method') ?? 'none';
  if (SHARED_SECRET_METHODS.has(method)) throw new MetadataDocumentError(`token_endpoint_auth_method ${method} needs a shared secret, which a public document cannot hold; use none (with PKCE)`);
  if (method !== 'none') throw new MetadataDocumentError(`token_endpoint_auth_method ${method} is not supported for metadata documents; use none (with PKCE)`);

  const grantTypes = stringList(fields, 'grant_types') ?? ['authorization_code'];
  for (const grant of grantTypes) {
    if (grant !== 'authorization_code' && grant !== 'refresh_token') throw new MetadataDocumentError(`grant_type ${grant} is not available to a client described by a metadata document; use authorization_code and refresh_token`);
  }
  if (!grantTypes.includes('authorization_code')) throw new MetadataDocumentError('grant_types must include authorization_code');
  const responseTypes = stringList(fields, 'response_types') ?? ['code'];
  if (responseTypes.length !== 1 || responseTypes[0] !== 'code') throw new MetadataDocumentError('response_types must be code only: Latch supports only the authorization code flow');

  const redirectUris = stringList(fields, 'redirect_uris');
  if (redirectUris === undefined || redirectUris.length === 0) throw new MetadataDocumentError('redirect_uris is required: a non-empty array of the redirect URIs the client uses');
  let checkedRedirectUris: string[];
  let logout: { postLogoutRedirectUris: string[]; backchannelLogoutUri: string | null };
  try {
    checkedRedirectUris = checkRedirectUris(redirectUris, policy);
    logout = checkLogoutSettings({ postLogoutRedirectUris: stringList(fields, 'post_logout_redirect_uris') ?? [], backchannelLogoutUri: optionalString(fields, 'backchannel_logout_uri') ?? null }, policy);
  } catch (error) {
    if (error instanceof ClientRegistrationError) throw new MetadataDocumentError(error.message);
    throw error;
  }

  const alg = optionalString(fields, 'id_token_signed_response_alg');
  if (alg !== undefined && !isSigningAlgorithm(alg)) throw new MetadataDocumentError(`id_token_signed_response_alg must be one of ${SIGNING_ALGORITHMS.join(', ')}`);
  // Without a name, people see the host that serves the document: the one thing about the client that is verified.
  const name = optionalString(fields, 'client_name')?.trim() || new URL(clientId).host;
  const nameProblem = checkClientName(name);
  if (nameProblem) throw new MetadataDocumentError(`client_name: ${nameProblem}`);

  return {
    name,
    redirectUris: checkedRedirectUris,
    grantTypes: [...new Set(grantTypes)] as ClientGrantType[],
    homepageUrl: webAddress(fields, 'client_uri', policy),
    logoUrl: webAddress(fields, 'logo_uri', policy),
    policyUrl: webAddress(fields, 'policy_uri', policy),
    termsUrl: webAddress(fields, 'tos_uri', policy),
    postLogoutRedirectUris: logout.postLogoutRedirectUris,
    backchannelLogoutUri: logout.backchannelLogoutUri,
    idTokenSignedResponseAlg: alg ?? null,
  };
}

export interface CachingHeaders {
  cacheControl?: string | undefined;
  expires?: string | undefined;
  date?: string | undefined;
}

/**
 * How long to use a document (RFC 9111 §4.2.1, as a private cache): Cache-Control no-store, no-cache or max-age
 * first, else Expires less Date; then held within the floor and the ceiling. No caching headers at all: the default.
 */
export function metadataCacheSeconds(headers: CachingHeaders, now: Date): number {
  const clamp = (seconds: number) => Math.min(METADATA_CACHE_CEILING_SECONDS, Math.max(METADATA_CACHE_FLOOR_SECONDS, seconds));
  const directives = (headers.cacheControl ?? '')
    .split(',')
    .map((part) => part.trim().toLowerCase())
    .filter((part) => part !== '');
  if (directives.some((directive) => directive === 'no-store' || directive === 'no-cache' || directive.startsWith('no-cache='))) return METADATA_CACHE_FLOOR_SECONDS;
  const maxAge = directives.map((directive) => /^max-age\s*=\s*"?(\d+)"?$/.exec(directive)).find((match) => match !== null);
  if (maxAge) return clamp(Number(maxAge[1]));
  if (headers.expires !== undefined) {
    const expires = Date.parse(headers.expires);
    // RFC 9111 §5.3: an Expires that is not a valid date means already expired.
    if (Number.isNaN(expires)) return METADATA_CACHE_FLOOR_SECONDS;
    const date = headers.date === undefined ? Number.NaN : Date.parse(headers.date);
    const base = Number.isNaN(date) ? now.getTime() : date;
    return clamp(Math.floor((expires - base) / 1000));
  }
  return METADATA_CACHE_DEFAULT_SECONDS;
}
