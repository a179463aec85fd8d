/**
 * Whether the browser is signed in, for the header of every page (issue 19 item 2): a page that does not read
 * the session itself (an error page, "Check your email") still shows "Account" to a signed-in person and "Sign
 * in" to anyone else. Looked up once per request, and only when the session cookie came with it.
 */
import type { FastifyRequest } from 'fastify';
import type { Config } from '../config.js';
import { hashSecret } from '../crypto/secrets.js';
import type { Storage } from '../storage/storage.js';
import { sessionCookieName } from './browser-session.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The signed-in account has the admin role: the header links to the admin console. */
    browserIsAdmin?: boolean;
  }
}

export async function noteSignInState(storage: Storage, config: Config, request: FastifyRequest): Promise<boolean> {
  if (request.browserSignedIn !== undefined) return request.browserSignedIn;
  const sessionId = request.cookies?.[sessionCookieName(config)];
  let signedIn = false;
  if (sessionId) {
    try {
      const session = await storage.browserSessions.findActive(hashSecret(sessionId), new Date());
      signedIn = session !== null;
      // A cached read (cached-storage.ts): the header's Admin link costs no query on most pages.
      request.browserIsAdmin = session !== null && (await storage.users.findById(session.userId))?.isAdmin === true;
    } catch {
      // The database is away (the page being drawn may be saying so): the header offers "Sign in", the safe default.
      signedIn = false;
    }
  }
  request.browserSignedIn = signedIn;
  return signedIn;
}

/** Static files served in the pages' scope: no page frame, so no session read for them. */
const STATIC_FILE = /^\/(?:assets|avatars)\/|^\/favicon\./;

/** The pages' preHandler: notes the sign-in state for every page (not for stylesheets, scripts, icons or avatars). */
export function signInStateHook(storage: Storage, config: Config) {
  return async (request: FastifyRequest): Promise<void> => {
    if (STATIC_FILE.test(request.url)) return;
    await noteSignInState(storage, config, request);
  };
}
