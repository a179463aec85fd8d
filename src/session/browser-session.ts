/**
 * The browser session: a 256-bit random id in an HttpOnly cookie, stored only as its SHA-256 hash
 * (Lucia's pattern), so that a database leak gives no usable sessions. Each session also has a public id, its
 * `sid` (OIDC Back-Channel Logout 1.0 §2.3), random and unrelated to the cookie: id_tokens carry it, and
 * logout tells apps which session ended by it.
 *
 * Sessions end only through session-endings.ts (or by expiry).
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../config.js';
import type { FastifyBaseLogger } from 'fastify';
import { generateIdentifier, generateSecret, hashSecret, SECRET_PREFIX } from '../crypto/secrets.js';
import type { PageError } from '../errors.js';
import { TranslatedPageError } from '../http/page-locale.js';
import type { BrowserSession, Storage, User } from '../storage/storage.js';
import { endBrowserSessions, type SessionEndingDeps } from './session-endings.js';

/** What a person whose account an administrator disabled reads when they try to sign in. */
export const DISABLED_ACCOUNT_HEADING = 'This account is disabled';
export const DISABLED_ACCOUNT_MESSAGE = 'This account has been disabled by an administrator, so it cannot sign in. Ask the people who run this service to enable it again.';

/** The error page for a disabled account, in the page's language (i18n "error.disabled"; English as above). */
export function disabledAccountError(): PageError {
  return new TranslatedPageError(403, { key: 'error.disabled' }, { key: 'error.disabled.heading' });
}

export function sessionCookieName(config: Config): string {
  // The __Host- prefix pins the cookie to this origin, https and path / (RFC 6265bis §4.1.3.2).
  return config.secureCookies ? '__Host-latch_session' : 'latch_session';
}

export interface CurrentSession {
  session: BrowserSession;
  user: User;
}

function setSessionCookie(config: Config, reply: FastifyReply, sessionId: string): void {
  reply.setCookie(sessionCookieName(config), sessionId, {
    httpOnly: true,
    // Lax: the cookie rides along on the top-level GET from the client's site to /oauth2/authorize,
    // never on cross-site POSTs.
    sameSite: 'lax',
    secure: config.secureCookies,
    path: '/',
    maxAge: config.sessionTtlSeconds,
  });
}

/**
 * A sign-in: a fresh session id in the cookie every time (no session fixation). When the browser was already
 * signed in as the same person (a sign-in again for prompt=login or max_age, or a step-up to a second factor),
 * the session keeps its sid and the apps signed in to in it, with the new cookie, auth_time and methods: apps
 * that hold id_tokens with that sid are not signed out by it. A session of another person ends (and is announced, session-endings.ts).
 */
export async function startBrowserSession(
  deps: SessionEndingDeps,
  config: Config,
  request: FastifyRequest,
  reply: FastifyReply,
  user: User,
  /** RFC 8176 methods of this sign-in (authentication-methods.ts). */
  amr: readonly string[],
  now = new Date(),
): Promise<void> {
  const { storage } = deps;
  // Every way of signing in ends here: a disabled account gets no session, whichever factor it proved.
  if (user.disabledAt) throw disabledAccountError();
  const sessionId = generateSecret(SECRET_PREFIX.browserSession);
  const fresh = {
    sessionHash: hashSecret(sessionId),
    authTime: now,
    lastSeenAt: now,
    expiresAt: new Date(now.getTime() + config.sessionTtlSeconds * 1000),
    userAgent: (request.headers['user-agent'] ?? '').slice(0, 300) || null,
    ipAddress: request.ip,
    amr: [...amr],
  };
  const previous = await readBrowserSession(storage, config, request, now);
  let renewed = false;
  if (previous?.user.id === user.id) renewed = await storage.browserSessions.renew(previous.session.sessionHash, fresh);
  else if (previous) await endBrowserSessions(deps, request.log, { userId: previous.user.id, which: { sessionHash: previous.session.sessionHash }, reason: 'signed_in_as_another_user' });
  if (!renewed) await storage.browserSessions.insert({ ...fresh, sid: generateIdentifier(), userId: user.id, createdAt: now });
  setSessionCookie(config, reply, sessionId);
}

export async function readBrowserSession(storage: Storage, config: Config, request: FastifyRequest, now = new Date()): Promise<CurrentSession | null> {
  const sessionId = request.cookies[sessionCookieName(config)];
  if (!sessionId) return null;
  const session = await storage.browserSessions.findActive(hashSecret(sessionId), now);
  if (!session) return null;
  const user = await storage.users.findById(session.userId);
  // A disabled account's sessions were ended when it was disabled; this holds even for one that slipped past.
  return user && !user.disabledAt ? { session, user } : null;
}

export function clearSessionCookie(config: Config, reply: FastifyReply): void {
  reply.clearCookie(sessionCookieName(config), { path: '/', secure: config.secureCookies, httpOnly: true, sameSite: 'lax' });
}

/** Ends the session of this request, if any, and clears its cookie. Returns the session it ended, or null. */
export async function endCurrentBrowserSession(
  deps: SessionEndingDeps,
  config: Config,
  request: FastifyRequest,
  reply: FastifyReply,
  reason: 'signed_out' | 'session_ended_from_account' | 'rp_initiated_logout',
  log: FastifyBaseLogger = request.log,
): Promise<CurrentSession | null> {
  const current = await readBrowserSession(deps.storage, config, request);
  if (current) await endBrowserSessions(deps, log, { userId: current.user.id, which: { sessionHash: current.session.sessionHash }, reason });
  clearSessionCookie(config, reply);
  return current;
}
