/**
 * Dynamic Client Registration: POST /oauth2/register (RFC 7591) and its management protocol, GET, PUT and DELETE
 * /oauth2/register/{client_id} (RFC 7592); docs/protocol-decisions.md "Dynamic client registration".
 *
 * The operator chooses the policy (LATCH_REGISTRATION): `off` (403, the default), `token` (an initial access
 * token as a Bearer token, RFC 7591 §3), `open` (anyone, public clients only). Each registration gets a
 * registration access token (RFC 7592 §3), shown once and stored as a hash; with it the client reads, replaces
 * or deletes its registration. A wrong token or an unknown client is the same 401 invalid_token (RFC 7592 §2.1:
 * no telling which).
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AuditLog } from '../audit/audit-log.js';
import { ClientRegistrationError, checkLogoutSettings, registerClientOfAnyKind } from '../clients/client-registration.js';
import type { Config } from '../config.js';
import { generateSecret, hashesEqual, hashSecret, SECRET_PREFIX } from '../crypto/secrets.js';
import { AccessDenied, InvalidClientMetadata, InvalidRequest, InvalidToken } from '../errors.js';
import { sendJsonTooMany } from '../http/rate-limits.js';
import { noStore } from '../http/security-headers.js';
import type { Client, Storage } from '../storage/storage.js';
import { readClientMetadata } from './request/client-metadata.js';
import { extractAccessToken } from './userinfo.js';

const epochSeconds = (date: Date) => Math.floor(date.getTime() / 1000);

/**
 * Open registration per client address: at most LATCH_RATE_LIMIT_REGISTRATION (default 20) in this window (the
 * sign-in throttle's counter, shared across processes through Redis when configured). Callers with the initial
 * access token are not counted.
 */
export const OPEN_REGISTRATION_WINDOW_SECONDS = 3600;

/** The part of the attempt counter (accounts/sign-in-throttle.ts) registration uses. */
export interface RegistrationCounter {
  increment(key: string, windowSeconds: number, now: Date): Promise<number>;
}

/** The registration as Latch holds it (RFC 7591 §3.2.1, RFC 7592 §3). */
function describeRegistration(client: Client, config: Config): Record<string, unknown> {
  return {
    client_id: client.clientId,
    client_id_issued_at: epochSeconds(client.createdAt),
    client_name: client.name,
    redirect_uris: client.redirectUris,
    token_endpoint_auth_method: client.tokenEndpointAuthMethod,
    grant_types: client.grantTypes,
    response_types: client.grantTypes.includes('authorization_code') ? ['code'] : [],
    ...(client.homepageUrl !== null && { client_uri: client.homepageUrl }),
    ...(client.policyUrl && { policy_uri: client.policyUrl }),
    ...(client.termsUrl && { tos_uri: client.termsUrl }),
    post_logout_redirect_uris: client.postLogoutRedirectUris,
    ...(client.backchannelLogoutUri !== null && { backchannel_logout_uri: client.backchannelLogoutUri }),
    id_token_signed_response_alg: client.idTokenSignedResponseAlg,
    // RFC 7591 §3.2.1: required when a secret was issued; 0 = it does not expire.
    ...(client.tokenEndpointAuthMethod !== 'none' && { client_secret_expires_at: 0 }),
    registration_client_uri: `${config.issuer}/oauth2/register/${encodeURIComponent(client.clientId)}`,
  };
}

function sendJson(reply: FastifyReply, status: number, body: Record<string, unknown>): FastifyReply {
  return reply.code(status).type('application/json; charset=utf-8').send(JSON.stringify(body));
}

/**
 * RFC 7591 §3: the policy of LATCH_REGISTRATION, checked before the body is looked at. In `token` mode the
 * initial access token is LATCH_REGISTRATION_TOKEN or one made with `latch registration-token create`, live
 * (not expired, not revoked): those are found by their hash, so the comparison is of hashes.
 */
