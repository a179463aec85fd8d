/**
 * State the console keeps in the browser between a POST and the GET it redirects to (post/redirect/get): a new
 * client secret on its way to the one-time page, and a playground run (its state, nonce and PKCE verifier, then
 * what came back). Sealed with AES-256-GCM under a key derived from LATCH_SECRET for this use alone
 * (crypto/key-encryption.ts, HKDF info below), with the purpose, user and app as associated data, so that a value
 * can be neither read, changed, nor moved to another user, app or use. Each carries its expiry; the cookie is
 * httpOnly and scoped to the app's path in the console.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../config.js';
import { createKeyEncryption, type KeyEncryption } from '../crypto/key-encryption.js';

export type ConsoleStatePurpose = 'new client secret' | 'playground';

export interface ConsoleStateCookie {
  purpose: ConsoleStatePurpose;
  /** The cookie's name without the __Secure- prefix. */
  name: string;
  /** The path under the app's page that the cookie is sent to. */
  subPath: string;
  ttlSeconds: number;
  /** Lax where the cookie must come back on a navigation from Latch's authorize endpoint (the playground callback). */
  sameSite: 'strict' | 'lax';
}

export const NEW_SECRET_COOKIE: ConsoleStateCookie = { purpose: 'new client secret', name: 'latch_new_secret', subPath: '/new-secret', ttlSeconds: 300, sameSite: 'strict' };
export const PLAYGROUND_COOKIE: ConsoleStateCookie = { purpose: 'playground', name: 'latch_playground', subPath: '/playground', ttlSeconds: 900, sameSite: 'lax' };

export interface ConsoleState {
  seal(reply: FastifyReply, cookie: ConsoleStateCookie, owner: { userId: number; clientId: string }, value: Record<string, unknown>, now: Date): void;
  /** The value sealed for this user and app, or null (missing, changed, another owner or use, expired). */
  open(request: FastifyRequest, cookie: ConsoleStateCookie, owner: { userId: number; clientId: string }, now: Date): Record<string, unknown> | null;
  clear(reply: FastifyReply, cookie: ConsoleStateCookie, clientId: string): void;
}

export function createConsoleState(config: Config): ConsoleState {
  const encryption: KeyEncryption = createKeyEncryption(config.secret, 'latch developer console state v1');
  const cookieName = (cookie: ConsoleStateCookie) => (config.secureCookies ? `__Secure-${cookie.name}` : cookie.name);
  const options = (cookie: ConsoleStateCookie, clientId: string) => ({
    httpOnly: true,
    sameSite: cookie.sameSite,
    secure: config.secureCookies,
    path: `/developer/apps/${encodeURIComponent(clientId)}${cookie.subPath}`,
  });
  const associatedData = (cookie: ConsoleStateCookie, owner: { userId: number; clientId: string }) => `${cookie.purpose}:${owner.userId}:${owner.clientId}`;
  return {
    seal(reply, cookie, owner, value, now) {
      const sealed = encryption.encrypt(JSON.stringify({ ...value, exp: now.getTime() + cookie.ttlSeconds * 1000 }), associatedData(cookie, owner));
      reply.setCookie(cookieName(cookie), sealed, { ...options(cookie, owner.clientId), maxAge: cookie.ttlSeconds });
    },
    open(request, cookie, owner, now) {
      const sealed = request.cookies[cookieName(cookie)];
      if (!sealed) return null;
      try {
        const value = JSON.parse(encryption.decrypt(sealed, associatedData(cookie, owner))) as Record<string, unknown>;
        return typeof value.exp === 'number' && value.exp > now.getTime() ? value : null;
      } catch {
        return null;
      }
    },
    clear(reply, cookie, clientId) {
      reply.clearCookie(cookieName(cookie), options(cookie, clientId));
    },
  };
}
