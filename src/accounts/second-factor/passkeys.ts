/**
 * Passkeys (WebAuthn Level 3) with @simplewebauthn/server: the ceremonies' options and checks.
 *
 * - The relying-party id is the host of LATCH_ISSUER and the only origin accepted is the issuer's origin
 *   (WebAuthn §5.1.3, §7.1 step 9-10): a passkey made for Latch works nowhere else. WebAuthn refuses an IP
 *   address as RP id, so passkeys are tested on http://localhost:PORT (a secure context).
 * - Discoverable credentials with user verification required (residentKey and userVerification `required`):
 *   a passkey alone signs in, as a possession and an inherence/knowledge factor together.
 * - The user handle is 32 bytes derived from the account id under a key from LATCH_SECRET: stable (an
 *   authenticator replaces its own passkey for the account instead of adding a second), not the email.
 * - Attestation `none`: Latch does not restrict authenticator models.
 * - Challenges are 32 random bytes (the library's), kept sealed in a 5-minute cookie bound to the ceremony, and
 *   single-use on the server: a challenge is recorded as tried (its hash, in the database, so in every process)
 *   before its answer is checked, and refused when already tried (WebAuthn Level 2 §13.4.3). The cookie alone could
 *   be sent again with a captured answer while it lives, and a synced passkey's counter (0) would not tell.
 * - Counter: the library refuses a counter that did not grow when either is above zero (a cloned
 *   authenticator); synced passkeys report 0 forever and are accepted.
 */
import { createHmac } from 'node:crypto';
import { hashSecret } from '../../crypto/secrets.js';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AuthenticationResponseJSON, RegistrationResponseJSON } from '@simplewebauthn/server';
import type { Config } from '../../config.js';
import type { Passkey, User, WebauthnChallengeRepository } from '../../storage/storage.js';
import type { SecondFactorKeys } from './second-factor-keys.js';
import { openState, sealState } from './sealed-state.js';

const CEREMONY_TTL_SECONDS = 300;

/**
 * The library, loaded at the first passkey ceremony rather than at start: with its CBOR, ASN.1 and attestation
 * modules it is the largest of Latch's dependencies to load, about a quarter of a second of CPU at every start of
 * `latch serve` (and of each of its workers), for ceremonies that come seldom.
 */
let library: Promise<typeof import('@simplewebauthn/server')> | undefined;
const webauthn = () => (library ??= import('@simplewebauthn/server'));
export type Ceremony = 'register' | 'sign-in' | 'second-factor';

export function relyingParty(config: Config): { rpID: string; origin: string } {
  const issuer = new URL(config.issuer);
  return { rpID: issuer.hostname, origin: issuer.origin };
}

function ceremonyCookie(config: Config): string {
  return config.secureCookies ? '__Host-latch_webauthn' : 'latch_webauthn';
}

export function userHandle(keys: SecondFactorKeys, userId: number): Uint8Array {
  return new Uint8Array(createHmac('sha256', keys.webauthnUserHandles).update(`user:${userId}`).digest());
}

function rememberChallenge(config: Config, keys: SecondFactorKeys, reply: FastifyReply, ceremony: Ceremony, challenge: string, userId: number | null, now: Date): void {
  const sealed = sealState(keys.pendingState, `webauthn ${ceremony}`, { c: challenge, u: userId }, new Date(now.getTime() + CEREMONY_TTL_SECONDS * 1000));
  reply.setCookie(ceremonyCookie(config), sealed, { httpOnly: true, sameSite: 'strict', secure: config.secureCookies, path: '/', maxAge: CEREMONY_TTL_SECONDS });
}

/**
 * The challenge of this browser's ceremony (and for whom it was made), spent: the cookie is cleared, and the
 * challenge is recorded as used on the server, until the cookie would have expired. Null when there is none, it
 * expired, or it was used already (a captured cookie sent again with a captured answer): each challenge is tried
 * once, whatever the outcome (WebAuthn Level 2 §13.4.3).
 */
async function takeChallenge(
  config: Config,
  keys: SecondFactorKeys,
  challenges: WebauthnChallengeRepository,
  request: FastifyRequest,
  reply: FastifyReply,
  ceremony: Ceremony,
  now: Date,
): Promise<{ challenge: string; userId: number | null } | null> {
  const state = openState(keys.pendingState, `webauthn ${ceremony}`, request.cookies[ceremonyCookie(config)], now);
  reply.clearCookie(ceremonyCookie(config), { path: '/', secure: config.secureCookies, httpOnly: true, sameSite: 'strict' });
  if (!state || typeof state.c !== 'string' || typeof state.exp !== 'number') return null;
  // Only its hash is stored: the record names a challenge without holding it.
  if (!(await challenges.markUsed(hashSecret(state.c), new Date(state.exp)))) return null;
  return { challenge: state.c, userId: typeof state.u === 'number' ? state.u : null };
}

