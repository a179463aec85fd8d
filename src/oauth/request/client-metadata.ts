/**
 * Client metadata of a registration request (RFC 7591 §2 and §3.1, RFC 7592 §2.2; OIDC Registration 1.0 §2;
 * docs/protocol-decisions.md "Dynamic client registration"), read into a registration Latch can store. Fields Latch
 * does not understand are ignored (RFC 7591 §3.1 "MUST ignore"); fields it understands but cannot honour are
 * `invalid_client_metadata`, and a bad redirect URI is `invalid_redirect_uri` (§3.2.2), each saying what to change.
 */
import { checkClientName, checkRedirectUris, ClientRegistrationError, type RegistrationPolicy } from '../../clients/client-registration.js';
import { isSigningAlgorithm, SIGNING_ALGORITHMS, type SigningAlgorithm } from '../../crypto/signing-algorithms.js';
import { InvalidClientMetadata, InvalidRedirectUri } from '../../errors.js';
import { DEVICE_CODE_GRANT_TYPE, type ClientGrantType, type TokenEndpointAuthMethod } from '../../storage/storage.js';

export interface RegisteredMetadata {
  name: string;
  redirectUris: string[];
  isPublic: boolean;
  tokenEndpointAuthMethod: TokenEndpointAuthMethod;
  grantTypes: ClientGrantType[];
  homepageUrl: string | null;
  policyUrl: string | null;
  termsUrl: string | null;
  postLogoutRedirectUris: string[];
  backchannelLogoutUri: string | null;
  idTokenSignedResponseAlg?: SigningAlgorithm;
}

/** Set by the server only (RFC 7591 §3.2.1, RFC 7592 §2.2): a request that sends one is refused. */
const SERVER_FIELDS = ['registration_access_token', 'registration_client_uri', 'client_secret_expires_at', 'client_id_issued_at'] as const;
const AUTH_METHODS = ['none', 'client_secret_basic', 'client_secret_post'] as const;
const DEFAULT_NAME = 'Unnamed app';
/** What a client may register itself for (services, with client_credentials, are the operator's to register). */
const SELF_REGISTERED_GRANTS: readonly string[] = ['authorization_code', 'refresh_token', DEVICE_CODE_GRANT_TYPE];

function stringList(body: Record<string, unknown>, field: string): string[] | undefined {
  const value = body[field];
  if (value === undefined) return undefined;
  if (!Array.isArray(value) || !value.every((item) => typeof item === 'string')) throw new InvalidClientMetadata(`${field} must be a JSON array of strings`);
  return value as string[];
}

function optionalString(body: Record<string, unknown>, field: string): string | undefined {
  const value = body[field];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') throw new InvalidClientMetadata(`${field} must be a string`);
  return value;
}

/** A web page of the client's (client_uri, policy_uri, tos_uri): an absolute https URL (http in development mode). */
function webPage(field: string, raw: string | undefined, policy: RegistrationPolicy): string | null {
  if (raw === undefined) return null;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new InvalidClientMetadata(`${field} must be an absolute https:// URL`);
  }
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && policy.developmentMode)) throw new InvalidClientMetadata(`${field} must start with https://`);
  return url.href;
}

