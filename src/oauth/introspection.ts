/**
 * POST /oauth2/introspect (RFC 7662; docs/protocol-decisions.md "Revocation and introspection"). The same
 * bodies and client authentication as the token endpoint (RFC 7662 §2.1: the endpoint "MUST also require some
 * form of authorization"); `token` required, `token_type_hint` optional.
 *
 * Who may introspect what: a confidential client, the tokens issued to it. A public client cannot introspect at
 * all (docs/protocol-decisions.md "Public clients and services"): it has no credentials, so it is not
 * authenticated in RFC 7662 §2.1's sense, and it gets invalid_client. Every other token (another client's, expired,
 * revoked, rotated, unknown) is answered exactly `{"active":false}` (RFC 7662 §2.2: "the protected resource is
 * not allowed to introspect this particular token" is inactive too, and an inactive answer "SHOULD NOT include
 * any additional information"), so that the answer tells a client nothing about tokens that are not its own.
 */
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { Config } from '../config.js';
import { InvalidClient } from '../errors.js';
import { noStore } from '../http/security-headers.js';
import type { Client, Storage } from '../storage/storage.js';
import { readClientRequest } from './request/client-authentication.js';
import type { SigningKeyCache } from '../keys/signing-key-cache.js';
import { looksLikeJwt, verifyAccessTokenJwt } from './tokens/access-token-jwt.js';
import { readPresentedToken, type PresentedTokenType } from './tokens/presented-token.js';
import { readParam } from './request/params.js';

/** RFC 7662 §2.2: the members Latch answers for an active token. */
export interface ActiveTokenIntrospection {
  active: true;
  scope: string;
  client_id: string;
  /** The user, as the id_token's and userinfo's `sub`; for a service token the client itself (RFC 9068 §2.2). */
  sub: string;
  exp: number;
  iat: number;
  /** "Bearer" for an access token (RFC 6750); "refresh_token" for a refresh token, which is no access token type. */
  token_type: 'Bearer' | 'refresh_token';
  iss: string;
}

const INACTIVE = JSON.stringify({ active: false });

const epochSeconds = (date: Date) => Math.floor(date.getTime() / 1000);

/** The token if it is one of the client's own active tokens of that type, else null (the search goes on). */
type Introspect = (storage: Storage, tokenHash: string, client: Client, now: Date, issuer: string) => Promise<ActiveTokenIntrospection | null>;

const INTROSPECT: Record<PresentedTokenType, Introspect> = {
  access_token: async (storage, tokenHash, client, now, issuer) => {
    // Unexpired and unrevoked only, with the same per-process cache as userinfo: a revocation is seen at once.
    const found = await storage.tokens.findActiveWithUser(tokenHash, now);
    if (!found || found.token.clientId !== client.clientId) return null;
    const { token } = found;
    return {
      active: true,
      scope: token.scope.join(' '),
      client_id: token.clientId,
      sub: String(token.userId),
      exp: epochSeconds(token.expiresAt),
      iat: epochSeconds(token.createdAt),
      token_type: 'Bearer',
      iss: issuer,
    };
  },
  // client_credentials: the client is its own resource owner (RFC 6749 §4.4), so sub is its client_id (RFC 9068 §2.2).
  service_token: async (storage, tokenHash, client, now, issuer) => {
    const token = await storage.tokens.findActiveServiceToken(tokenHash, now);
    if (!token || token.clientId !== client.clientId) return null;
    return {
      active: true,
      scope: token.scope.join(' '),
      client_id: token.clientId,
      sub: token.clientId,
      exp: epochSeconds(token.expiresAt),
      iat: epochSeconds(token.createdAt),
      token_type: 'Bearer',
      iss: issuer,
    };
  },
  refresh_token: async (storage, tokenHash, client, now, issuer) => {
    const token = await storage.tokens.findRefreshByHash(tokenHash);
    if (!token || token.clientId !== client.clientId) return null;
    // A rotated token is spent: its successor is the grant's live one (RFC 9700 §4.14.2).
    if (token.revokedAt !== null || token.rotatedAt !== null) return null;
    const expiresAt = token.expiresAt < token.grantExpiresAt ? token.expiresAt : token.grantExpiresAt;
    if (expiresAt <= now) return null;
    return {
      active: true,
      scope: token.scope.join(' '),
      client_id: token.clientId,
      sub: String(token.userId),
      exp: epochSeconds(expiresAt),
      iat: epochSeconds(token.createdAt),
      token_type: 'refresh_token',
      iss: issuer,
    };
  },
};

function sendJson(reply: FastifyReply, body: string): FastifyReply {
  return reply.type('application/json; charset=utf-8').send(body);
}

/**
 * A JWT access token for a resource (RFC 9068; tokens/access-token-jwt.ts): active when its signature, issuer,
 * type and expiry verify, its grant's bookkeeping row (keyed by its jti) is neither revoked nor expired, and it was
 * issued to this client; answered with its audience and its own scope.
 */
async function introspectJwt(storage: Storage, signingKeys: SigningKeyCache, token: string, client: Client, now: Date, issuer: string): Promise<(ActiveTokenIntrospection & { aud: string; jti: string }) | null> {
  const claims = await verifyAccessTokenJwt(signingKeys, token, issuer, now);
  if (!claims || claims.clientId !== client.clientId) return null;
  // A service's JWT (client_credentials, sub = client_id) has its row among the service tokens.
  const row = claims.sub === claims.clientId ? await storage.tokens.findActiveServiceToken(claims.jti, now) : (await storage.tokens.findActiveWithUser(claims.jti, now))?.token;
  if (!row || row.clientId !== client.clientId) return null;
  return { active: true, scope: claims.scope.join(' '), client_id: claims.clientId, sub: claims.sub, exp: claims.exp, iat: claims.iat, token_type: 'Bearer', iss: issuer, aud: claims.aud, jti: claims.jti };
}

export function registerIntrospectionRoute(app: FastifyInstance, { storage, config, signingKeys }: { storage: Storage; config: Config; signingKeys: SigningKeyCache }): void {
  app.post('/oauth2/introspect', async (request, reply) => {
    noStore(reply);
    const now = new Date();
    const { params, client } = await readClientRequest(request, storage, now);
    if (client.tokenEndpointAuthMethod === 'none') {
      throw new InvalidClient('Public clients cannot introspect tokens: introspection is for confidential clients and resource servers that authenticate with a secret', false);
    }
    // Read as revocation reads it (readPresentedToken): a token longer than any parameter may be is invalid_request
    // at both endpoints, a JWT-shaped one included.
    const token = readParam(params, 'token');
    if (token !== undefined && looksLikeJwt(token)) {
      const active = await introspectJwt(storage, signingKeys, token, client, now, config.issuer);
      return sendJson(reply, active ? JSON.stringify(active) : INACTIVE);
    }
    const presented = readPresentedToken(params, 'introspect');
    for (const type of presented.searchOrder) {
      const active = await INTROSPECT[type](storage, presented.tokenHash, client, now, config.issuer);
      if (active) return sendJson(reply, JSON.stringify(active));
    }
    return sendJson(reply, INACTIVE);
  });
}
