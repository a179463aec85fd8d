/**
 * POST /oauth2/token (RFC 6749 §3.2, §4.1.3–4.1.4, §5; docs/protocol-decisions.md).
 * Bodies application/x-www-form-urlencoded or multipart/form-data. Authenticates the client before touching
 * any grant, then dispatches on grant_type to the grants of grants/index.ts.
 */
import type { FastifyInstance } from 'fastify';
import type { AuditLog } from '../audit/audit-log.js';
import type { Config } from '../config.js';
import type { SigningKeyCache } from '../keys/signing-key-cache.js';
import { InvalidRequest, UnauthorizedClient, UnsupportedGrantType } from '../errors.js';
import { noStore } from '../http/security-headers.js';
import { noteTokensIssued } from '../observability/request-outcome.js';
import type { Storage } from '../storage/storage.js';
import { GRANTS } from './grants/index.js';
import { readClientRequest } from './request/client-authentication.js';
import { readParam } from './request/params.js';
import { createLastUsedRecorder } from './tokens/last-used.js';
import { createFirstUseRecorder } from './registration-first-use.js';
import { buildTokenResponse } from './tokens/token-response.js';

export interface TokenRouteDeps {
  storage: Storage;
  config: Config;
  signingKeys: SigningKeyCache;
  audit: AuditLog;
}

const SUPPORTED = [...GRANTS.keys()].join(', ');

export function registerTokenRoute(app: FastifyInstance, { storage, config, signingKeys, audit }: TokenRouteDeps): void {
  const lastUsed = createLastUsedRecorder(storage);
  const firstUse = createFirstUseRecorder(storage);
  app.post('/oauth2/token', async (request, reply) => {
    noStore(reply);
    const now = new Date();
    const { params, client } = await readClientRequest(request, storage, now);

    const grantType = readParam(params, 'grant_type', { maxLength: 128 });
    if (grantType === undefined) throw new InvalidRequest('grant_type is required; use grant_type=authorization_code');
    const grant = GRANTS.get(grantType);
    if (!grant) throw new UnsupportedGrantType(`grant_type ${grantType} is not supported; Latch supports ${SUPPORTED}`);
    // RFC 6749 §5.2: a client may use only the grants it was registered for (RFC 7591 §2 grant_types).
    if (!(client.grantTypes as readonly string[]).includes(grantType)) {
      throw new UnauthorizedClient(`This client is not registered for grant_type ${grantType}; it may use ${client.grantTypes.join(', ')}`);
    }

    // Before any grant is spent: a process that could not load its keys at start fails here, code unspent.
    await signingKeys.ensureLoaded();
    const issued = await grant.issue({ storage, config, client, params, now, audit, source: request });
    if (issued.user) lastUsed.record(issued.user.id, client.clientId, now, request.log);
    // A self-registered client is kept once it has had a token exchange (registration-first-use.ts).
    if (client.registeredDynamically) await firstUse(client, now, request.log);
    audit.record(request, { type: grant.issuedEvent, userId: issued.user?.id ?? null, clientId: client.clientId, details: { scope: issued.scope, refresh_token_issued: issued.refreshToken !== undefined } });
    noteTokensIssued(request, grantType);
    return reply.type('application/json; charset=utf-8').send(await buildTokenResponse(issued, { client, config, signingKeys, now }));
  });
}
