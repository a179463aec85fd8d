/**
 * GET and POST /oauth2/userinfo (RFC 6750 §2.1 and §3, OIDC Core §5.3; docs/protocol-decisions.md "Userinfo").
 * The token comes from the Authorization header only: `Bearer <token>` with the scheme in any case, or the
 * bare token as the whole value (the service's reference call). Never from the query string, and never a value
 * with another scheme such as Basic.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { hashTimeOrderedSecret, SECRET_PREFIX } from '../crypto/secrets.js';
import { InvalidToken } from '../errors.js';
import { noStore } from '../http/security-headers.js';
import type { Storage } from '../storage/storage.js';
import { looksLikeJwt } from './tokens/access-token-jwt.js';
import { buildUserinfoResponse } from './tokens/user-object.js';

// RFC 6750 §2.1: b64token = 1*( ALPHA / DIGIT / "-" / "." / "_" / "~" / "+" / "/" ) *"="
const B64TOKEN = /^[A-Za-z0-9\-._~+/]+=*$/;

/** IANA HTTP Authentication Scheme Registry names a caller may use by mistake here. */
const KNOWN_SCHEMES = new Set(['basic', 'digest', 'dpop', 'hoba', 'mutual', 'negotiate', 'ntlm', 'privatetoken', 'scram-sha-1', 'scram-sha-256', 'vapid', 'token', 'mac']);

export function extractAccessToken(request: FastifyRequest): string {
  const header = request.headers.authorization;
  if (header === undefined || header.trim() === '') {
    const query = request.query as Record<string, unknown> | undefined;
    const hint = query && 'access_token' in query ? '; tokens in the query string are not accepted' : '';
    throw new InvalidToken(`No access token: send Authorization: Bearer <access_token>${hint}`, false);
  }
  const value = header.trim();
  // The scheme ends at the first space or tab (RFC 7235 §2.1 has spaces; "Bearer<TAB>token" was once told to use Bearer).
  const space = value.search(/[ \t]/);
  if (space < 0) {
    if (B64TOKEN.test(value)) return value;
    throw new InvalidToken('The Authorization header is not a Bearer token');
  }
  const scheme = value.slice(0, space);
  const token = value.slice(space + 1).trim();
  if (scheme.toLowerCase() !== 'bearer') {
    // RFC 6750 §3.1: another authentication method is as if none was sent: the challenge carries no error code.
    // The scheme is named only when it is a registered one: the first word of a header can be a pasted secret.
    const named = KNOWN_SCHEMES.has(scheme.toLowerCase()) ? `Authorization scheme ${scheme}` : 'This Authorization scheme';
    throw new InvalidToken(`${named} is not accepted here; use Bearer`, false);
  }
  if (!B64TOKEN.test(token)) throw new InvalidToken('The Bearer token is malformed');
  return token;
}

export function registerUserinfoRoutes(app: FastifyInstance, { storage }: { storage: Storage }): void {
  const handler = async (request: FastifyRequest) => {
    const token = extractAccessToken(request);
    // A service's own token (client_credentials) has no user to describe (told apart by its prefix).
    if (token.startsWith(SECRET_PREFIX.serviceToken)) {
      throw new InvalidToken('This is a client credentials token: it belongs to a service and carries no user, so userinfo has nothing to return');
    }
    // RFC 8707 / RFC 9068: a JWT access token's audience is the API it names, not Latch; userinfo takes the access
    // token of a token request without resource (README "APIs (resource servers)").
    if (looksLikeJwt(token)) {
      throw new InvalidToken('This access token is a JWT for an API (its aud), not for userinfo: userinfo takes the access token of a token request without resource');
    }
    const found = await storage.tokens.findActiveWithUser(hashTimeOrderedSecret(token), new Date());
    if (!found) throw new InvalidToken('The access token is unknown, expired or revoked');
    return buildUserinfoResponse(found.user, found.token.scope);
  };
  app.get('/oauth2/userinfo', async (request, reply) => {
    noStore(reply);
    return handler(request);
  });
  app.post('/oauth2/userinfo', async (request, reply) => {
    noStore(reply);
    return handler(request);
  });
}
