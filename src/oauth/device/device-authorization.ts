/**
 * POST /oauth2/device_authorization (RFC 8628 §3.1–3.2; docs/protocol-decisions.md "Device authorization grant"):
 * a device that cannot show a browser (a command-line tool, a TV) asks for a device_code to poll with and a
 * user_code for the person to type at <issuer>/device.
 *
 * - The client authenticates as at the token endpoint (§3.1: "the client MUST authenticate" when confidential);
 *   a public client sends its client_id alone. It must be registered for the device_code grant.
 * - `scope` is read as the authorization endpoint reads it (request/scope.ts), offline_access included, and so is
 *   `resource` (RFC 8707 §2.1, request/resource.ts): the APIs named become the grant's once the person allows.
 * - Only the hash of the device_code and the keyed hash of the user_code are stored.
 */
import type { FastifyInstance } from 'fastify';
import type { Config } from '../../config.js';
import { generateTimeOrderedSecret, hashTimeOrderedSecret, SECRET_PREFIX } from '../../crypto/secrets.js';
import { InvalidScope, UnauthorizedClient } from '../../errors.js';
import { noStore } from '../../http/security-headers.js';
import { DEVICE_CODE_GRANT_TYPE, type Client, type ResourceServer, type Storage } from '../../storage/storage.js';
import { readClientRequest } from '../request/client-authentication.js';
import { readParam } from '../request/params.js';
import { findRequestedResources, readResourceParams } from '../request/resource.js';
import { OFFLINE_ACCESS, parseAuthorizationScope } from '../request/scope.js';
import { createUserCodeHasher, generateUserCode, normalizeUserCode } from './user-code.js';

export const DEVICE_AUTHORIZATION_PATH = '/oauth2/device_authorization';
export const DEVICE_PAGE_PATH = '/device';

/** Draws of a user code before giving up: with 20^8 codes and a few thousand live ones, a second draw is already rare. */
const USER_CODE_DRAWS = 5;

export interface DeviceAuthorizationDeps {
  storage: Storage;
  config: Config;
}

/** The scope a device asks for, checked as the authorization endpoint checks it (authorize-request.ts). */
export function deviceScope(client: Client, raw: string | undefined, resources: readonly ResourceServer[] = []): string[] {
  const { scope } = parseAuthorizationScope(raw, resources.flatMap((resource) => resource.scope));
  if (scope.includes(OFFLINE_ACCESS) && !client.grantTypes.includes('refresh_token')) {
    throw new InvalidScope('offline_access asks for a refresh token, and this client is not registered for the refresh_token grant');
  }
  return scope;
}

export function registerDeviceAuthorizationRoute(app: FastifyInstance, { storage, config }: DeviceAuthorizationDeps): void {
  const hashUserCode = createUserCodeHasher(config.secret);

  app.post(DEVICE_AUTHORIZATION_PATH, async (request, reply) => {
    noStore(reply);
    const now = new Date();
    const { params, client } = await readClientRequest(request, storage, now);
    // RFC 8628 §3.2 answers errors as RFC 6749 §5.2 does: a client registered without the grant is unauthorized_client.
    if (!(client.grantTypes as readonly string[]).includes(DEVICE_CODE_GRANT_TYPE)) {
      throw new UnauthorizedClient(
        `This client is not registered for the device authorization grant (${DEVICE_CODE_GRANT_TYPE}); it may use ${client.grantTypes.join(', ')}`,
      );
    }
    // RFC 8707 §2.1 as at the authorization endpoint: registered APIs only, and their scopes known to this request.
    const resources = await findRequestedResources(storage, readResourceParams(params));
    const scope = deviceScope(client, readParam(params, 'scope', { maxLength: 1024 }), resources);

    const deviceCode = generateTimeOrderedSecret(SECRET_PREFIX.deviceCode, now.getTime());
    const expiresAt = new Date(now.getTime() + config.deviceCodeTtlSeconds * 1000);
    let userCode: string | undefined;
    for (let draw = 0; draw < USER_CODE_DRAWS && userCode === undefined; draw += 1) {
      const candidate = generateUserCode();
      const inserted = await storage.deviceAuthorizations.insert({
        deviceCodeHash: hashTimeOrderedSecret(deviceCode),
        userCodeHash: hashUserCode(normalizeUserCode(candidate)!),
        clientId: client.clientId,
        scope,
        intervalSeconds: config.devicePollIntervalSeconds,
        createdAt: now,
        expiresAt,
        resources: resources.map((resource) => resource.identifier),
      });
      if (inserted) userCode = candidate;
    }
    // Five collisions in a row mean the live codes fill the space, which no real deployment reaches.
    if (userCode === undefined) throw new Error('could not draw a free user code');

    const verificationUri = `${config.issuer}${DEVICE_PAGE_PATH}`;
    return reply.type('application/json; charset=utf-8').send({
      device_code: deviceCode,
      user_code: userCode,
      verification_uri: verificationUri,
      // §3.3.1: the code filled in, for a QR code or a link; the page still asks the person to compare it.
      verification_uri_complete: `${verificationUri}?user_code=${encodeURIComponent(userCode)}`,
      expires_in: config.deviceCodeTtlSeconds,
      interval: config.devicePollIntervalSeconds,
    });
  });
}
