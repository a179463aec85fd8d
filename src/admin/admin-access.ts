/**
 * Who may open the admin console: a signed-in account with the admin role (users.is_admin; `latch user create
 * --admin`, `latch admin grant`). Nobody signed in: the sign-in redirect, back here afterwards. Signed in without
 * the role: 404, as for a page that does not exist (nothing about what is behind it).
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../config.js';
import { PageError } from '../errors.js';
import type { CurrentSession } from '../session/browser-session.js';
import { requireBrowserSession } from '../session/require-session.js';
import type { Storage } from '../storage/storage.js';

export const NOT_AN_ADMINISTRATOR = 'There is no page here for your account. The admin console is for administrators of this service.';

/** The administrator's session; null after sending the sign-in redirect (the caller then returns the reply). */
export async function requireAdministrator(storage: Storage, config: Config, request: FastifyRequest, reply: FastifyReply): Promise<CurrentSession | null> {
  // After a form posted here, the sign-in comes back to the page the form was on, not to a POST-only address.
  const returnTo = request.method === 'GET' ? request.url : request.url.replace(/\/[a-z-]+$/, '');
  const current = await requireBrowserSession(storage, config, request, reply, returnTo);
  if (!current) return null;
  // 404 rather than 403: to anyone but an administrator, the console's pages are not there.
  if (!current.user.isAdmin) throw new PageError(404, NOT_AN_ADMINISTRATOR);
  return current;
}
