/**
 * GET /.well-known/openid-configuration (OpenID Connect Discovery 1.0 §3–4) and the same metadata as RFC 8414
 * authorization server metadata at GET /.well-known/oauth-authorization-server.
 *
 * Lists only what Latch really does. Where Discovery's default would claim more than that (e.g.
 * request_uri_parameter_supported defaults to true), the value is given explicitly. `issuer` is byte-identical
 * to LATCH_ISSUER, as is every id_token `iss` (Discovery §4.3).
 */
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { Config } from '../config.js';
import { SIGNING_ALGORITHMS } from '../crypto/signing-algorithms.js';
import { GRANTS } from './grants/index.js';
import { ACR_VALUES_SUPPORTED } from '../session/authentication-methods.js';
import { ID_TOKEN_CLAIMS } from './tokens/id-token.js';
import { SUPPORTED_PROMPTS } from './request/prompt.js';
import { SUPPORTED_SCOPES } from './request/scope.js';
import { SUPPORTED_LOCALES } from '../i18n/locales.js';

export const DISCOVERY_MAX_AGE_SECONDS = 300;

/** How confidential clients authenticate at the token, revocation and introspection endpoints (request/client-authentication.ts). */
const CLIENT_AUTHENTICATION_METHODS = ['client_secret_basic', 'client_secret_post'] as const;
/** Public clients (single-page and mobile apps) send client_id alone at the token and revocation endpoints, never at introspection. */
const PUBLIC_CLIENT_METHODS = [...CLIENT_AUTHENTICATION_METHODS, 'none'] as const;

export function buildProviderMetadata(config: Config): Record<string, unknown> {
  const url = (path: string) => `${config.issuer}${path}`;
  return {
    issuer: config.issuer,
    authorization_endpoint: url('/oauth2/authorize'),
    token_endpoint: url('/oauth2/token'),
    userinfo_endpoint: url('/oauth2/userinfo'),
    jwks_uri: url('/oauth2/jwks'),
    scopes_supported: [...SUPPORTED_SCOPES],
    response_types_supported: ['code'],
    response_modes_supported: ['query'],
    // Every grant the token endpoint dispatches to (grants/index.ts).
    grant_types_supported: [...GRANTS.keys()],
    subject_types_supported: ['public'],
    id_token_signing_alg_values_supported: [...SIGNING_ALGORITHMS],
    token_endpoint_auth_methods_supported: [...PUBLIC_CLIENT_METHODS],
    // RFC 8414 §2: revocation (RFC 7009) and introspection (RFC 7662) authenticate clients as the token endpoint does.
    revocation_endpoint: url('/oauth2/revoke'),
    revocation_endpoint_auth_methods_supported: [...PUBLIC_CLIENT_METHODS],
    introspection_endpoint: url('/oauth2/introspect'),
    introspection_endpoint_auth_methods_supported: [...CLIENT_AUTHENTICATION_METHODS],
    code_challenge_methods_supported: ['S256'],
    claims_supported: [...ID_TOKEN_CLAIMS],
    // OIDC Discovery §3; the levels from weakest to strongest (session/authentication-methods.ts).
    acr_values_supported: [...ACR_VALUES_SUPPORTED],
    claim_types_supported: ['normal'],
    prompt_values_supported: [...SUPPORTED_PROMPTS],
    // OIDC Discovery §3: the languages of the pages (i18n/locales.ts), chosen by ui_locales, then Accept-Language.
    ui_locales_supported: [...SUPPORTED_LOCALES],
    claims_parameter_supported: false,
    request_parameter_supported: false,
    request_uri_parameter_supported: false,
    require_request_uri_registration: false,
    authorization_response_iss_parameter_supported: true,
    // OIDC RP-Initiated Logout 1.0 §2.1 (oauth/logout.ts).
    end_session_endpoint: url('/oauth2/logout'),
    // OIDC Back-Channel Logout 1.0 §2.1: id_tokens carry sid, and logout tokens name it.
    // frontchannel_logout_supported is left out (false): it needs third-party cookies in iframes, which browsers block.
    backchannel_logout_supported: true,
    backchannel_logout_session_supported: true,
    // RFC 8628 §4: where devices ask for a device_code and user_code (the grant type is in grant_types_supported).
    device_authorization_endpoint: url('/oauth2/device_authorization'),
    // RFC 8414 §2: only when registration is on (a null value breaks clients that validate the document).
    ...(config.registration !== 'off' && { registration_endpoint: url('/oauth2/register') }),
    // draft-ietf-oauth-client-id-metadata-document: a client_id may be the https URL of the client's metadata document.
    ...(config.cimd && { client_id_metadata_document_supported: true }),
  };
}

/** Public, cacheable, readable by browser-based clients of any origin. */
export function publicJson(reply: FastifyReply, maxAgeSeconds: number): FastifyReply {
  return reply
    .type('application/json; charset=utf-8')
    .header('cache-control', `public, max-age=${maxAgeSeconds}`)
    .header('access-control-allow-origin', '*')
    .header('cross-origin-resource-policy', 'cross-origin');
}

export function registerDiscoveryRoutes(app: FastifyInstance, { config }: { config: Config }): void {
  // Serialized once: it depends only on the configuration, which is fixed before the app is built.
  const body = JSON.stringify(buildProviderMetadata(config));
  const send = async (_request: unknown, reply: FastifyReply) => publicJson(reply, DISCOVERY_MAX_AGE_SECONDS).send(body);
  app.get('/.well-known/openid-configuration', send);
  app.get('/.well-known/oauth-authorization-server', send);
}
