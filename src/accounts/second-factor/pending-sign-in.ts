/**
 * A sign-in between its two steps: the password was right, the second factor is still to come, and no session
 * exists yet. Kept in a short-lived sealed cookie (sealed-state.ts), scoped to /login: the user, where to go
 * next, and a fingerprint of the password hash (a password changed meanwhile ends it). Someone holding it has
 * already given the password, and still needs the factor; failed factors are throttled like passwords.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../../config.js';
import { hashSecret } from '../../crypto/secrets.js';
import type { StepUpKind } from '../../session/authentication-methods.js';
import type { User } from '../../storage/storage.js';
import type { SecondFactorKeys } from './second-factor-keys.js';
import { openState, sealState } from './sealed-state.js';

const PURPOSE = 'pending sign-in';
const TTL_SECONDS = 300;
const COOKIE_PATH = '/login';

export interface PendingSignIn {
  userId: number;
  returnTo: string;
  /** RFC 8176 methods of the first step (a password; for a step-up, the session's). */
  amr: string[];
  /**
   * A step-up asked for by an app (acr_values, a client that requires a second factor): which second steps can
   * reach the level it wants. Absent for a plain sign-in, where any enrolled factor will do.
   */
  stepUp?: StepUpKind;
}

function cookieName(config: Config): string {
  // No __Host- prefix: that needs path=/ (RFC 6265bis §4.1.3.2); __Secure- still requires https.
  return config.secureCookies ? '__Secure-latch_two_step' : 'latch_two_step';
}

const passwordFingerprint = (user: User) => hashSecret(user.passwordHash).slice(0, 22);

export function startPendingSignIn(
  config: Config,
  keys: SecondFactorKeys,
  reply: FastifyReply,
  user: User,
  returnTo: string,
  now: Date,
  first: Pick<PendingSignIn, 'amr' | 'stepUp'> = { amr: ['pwd'] },
): void {
  const state = { u: user.id, r: returnTo, p: passwordFingerprint(user), a: first.amr, ...(first.stepUp && { s: first.stepUp }) };
  const sealed = sealState(keys.pendingState, PURPOSE, state, new Date(now.getTime() + TTL_SECONDS * 1000));
  reply.setCookie(cookieName(config), sealed, { httpOnly: true, sameSite: 'lax', secure: config.secureCookies, path: COOKIE_PATH, maxAge: TTL_SECONDS });
}

/** The pending sign-in of this browser with its user, or null when there is none (or it expired, or the password changed). */
export async function readPendingSignIn(
  config: Config,
  keys: SecondFactorKeys,
  request: FastifyRequest,
  findUser: (id: number) => Promise<User | null>,
  now: Date,
): Promise<(PendingSignIn & { user: User }) | null> {
  const state = openState(keys.pendingState, PURPOSE, request.cookies[cookieName(config)], now);
  if (!state || typeof state.u !== 'number' || typeof state.r !== 'string') return null;
  const user = await findUser(state.u);
  if (!user || state.p !== passwordFingerprint(user)) return null;
  const amr = Array.isArray(state.a) && state.a.every((method) => typeof method === 'string') ? (state.a as string[]) : ['pwd'];
  const stepUp = state.s === 'any' || state.s === 'passkey' || state.s === 'device-bound passkey' ? state.s : undefined;
  return { userId: user.id, returnTo: state.r, user, amr, ...(stepUp && { stepUp }) };
}

export function endPendingSignIn(config: Config, reply: FastifyReply): void {
  reply.clearCookie(cookieName(config), { path: COOKIE_PATH, secure: config.secureCookies, httpOnly: true, sameSite: 'lax' });
}
