/**
 * The browser session: a 256-bit random id in an HttpOnly cookie, stored only as its SHA-256 hash
 * (Lucia's pattern), so that a database leak gives no usable sessions.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../config.js';
import { generateSecret, hashSecret, SECRET_PREFIX } from '../crypto/secrets.js';
import type { BrowserSession, Storage, User } from '../storage/storage.js';

export function sessionCookieName(config: Config): string {
  // The __Host- prefix pins the cookie to this origin, https and path / (RFC 6265bis §4.1.3.2).
  return config.issuer.startsWith('https:') ? '__Host-latch_session' : 'latch_session';
}

export interface CurrentSession {
  session: BrowserSession;
  user: User;
}

export async function startBrowserSession(
  storage: Storage,
  config: Config,
  request: FastifyRequest,
  reply: FastifyReply,
  user: User,
  now = new Date(),
): Promise<BrowserSession> {
  const sessionId = generateSecret(SECRET_PREFIX.browserSession);
  const session: BrowserSession = {
    sessionHash: hashSecret(sessionId),
    userId: user.id,
    authTime: now,
    createdAt: now,
    lastSeenAt: now,
    expiresAt: new Date(now.getTime() + config.sessionTtlSeconds * 1000),
    userAgent: (request.headers['user-agent'] ?? '').slice(0, 300) || null,
    ipAddress: request.ip,
  };
  await storage.browserSessions.insert(session);
  reply.setCookie(sessionCookieName(config), sessionId, {
    httpOnly: true,
    // Lax: the cookie rides along on the top-level GET from the client's site to /oauth2/authorize,
    // never on cross-site POSTs.
    sameSite: 'lax',
    secure: config.issuer.startsWith('https:'),
    path: '/',
    maxAge: config.sessionTtlSeconds,
  });
  return session;
}

export async function readBrowserSession(storage: Storage, config: Config, request: FastifyRequest, now = new Date()): Promise<CurrentSession | null> {
  const sessionId = request.cookies[sessionCookieName(config)];
  if (!sessionId) return null;
  const session = await storage.browserSessions.findActive(hashSecret(sessionId), now);
  if (!session) return null;
  const user = await storage.users.findById(session.userId);
  return user ? { session, user } : null;
}

export async function endBrowserSession(storage: Storage, config: Config, request: FastifyRequest, reply: FastifyReply): Promise<void> {
  const sessionId = request.cookies[sessionCookieName(config)];
  if (sessionId) await storage.browserSessions.delete(hashSecret(sessionId));
  reply.clearCookie(sessionCookieName(config), { path: '/', secure: config.issuer.startsWith('https:'), httpOnly: true, sameSite: 'lax' });
}