async function checkRegistrationAllowed(request: FastifyRequest, config: Config, storage: Storage): Promise<void> {
  if (config.registration === 'off') {
    throw new AccessDenied('Dynamic client registration is off on this server (LATCH_REGISTRATION=off): ask its operator to register your app, or to turn registration on');
  }
  if (config.registration === 'token') {
    // No header at all: say which token (the userinfo wording, "an access token", would send people to the wrong one).
    if ((request.headers.authorization ?? '').trim() === '') {
      throw new InvalidToken('Registration on this server needs an initial access token from its operator: send it as Authorization: Bearer <initial access token> (RFC 7591, section 3)', false);
    }
    const presentedHash = hashSecret(extractAccessToken(request));
    const fromEnvironment = config.registrationToken !== null && hashesEqual(presentedHash, hashSecret(config.registrationToken));
    if (!fromEnvironment && !(await storage.registrationTokens.findUsable(presentedHash, new Date()))) {
      throw new InvalidToken('The initial access token is wrong, expired or revoked: registration on this server needs a token its operator hands out');
    }
  }
}

/** RFC 7592 §2: the client named in the path, when the Bearer token is its registration access token. */
async function authenticateRegistration(request: FastifyRequest, storage: Storage): Promise<Client> {
  const presented = extractAccessToken(request);
  const { clientId } = request.params as { clientId: string };
  const client = await storage.clients.findById(clientId);
  const presentedHash = hashSecret(presented);
  if (!client || client.registrationAccessTokenHash === null || !hashesEqual(presentedHash, client.registrationAccessTokenHash)) {
    throw new InvalidToken('The registration access token is not valid for this client');
  }
  request.latchClient = client;
  return client;
}

function metadataError(error: unknown): unknown {
  return error instanceof ClientRegistrationError ? new InvalidClientMetadata(error.message) : error;
}

/**
 * RFC 7591 §3.1 and RFC 7592 §2.2: the metadata comes "with a content type of application/json". The other bodies
 * Latch parses elsewhere (a form, multipart, text) are refused before they are read, with what to send instead: a
 * form once registered a device client (a repeated grant_types field reads as a list), and the generic answer
 * advised the very form and multipart bodies this endpoint cannot take.
 */
const JSON_MEDIA_TYPE = /^application\/json[\t ]*(;|$)/i;

function requireJsonBody(request: FastifyRequest): void {
  if (request.method !== 'POST' && request.method !== 'PUT') return;
  const type = request.headers['content-type'];
  if (type === undefined || !JSON_MEDIA_TYPE.test(type)) {
    throw new InvalidRequest(
      `Send the client metadata as a JSON object with Content-Type: application/json (RFC 7591 section 3.1)${type === undefined ? '' : `, not ${type.slice(0, 100)}`}`,
    );
  }
}

