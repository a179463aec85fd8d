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
import { ID_TOKEN_CLAIMS } from './id-token.js';
import { SUPPORTED_PROMPTS } from './prompt.js';
import { SUPPORTED_SCOPES } from './scope.js';

export const DISCOVERY_MAX_AGE_SECONDS = 300;

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
    grant_types_supported: ['authorization_code'],
    subject_types_supported: ['public'],
    id_token_signing_alg_values_supported: [...SIGNING_ALGORITHMS],
    token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'],
    code_challenge_methods_supported: ['S256'],
    claims_supported: [...ID_TOKEN_CLAIMS],
    claim_types_supported: ['normal'],
    prompt_values_supported: [...SUPPORTED_PROMPTS],
    claims_parameter_supported: false,
    request_parameter_supported: false,
    request_uri_parameter_supported: false,
    require_request_uri_registration: false,
    authorization_response_iss_parameter_supported: true,
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
  // Serialized once per issuer: it depends only on the configuration.
  let cached: { issuer: string; body: string } | undefined;
  const send = async (_request: unknown, reply: FastifyReply) => {
    if (cached?.issuer !== config.issuer) cached = { issuer: config.issuer, body: JSON.stringify(buildProviderMetadata(config)) };
    return publicJson(reply, DISCOVERY_MAX_AGE_SECONDS).send(cached.body);
  };
  app.get('/.well-known/openid-configuration', send);
  app.get('/.well-known/oauth-authorization-server', send);
}
