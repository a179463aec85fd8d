/**
 * POST /oauth2/token (RFC 6749 §3.2, §4.1.3–4.1.4, §5; spec 4.2; DESIGN "Token endpoint").
 * Bodies application/x-www-form-urlencoded or multipart/form-data. Authenticates the client before touching
 * the code, then dispatches on grant_type.
 */
import type { FastifyInstance } from 'fastify';
import type { Config } from '../config.js';
import type { SigningKeyCache } from '../crypto/signing-key-cache.js';
import { InvalidRequest, UnsupportedGrantType } from '../errors.js';
import { readFormParams } from '../http/form-body.js';
import { noStore } from '../http/security-headers.js';
import type { Storage } from '../storage/storage.js';
import { authenticateClient } from './client-authentication.js';
import { exchangeAuthorizationCode } from './grants/authorization-code.js';
import { createIdToken } from './id-token.js';
import { findDuplicatedParam, readParam } from './params.js';
import { buildTokenResponseUser } from './user-object.js';

export interface TokenRouteDeps {
  storage: Storage;
  config: Config;
  signingKeys: SigningKeyCache;
}

export function registerTokenRoute(app: FastifyInstance, { storage, config, signingKeys }: TokenRouteDeps): void {
  app.post('/oauth2/token', async (request, reply) => {
    noStore(reply);
    const params = await readFormParams(request);
    const now = new Date();
    // Client first (its own parameters are read strictly, once each), so that every later failure is
    // recorded against the client for its developer console.
    const client = await authenticateClient(request, params, storage, now);
    const duplicated = findDuplicatedParam(params);
    if (duplicated) throw new InvalidRequest(`${duplicated} was sent more than once; send it exactly once`);

    const grantType = readParam(params, 'grant_type', { maxLength: 128 });
    if (grantType === undefined) throw new InvalidRequest('grant_type is required; use grant_type=authorization_code');
    if (grantType !== 'authorization_code') {
      throw new UnsupportedGrantType(`grant_type ${grantType} is not supported; Latch supports authorization_code`);
    }

    // Before the code is consumed: a process that could not load its keys at start fails here, code unspent.
    await signingKeys.ensureLoaded();
    const issued = await exchangeAuthorizationCode(storage, config, client, params, now);
    // OIDC Core §3.1.3.3: an id_token when the authorization request had scope openid (spec 2.2). Signed with
    // the cached key, after the code is consumed: a failure here cannot leave the code usable twice.
    const idToken = issued.code.scope.includes('openid')
      ? await createIdToken(signingKeys, {
          issuer: config.issuer,
          clientId: client.clientId,
          alg: client.idTokenSignedResponseAlg,
          user: issued.user,
          scope: issued.code.scope,
          nonce: issued.code.nonce,
          authTime: issued.code.authTime,
          accessToken: issued.accessToken,
          ttlSeconds: config.idTokenTtlSeconds,
          now,
        })
      : undefined;
    return reply.type('application/json; charset=utf-8').send({
      access_token: issued.accessToken,
      token_type: 'Bearer',
      expires_in: issued.expiresInSeconds,
      scope: issued.code.scope.join(' '),
      ...(idToken !== undefined && { id_token: idToken }),
      user: buildTokenResponseUser(issued.user, client.name),
    });
  });
}
