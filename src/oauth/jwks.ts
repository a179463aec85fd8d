/**
 * GET /oauth2/jwks: the public keys that verify Latch's id_tokens (RFC 7517 §5, OIDC Core §10.1.1), from the
 * in-process key cache. Pending keys are listed before they sign and previous ones until their tokens expire
 * (keys/signing-keys.ts), so a client may cache this for JWKS_MAX_AGE_SECONDS.
 */
import type { FastifyInstance } from 'fastify';
import type { SigningKeyCache } from '../keys/signing-key-cache.js';
import { publicJson } from './discovery.js';

export const JWKS_MAX_AGE_SECONDS = 300;

export function registerJwksRoute(app: FastifyInstance, { signingKeys }: { signingKeys: SigningKeyCache }): void {
  app.get('/oauth2/jwks', async (_request, reply) => {
    await signingKeys.ensureLoaded();
    // application/json rather than application/jwk-set+json (RFC 7517 §8.5): every client library reads it.
    return publicJson(reply, JWKS_MAX_AGE_SECONDS).send(JSON.stringify(signingKeys.publishedJwks()));
  });
}
