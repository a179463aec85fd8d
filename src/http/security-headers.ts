/**
 * Response headers that carry security policy. Helmet's headers (app.ts) go on every response; these
 * helpers add what depends on the route: no-store for anything carrying tokens (RFC 6749 §5.1), and the
 * page Content-Security-Policy with the form targets a page may lead to.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FastifyReply } from 'fastify';
import helmet, { type HelmetOptions } from 'helmet';

/**
 * The headers helmet sets for `options`, asked of helmet once. @fastify/helmet runs helmet(options) on every
 * request, building each middleware and parsing the CSP directives again, a measurable share of a userinfo request
 * (BENCHMARKS.md, "Security headers computed once"). With options that hold no per-request values (no nonces) the
 * answer never changes, so Latch takes it once at start and copies it onto each response.
 */
export function computeHelmetHeaders(options: HelmetOptions): Readonly<Record<string, string>> {
  const headers: Record<string, string> = {};
  const response = {
    setHeader(name: string, value: number | string | readonly string[]) {
      headers[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : String(value);
      return response;
    },
    removeHeader(name: string) {
      delete headers[name.toLowerCase()];
    },
    getHeader(name: string) {
      return headers[name.toLowerCase()];
    },
  };
  helmet(options)({} as IncomingMessage, response as unknown as ServerResponse, (error?: unknown) => {
    if (error) throw error;
  });
  return Object.freeze(headers);
}

/**
 * Helmet headers that only mean something for a document a browser renders (an HTML page, or a redirect that
 * leads to one): cross-origin isolation of a window, DNS prefetching of its links, old IE and Flash/PDF
 * behaviours. JSON answers (token, userinfo, discovery, JWKS, health) go without them: they cost ~200 bytes and
 * a header check each on the busiest responses and protect nothing there. What does apply to any response
 * stays on all of them: CSP, X-Frame-Options, nosniff, Referrer-Policy, CORP, and HSTS on an https issuer.
 */
const DOCUMENT_ONLY_HEADERS: ReadonlySet<string> = new Set([
  'cross-origin-opener-policy',
  'origin-agent-cluster',
  'x-dns-prefetch-control',
  'x-download-options',
  'x-permitted-cross-domain-policies',
  'x-xss-protection',
]);

/** Splits helmet's headers into those for every response and those only pages need besides. */
export function splitDocumentOnlyHeaders(headers: Readonly<Record<string, string>>): {
  everyResponse: Readonly<Record<string, string>>;
  documentsOnly: Readonly<Record<string, string>>;
} {
  const everyResponse: Record<string, string> = {};
  const documentsOnly: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (DOCUMENT_ONLY_HEADERS.has(name)) documentsOnly[name] = value;
    else everyResponse[name] = value;
  }
  return { everyResponse: Object.freeze(everyResponse), documentsOnly: Object.freeze(documentsOnly) };
}

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
    // The passkey script (/assets/passkeys.js) fetches its ceremony options from Latch itself.
    "connect-src 'self'",
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