export async function registrationOptions(config: Config, keys: SecondFactorKeys, reply: FastifyReply, user: User, existing: readonly Passkey[], now: Date) {
  const { rpID } = relyingParty(config);
  const options = await (await webauthn()).generateRegistrationOptions({
    // What the browser's passkey dialog and password manager call this site: the operator's product name.
    rpName: config.brand.name,
    rpID,
    userName: user.email,
    userDisplayName: user.name,
    userID: userHandle(keys, user.id) as Uint8Array<ArrayBuffer>,
    attestationType: 'none',
    // The same authenticator is not registered twice (WebAuthn §5.4.3 excludeCredentials).
    excludeCredentials: existing.map((passkey) => ({ id: passkey.credentialId, transports: passkey.transports })),
    authenticatorSelection: { residentKey: 'required', userVerification: 'required' },
  });
  rememberChallenge(config, keys, reply, 'register', options.challenge, user.id, now);
  return options;
}

export class PasskeyRefused extends Error {}

/** Checks a new passkey for `user`; returns it ready to store (named `name`), or throws PasskeyRefused. */
export async function verifyRegistration(
  config: Config,
  keys: SecondFactorKeys,
  challenges: WebauthnChallengeRepository,
  request: FastifyRequest,
  reply: FastifyReply,
  user: User,
  response: unknown,
  name: string,
  now: Date,
): Promise<Passkey> {
  const remembered = await takeChallenge(config, keys, challenges, request, reply, 'register', now);
  if (!remembered || remembered.userId !== user.id) throw new PasskeyRefused('This passkey request has expired. Try again.');
  const { rpID, origin } = relyingParty(config);
  let verification;
  try {
    verification = await (await webauthn()).verifyRegistrationResponse({
      response: response as RegistrationResponseJSON,
      expectedChallenge: remembered.challenge,
      expectedOrigin: origin,
      expectedRPID: rpID,
      requireUserVerification: true,
    });
  } catch (error) {
    throw new PasskeyRefused('The passkey could not be checked.', { cause: error });
  }
  if (!verification.verified) throw new PasskeyRefused('The passkey could not be checked.');
  const info = verification.registrationInfo;
  return {
    credentialId: info.credential.id,
    userId: user.id,
    publicKey: info.credential.publicKey,
    counter: info.credential.counter,
    transports: info.credential.transports ?? [],
    aaguid: info.aaguid,
    backupEligible: info.credentialDeviceType === 'multiDevice',
    backedUp: info.credentialBackedUp,
    name,
    createdAt: now,
    lastUsedAt: null,
  };
}

/** Options for a sign-in: any discoverable passkey (`forUser` null), or one of that account's. */
export async function authenticationOptions(config: Config, keys: SecondFactorKeys, reply: FastifyReply, ceremony: 'sign-in' | 'second-factor', forUser: { id: number; passkeys: readonly Passkey[] } | null, now: Date) {
  const { rpID } = relyingParty(config);
  const options = await (await webauthn()).generateAuthenticationOptions({
    rpID,
    userVerification: 'required',
    allowCredentials: forUser ? forUser.passkeys.map((passkey) => ({ id: passkey.credentialId, transports: passkey.transports })) : [],
  });
  rememberChallenge(config, keys, reply, ceremony, options.challenge, forUser?.id ?? null, now);
  return options;
}

/**
 * Checks an assertion against the stored passkey it names (`find`); returns the passkey and its new counter
 * and backup state, or throws PasskeyRefused. For a second factor the passkey must be the pending user's.
 */
export async function verifyAuthentication(
  config: Config,
  keys: SecondFactorKeys,
  challenges: WebauthnChallengeRepository,
  request: FastifyRequest,
  reply: FastifyReply,
  ceremony: 'sign-in' | 'second-factor',
  response: unknown,
  find: (credentialId: string) => Promise<Passkey | null>,
  now: Date,
): Promise<{ passkey: Passkey; counter: number; backedUp: boolean }> {
  const remembered = await takeChallenge(config, keys, challenges, request, reply, ceremony, now);
  if (!remembered) throw new PasskeyRefused('This passkey request has expired. Try again.');
  const credentialId = (response as { id?: unknown } | null)?.id;
  const passkey = typeof credentialId === 'string' && credentialId.length <= 1400 ? await find(credentialId) : null;
  if (!passkey || (remembered.userId !== null && passkey.userId !== remembered.userId)) throw new PasskeyRefused('This passkey is not registered with Latch.');
  const { rpID, origin } = relyingParty(config);
  let verification;
  try {
    verification = await (await webauthn()).verifyAuthenticationResponse({
      response: response as AuthenticationResponseJSON,
      expectedChallenge: remembered.challenge,
      expectedOrigin: origin,
      expectedRPID: rpID,
      credential: { id: passkey.credentialId, publicKey: passkey.publicKey as Uint8Array<ArrayBuffer>, counter: passkey.counter, transports: passkey.transports as never },
      requireUserVerification: true,
    });
  } catch (error) {
    throw new PasskeyRefused('The passkey could not be checked.', { cause: error });
  }
  if (!verification.verified) throw new PasskeyRefused('The passkey could not be checked.');
  return { passkey, counter: verification.authenticationInfo.newCounter, backedUp: verification.authenticationInfo.credentialBackedUp };
}
