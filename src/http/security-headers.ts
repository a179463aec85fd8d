/**
 * Response headers that carry security policy. Helmet (app.ts) sets the defaults on every response; these
 * helpers add what depends on the route: no-store for anything carrying tokens (RFC 6749 §5.1), and the
 * page Content-Security-Policy with the form targets a page may lead to.
 */
import type { FastifyReply } from 'fastify';

export function noStore(reply: FastifyReply): FastifyReply {
  return reply.header('cache-control', 'no-store').header('pragma', 'no-cache');
}

/**
 * The pages' CSP. `form-action` must also allow where a form's redirect chain ends (Chrome applies it to
 * redirects after a form post): the sign-in and consent forms end at the client's redirect_uri.
 */
export function pageContentSecurityPolicy(extraFormActions: readonly string[] = []): string {
  return [
    "default-src 'none'",
    "style-src 'self'",
    "img-src 'self' https: data:",
    "script-src 'self'",
    `form-action 'self'${extraFormActions.map((source) => ` ${source}`).join('')}`,
    "frame-ancestors 'none'",
    "base-uri 'none'",
  ].join('; ');
}

/** The CSP source for a redirect URI's origin (or its private-use scheme, for native apps). */
export function formActionSourceFor(redirectUri: string): string {
  const url = new URL(redirectUri);
  return url.protocol === 'http:' || url.protocol === 'https:' ? url.origin : url.protocol;
}
