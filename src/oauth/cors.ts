/**
 * CORS for single-page apps (issue 18; RFC 9700 §2.6; docs/protocol-decisions.md "Public clients and
 * services"). The origins allowed are derived from the registered redirect URIs of public clients, so there is
 * no second list to forget:
 * - token and revocation (`client` rule): the origin must be one of the public client named in the request.
 *   The client is known only once the body is read, so the headers are added when the response is sent
 *   (onSend), errors included, so that the app can read a JSON error; a confidential client never gets them
 *   (its secret must not be in a browser);
 * - userinfo (`any public client` rule): an origin of any public client. The bearer token is the credential and
 *   browsers send no cookies here, so the rule only keeps other sites from reading responses at all;
 * - preflight (OPTIONS) carries no body, so it is answered for an origin of any public client; the actual
 *   request then applies the rule above.
 * Never `Access-Control-Allow-Credentials` (no cookies on these endpoints), never `Origin: null`, never on the
 * authorization endpoint or the pages (RFC 9700 §2.6: the authorization endpoint MUST NOT support CORS).
 * Discovery and JWKS are public metadata and send `*` (discovery.ts publicJson).
 *
 * A small hook rather than @fastify/cors: that plugin decides from the request before its body is read, and
 * the rule here needs the client the body names.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Client, Storage } from '../storage/storage.js';

export type CorsRule = 'client' | 'any public client';

const PREFLIGHT_MAX_AGE_SECONDS = 600;
const ALLOWED_HEADERS = 'authorization, content-type';

/** The origin of an http(s) redirect URI, or null (custom schemes of mobile apps have none a browser sends). */
export function originOf(uri: string): string | null {
  try {
    const url = new URL(uri);
    return url.protocol === 'https:' || url.protocol === 'http:' ? url.origin : null;
  } catch {
    return null;
  }
}

/** Whether `origin` is the origin of one of a public client's redirect URIs (exact comparison). */
export function isPublicClientOrigin(client: Client, origin: string): boolean {
  return client.tokenEndpointAuthMethod === 'none' && client.redirectUris.some((uri) => originOf(uri) === origin);
}

/** The request's Origin, unless absent or opaque ("null": sandboxed frames, file: pages), which is never allowed. */
function requestOrigin(request: FastifyRequest): string | null {
  const origin = request.headers.origin;
  return typeof origin === 'string' && origin !== '' && origin !== 'null' ? origin : null;
}

// One read of every client per request that sends an Origin header: fine for the registries Latch expects;
// a per-origin index is the next step if that changes.
async function anyPublicClientHas(storage: Storage, origin: string): Promise<boolean> {
  return (await storage.clients.list()).some((client) => isPublicClientOrigin(client, origin));
}

function allow(reply: FastifyReply, origin: string): void {
  reply.header('access-control-allow-origin', origin).header('access-control-expose-headers', 'WWW-Authenticate');
}

/**
 * Adds CORS to the routes of `scope` listed in `routes` (path → rule; `methods` the ones the route serves), and
 * answers their preflight. Call before the routes are registered.
 */
export function registerClientCors(scope: FastifyInstance, storage: Storage, routes: Record<string, { rule: CorsRule; methods: string }>): void {
  scope.addHook('onSend', async (request, reply) => {
    const route = routes[request.routeOptions.url ?? ''];
    const origin = requestOrigin(request);
    if (!route || request.method === 'OPTIONS' || request.headers.origin === undefined) return;
    reply.header('vary', 'Origin');
    if (origin === null) return;
    const allowed =
      route.rule === 'client'
        ? request.latchClient !== undefined && isPublicClientOrigin(request.latchClient, origin)
        : await anyPublicClientHas(storage, origin);
    if (allowed) allow(reply, origin);
  });
  for (const [path, { methods }] of Object.entries(routes)) {
    scope.options(path, async (request, reply) => {
      const origin = requestOrigin(request);
      reply.header('vary', 'Origin');
      if (origin !== null && (await anyPublicClientHas(storage, origin))) {
        allow(reply, origin);
        reply
          .header('access-control-allow-methods', methods)
          .header('access-control-allow-headers', ALLOWED_HEADERS)
          .header('access-control-max-age', String(PREFLIGHT_MAX_AGE_SECONDS));
      }
      // Without the allow headers the browser stops here and never sends the request.
      return reply.code(204).send();
    });
  }
}
