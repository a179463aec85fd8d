/**
 * Recovery codes made where the page cannot show them at once: the first passkey is added by the page's script
 * (a JSON answer, then a redirect), so the codes ride to the next page in a short-lived sealed cookie
 * (AES-256-GCM under LATCH_SECRET, sealed-state.ts), scoped to /account/two-step, shown once and cleared: a
 * reload finds nothing. Latch itself keeps only their keyed hashes.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../../config.js';
import type { SecondFactorKeys } from './second-factor-keys.js';
import { openState, sealState } from './sealed-state.js';

const PURPOSE = 'new recovery codes';
const TTL_SECONDS = 300;
const COOKIE_PATH = '/account/two-step';
/** Where the codes are shown. */
export const NEW_RECOVERY_CODES_PATH = '/account/two-step/new-recovery-codes';

const cookieName = (config: Config) => (config.secureCookies ? '__Secure-latch_new_codes' : 'latch_new_codes');

export function handOverRecoveryCodes(config: Config, keys: SecondFactorKeys, reply: FastifyReply, userId: number, codes: readonly string[], now: Date): void {
  const sealed = sealState(keys.pendingState, `${PURPOSE}:${userId}`, { c: codes }, new Date(now.getTime() + TTL_SECONDS * 1000));
  reply.setCookie(cookieName(config), sealed, { httpOnly: true, sameSite: 'strict', secure: config.secureCookies, path: COOKIE_PATH, maxAge: TTL_SECONDS });
}

/** The codes handed over to this browser for this user, once: the cookie is cleared whatever it held. */
export function takeRecoveryCodes(config: Config, keys: SecondFactorKeys, request: FastifyRequest, reply: FastifyReply, userId: number, now: Date): string[] | null {
  const state = openState(keys.pendingState, `${PURPOSE}:${userId}`, request.cookies[cookieName(config)], now);
  reply.clearCookie(cookieName(config), { path: COOKIE_PATH, secure: config.secureCookies, httpOnly: true, sameSite: 'strict' });
  const codes = state?.c;
  return Array.isArray(codes) && codes.every((code) => typeof code === 'string') ? (codes as string[]) : null;
}
