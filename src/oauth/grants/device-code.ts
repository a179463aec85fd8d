/**
 * The device_code grant (RFC 8628 §3.4–3.5; docs/protocol-decisions.md "Device authorization grant"): the device
 * polls with its device_code until the person has decided at /device.
 *
 * - pending: authorization_pending, or slow_down when it polled sooner than its interval (which then grows by 5 s
 *   for this and every later poll, §3.5); denied: access_denied; past expires_in: expired_token.
 * - approved: the /device page stored an authorization code whose hash is the device code's (device-page.ts), with
 *   the user, sign-in and scope, so the code grant redeems it: the same single-use update and the same tokens
 *   (access token, id_token with openid, refresh token with offline_access), with nothing duplicated here. A
 *   device code redeemed twice is a code used twice: invalid_grant, and the tokens issued from it are revoked
 *   (RFC 6749 §4.1.2's reasoning: whoever presents it again may have stolen it).
 */
import { hashTimeOrderedSecret } from '../../crypto/secrets.js';
import { AuthorizationPending, DeviceAccessDenied, ExpiredToken, InvalidGrant, SlowDown } from '../../errors.js';
import { requireParam } from '../request/params.js';
import { authorizationCodeGrant } from './authorization-code.js';
import type { Grant, GrantRequest, IssuedGrant } from './index.js';
import { deviceCodeForResource } from './resource-target.js';

/** RFC 8628 §3.5: how much longer the interval gets with each slow_down. */
export const SLOW_DOWN_SECONDS = 5;
/**
 * How much earlier than the interval a poll may come and still count as in time: a device that waits exactly
 * `interval` seconds after its last answer arrives a little early whenever that answer was slow to reach it.
 */
export const POLL_TOLERANCE_MS = 250;

// RFC 8707 §2.2: with `resource`, one of the APIs the device's request named (resource-target.ts); without, as always.
const redeemForOneResource = deviceCodeForResource(redeemDeviceCode);
export const deviceCodeGrant: Grant = {
  issuedEvent: 'token.device_code_exchanged',
  issue: (request) => (request.params.resource === undefined ? redeemDeviceCode(request) : redeemForOneResource(request)),
};

async function redeemDeviceCode(request: GrantRequest): Promise<IssuedGrant> {
  const { storage, client, params, now } = request;
  const deviceCode = requireParam(params, 'device_code', { maxLength: 512 });
  const deviceCodeHash = hashTimeOrderedSecret(deviceCode);
  const authorization = await storage.deviceAuthorizations.findByDeviceCodeHash(deviceCodeHash);
  if (!authorization) throw new InvalidGrant('The device_code is invalid: it was never issued, or it expired and was removed');
  if (authorization.clientId !== client.clientId) throw new InvalidGrant('The device_code was issued to another client');
  if (authorization.expiresAt <= now) {
    throw new ExpiredToken('The device_code has expired before it was approved and redeemed; start again with a new device authorization request');
  }
  if (authorization.status === 'denied') throw new DeviceAccessDenied('The user denied the request at the verification page');
  // Only the device code's own parameters go to the code grant: nothing else the device sent is a binding here.
  if (authorization.status === 'approved') return authorizationCodeGrant.issue({ ...request, params: { code: deviceCode } });

  const poll = await storage.deviceAuthorizations.poll(deviceCodeHash, now, { toleranceMs: POLL_TOLERANCE_MS, slowDownSeconds: SLOW_DOWN_SECONDS });
  if (poll === 'slow_down') {
    const interval = authorization.intervalSeconds + SLOW_DOWN_SECONDS;
    throw new SlowDown(`The device polled sooner than its interval of ${authorization.intervalSeconds} seconds; wait ${interval} seconds between requests from now on`);
  }
  // 'pending', or null: decided or expired a moment ago, which the next poll will hear.
  throw new AuthorizationPending(`The user has not approved or denied the request yet; poll again in ${authorization.intervalSeconds} seconds`);
}