/** Reads the metadata of a registration (POST) or of a full replacement (PUT: the same fields, omitted ones cleared). */
export function readClientMetadata(body: unknown, policy: RegistrationPolicy): RegisteredMetadata {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw new InvalidClientMetadata('The request body must be a JSON object of client metadata (RFC 7591 §2), sent as application/json');
  }
  const fields = body as Record<string, unknown>;
  const serverField = SERVER_FIELDS.find((field) => field in fields);
  if (serverField) throw new InvalidClientMetadata(`${serverField} is set by Latch, not by the client; leave it out`);

  const method = optionalString(fields, 'token_endpoint_auth_method') ?? 'client_secret_basic';
  if (!(AUTH_METHODS as readonly string[]).includes(method)) {
    throw new InvalidClientMetadata(`token_endpoint_auth_method ${method} is not supported; use ${AUTH_METHODS.join(', ')}`);
  }
  const grantTypes = stringList(fields, 'grant_types') ?? ['authorization_code'];
  for (const grant of grantTypes) {
    if (grant === 'client_credentials') throw new InvalidClientMetadata('client_credentials is not available to clients that register themselves; an operator registers services with latch client create');
    if (!SELF_REGISTERED_GRANTS.includes(grant)) throw new InvalidClientMetadata(`grant_type ${grant} is not supported; use ${SELF_REGISTERED_GRANTS.join(', ')}`);
  }
  const signsInWithCode = grantTypes.includes('authorization_code');
  // A command-line tool or TV registering itself (RFC 8628) uses the device grant alone: no redirect URIs.
  if (!signsInWithCode && !grantTypes.includes(DEVICE_CODE_GRANT_TYPE)) {
    throw new InvalidClientMetadata(`grant_types must include authorization_code or ${DEVICE_CODE_GRANT_TYPE}`);
  }
  // RFC 7591 §2.1: authorization_code goes with response_type code, and Latch has no other; the device grant
  // uses the authorization endpoint not at all, so a device-only client has no response type.
  const responseTypes = stringList(fields, 'response_types') ?? (signsInWithCode ? ['code'] : []);
  if (signsInWithCode ? responseTypes.length !== 1 || responseTypes[0] !== 'code' : responseTypes.length !== 0) {
    throw new InvalidClientMetadata(
      signsInWithCode ? 'response_types must be code only: Latch supports only the authorization code flow' : `response_types must be empty for a client that uses ${DEVICE_CODE_GRANT_TYPE} alone`,
    );
  }

  const redirectUris = stringList(fields, 'redirect_uris') ?? [];
  if (signsInWithCode && redirectUris.length === 0) throw new InvalidRedirectUri('redirect_uris is required: a non-empty array of the redirect URIs the client will use');
  try {
    if (signsInWithCode || redirectUris.length > 0) checkRedirectUris(redirectUris, policy);
  } catch (error) {
    if (error instanceof ClientRegistrationError) throw new InvalidRedirectUri(error.message);
    throw error;
  }

  const alg = optionalString(fields, 'id_token_signed_response_alg');
  if (alg !== undefined && !isSigningAlgorithm(alg)) throw new InvalidClientMetadata(`id_token_signed_response_alg must be one of ${SIGNING_ALGORITHMS.join(', ')}`);
  const name = optionalString(fields, 'client_name')?.trim();
  // Here, not only when a client is created (registerClientOfAnyKind): a replacement (RFC 7592 §2.2, PUT) stores
  // the name directly, and once took one of any length to the consent page.
  const nameProblem = name === undefined || name === '' ? null : checkClientName(name);
  if (nameProblem) throw new InvalidClientMetadata(nameProblem);
  return {
    name: name === undefined || name === '' ? DEFAULT_NAME : name,
    redirectUris: [...new Set(redirectUris)],
    isPublic: method === 'none',
    tokenEndpointAuthMethod: method === 'none' ? 'none' : 'client_secret_basic',
    grantTypes: [...new Set(grantTypes)] as ClientGrantType[],
    homepageUrl: webPage('client_uri', optionalString(fields, 'client_uri'), policy),
    // OIDC Registration 1.0 §2: shown to the person on the consent page.
    policyUrl: webPage('policy_uri', optionalString(fields, 'policy_uri'), policy),
    termsUrl: webPage('tos_uri', optionalString(fields, 'tos_uri'), policy),
    postLogoutRedirectUris: stringList(fields, 'post_logout_redirect_uris') ?? [],
    backchannelLogoutUri: optionalString(fields, 'backchannel_logout_uri') ?? null,
    ...(alg !== undefined && { idTokenSignedResponseAlg: alg }),
  };
}