export function registerRegistrationRoutes(
  app: FastifyInstance,
  { storage, config, audit, counter }: { storage: Storage; config: Config; audit: AuditLog; counter: RegistrationCounter },
): void {
  const policy = { developmentMode: config.developmentMode };
  // Before the body is parsed (preValidation would come after the form parser has read it).
  // With registration off, the 403 says so whatever the body.
  if (config.registration !== 'off') app.addHook('onRequest', async (request) => requireJsonBody(request));

  app.post('/oauth2/register', async (request, reply) => {
    noStore(reply);
    await checkRegistrationAllowed(request, config, storage);
    const metadata = readClientMetadata(request.body, policy);
    if (config.registration === 'open' && !metadata.isPublic) {
      throw new InvalidClientMetadata('Open registration on this server is for public clients only: register with token_endpoint_auth_method none (and PKCE), or ask the operator for an initial access token');
    }
    const perAddress = config.limits.registrationsPerAddressPerHour;
    if (config.registration === 'open' && perAddress > 0) {
      // Counted only once the request is valid, so that a client fixing its metadata is not locked out.
      const count = await counter.increment(`registration:${request.ip}`, OPEN_REGISTRATION_WINDOW_SECONDS, new Date());
      if (count > perAddress) {
        // No RFC 7591 error fits; 429 with Retry-After (RFC 6585 §4), in the JSON error shape of every door
        // (docs/protocol-decisions.md "Rate limits"). The window began at this address's first registration,
        // so an hour is the longest wait.
        return sendJsonTooMany(
          request,
          reply,
          OPEN_REGISTRATION_WINDOW_SECONDS,
          `Too many registrations from this address: at most ${perAddress} an hour; register once and keep the client_id`,
        );
      }
    }
    const maxUnused = config.limits.maxUnusedRegistrations;
    if (config.registration === 'open' && maxUnused > 0 && (await storage.clients.countUnusedRegistrations(maxUnused)) >= maxUnused) {
      return sendJsonTooMany(
        request,
        reply,
        OPEN_REGISTRATION_WINDOW_SECONDS,
        `This server holds as many self-registered apps waiting for their first sign-in as it takes (${maxUnused}); unused ones are removed after a while, so try again later, or ask the operator for an initial access token`,
      );
    }
    const registrationAccessToken = generateSecret(SECRET_PREFIX.registrationAccessToken);
    const { client, clientSecret } = await registerClientOfAnyKind(
      storage,
      { ...metadata, registrationAccessTokenHash: hashSecret(registrationAccessToken) },
      policy,
    ).catch((error: unknown) => {
      throw metadataError(error);
    });
    audit.record(request, { type: 'client.created', clientId: client.clientId, details: { name: client.name, via: 'registration' } });
    return sendJson(reply, 201, {
      ...describeRegistration(client, config),
      ...(clientSecret !== null && { client_secret: clientSecret }),
      registration_access_token: registrationAccessToken,
    });
  });

  app.get('/oauth2/register/:clientId', async (request, reply) => {
    noStore(reply);
    return sendJson(reply, 200, describeRegistration(await authenticateRegistration(request, storage), config));
  });

  // RFC 7592 §2.2: the whole registration is replaced; fields left out are cleared or take their defaults.
  app.put('/oauth2/register/:clientId', async (request, reply) => {
    noStore(reply);
    const client = await authenticateRegistration(request, storage);
    const body = request.body as Record<string, unknown> | null;
    if (body === null || typeof body !== 'object' || body.client_id !== client.clientId) {
      throw new InvalidClientMetadata('The body must include client_id, the id of the client being updated (RFC 7592 §2.2)');
    }
    if (body.client_secret !== undefined) throw new InvalidClientMetadata('Leave client_secret out: a registration update cannot change or confirm the secret here');
    const metadata = readClientMetadata(body, policy);
    if (metadata.tokenEndpointAuthMethod !== client.tokenEndpointAuthMethod) {
      throw new InvalidClientMetadata(`token_endpoint_auth_method cannot change after registration (it is ${client.tokenEndpointAuthMethod}); register a new client instead`);
    }
    let logout: ReturnType<typeof checkLogoutSettings>;
    try {
      logout = checkLogoutSettings(metadata, policy);
    } catch (error) {
      throw metadataError(error);
    }
    const now = new Date();
    await storage.clients.update(
      client.clientId,
      {
        name: metadata.name,
        redirectUris: metadata.redirectUris,
        grantTypes: metadata.grantTypes,
        homepageUrl: metadata.homepageUrl,
        policyUrl: metadata.policyUrl,
        termsUrl: metadata.termsUrl,
        ...logout,
        ...(metadata.idTokenSignedResponseAlg !== undefined && { idTokenSignedResponseAlg: metadata.idTokenSignedResponseAlg }),
      },
      now,
    );
    audit.record(request, { type: 'client.updated', clientId: client.clientId, details: { via: 'registration' } });
    const updated = (await storage.clients.findById(client.clientId)) ?? client;
    return sendJson(reply, 200, describeRegistration(updated, config));
  });

  app.delete('/oauth2/register/:clientId', async (request, reply) => {
    noStore(reply);
    const client = await authenticateRegistration(request, storage);
    await storage.clients.delete(client.clientId);
    audit.record(request, { type: 'client.deleted', clientId: client.clientId, details: { name: client.name, via: 'registration' } });
    return reply.code(204).send();
  });
}
