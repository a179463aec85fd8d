/**
 * POST /oauth2/revoke (RFC 7009; docs/protocol-decisions.md "Revocation and introspection"). The same bodies
 * and client authentication as the token endpoint; `token` required, `token_type_hint` optional.
 *
 * The answer is 200 with an empty body whenever the client authenticated and the request was well formed:
 * for a token revoked now, one already revoked, expired or unknown, and one issued to another client, which
 * stays as it was (RFC 7009 §2.2: "invalid tokens do not cause an error response"; a client revokes only its own
 * tokens, and an error there would tell it that a token it does not own exists). A public client revokes its own
 * tokens with its client_id alone (RFC 7009 §2.1 allows it for clients without credentials).
 */
import type { FastifyInstance } from 'fastify';
import type { AuditLog } from '../audit/audit-log.js';
import { noStore } from '../http/security-headers.js';
import type { Client, Storage } from '../storage/storage.js';
import { readClientRequest } from './request/client-authentication.js';
import { readPresentedToken, type PresentedTokenType } from './tokens/presented-token.js';

/**
 * Revokes the token if it is the client's own of that type: its user (null for a service's own token) when it
 * was found so (the search stops, and the revocation is recorded), else null.
 */
type Revoke = (storage: Storage, tokenHash: string, client: Client, now: Date) => Promise<{ userId: number | null } | null>;

const REVOKE: Record<PresentedTokenType, Revoke> = {
  // An access token revokes itself only (RFC 7009 §2.1: revoking it MAY also revoke the grant; Latch keeps the
  // refresh token, so that a client can drop an access token it no longer needs without signing the user out).
  access_token: async (storage, tokenHash, client, now) => {
    const found = await storage.tokens.findByHash(tokenHash);
    if (!found) return null;
    return (await storage.tokens.revokeAccessToken(tokenHash, client.clientId, now)) ? { userId: found.userId } : null;
  },
  // A service's own token (client_credentials): no user to record.
  service_token: async (storage, tokenHash, client, now) => ((await storage.tokens.revokeServiceToken(tokenHash, client.clientId, now)) ? { userId: null } : null),
  // A refresh token ends its whole grant: every access and refresh token issued under it (RFC 7009 §2.1: "If
  // the particular token is a refresh token and the authorization server supports the revocation of access
  // tokens, then the authorization server SHOULD also invalidate all access tokens based on the same
  // authorization grant").
  refresh_token: async (storage, tokenHash, client, now) => {
    const found = await storage.tokens.findRefreshByHash(tokenHash);
    if (!found || found.clientId !== client.clientId) return null;
    await storage.tokens.revokeByGrant(found.grantId, now);
    return { userId: found.userId };
  },
};

export function registerRevocationRoute(app: FastifyInstance, { storage, audit }: { storage: Storage; audit: AuditLog }): void {
  app.post('/oauth2/revoke', async (request, reply) => {
    noStore(reply);
    const now = new Date();
    // Client first (RFC 7009 §2.1: "first validates the client credentials"), as at the token endpoint.
    const { params, client } = await readClientRequest(request, storage, now);
    const presented = readPresentedToken(params, 'revoke');
    for (const type of presented.searchOrder) {
      const revoked = await REVOKE[type](storage, presented.tokenHash, client, now);
      if (revoked === null) continue;
      audit.record(request, { type: 'token.revoked', userId: revoked.userId, clientId: client.clientId, details: { token_type: type } });
      break;
    }
    return reply.code(200).send();
  });
}
