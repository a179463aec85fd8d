/** Pages for signed-in people: the current session, or a redirect to sign-in that comes back here. */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../config.js';
import type { Storage } from '../storage/storage.js';
import { readBrowserSession, type CurrentSession } from './browser-session.js';
import { safeReturnTo } from './return-to.js';

/** Returns null after sending the redirect; the caller then returns the reply. */
export async function requireBrowserSession(
  storage: Storage,
  config: Config,
  request: FastifyRequest,
  reply: FastifyReply,
  returnTo = request.method === 'GET' ? request.url : '/account',
): Promise<CurrentSession | null> {
  const current = await readBrowserSession(storage, config, request);
  if (current) return current;
  reply.redirect(`/login?return_to=${encodeURIComponent(safeReturnTo(returnTo))}`, 303);
  return null;
}
