/**
 * Which methods a path answers, for a request that matched no route: a known path asked with the wrong
 * method is 405 Method Not Allowed with an `Allow` header naming the methods it does answer (RFC 9110
 * §15.5.6), not a 404 that tells a client the endpoint does not exist ("GET /oauth2/token: No such endpoint"
 * sent developers looking for a typo in the path).
 *
 * Fastify's own router only looks routes up by their registered pattern, so the routes are mirrored into a
 * router of the same library (find-my-way, Fastify's router) as they are registered, and looked up by path.
 */
import FindMyWay from 'find-my-way';

export interface RouteMethods {
  /** Records a route as Fastify registers it (the onRoute hook). */
  add(method: string | string[], url: string): void;
  /** The methods `path` answers (sorted), empty when no route has this path. */
  allowed(path: string): string[];
}

const METHODS = ['DELETE', 'GET', 'HEAD', 'OPTIONS', 'PATCH', 'POST', 'PUT'] as const;

export function createRouteMethods(): RouteMethods {
  const router = FindMyWay({ ignoreTrailingSlash: false, ignoreDuplicateSlashes: false });
  const seen = new Set<string>();
  return {
    add(method, url) {
      for (const one of Array.isArray(method) ? method : [method]) {
        const upper = one.toUpperCase();
        if (!(METHODS as readonly string[]).includes(upper) || seen.has(`${upper} ${url}`)) continue;
        seen.add(`${upper} ${url}`);
        router.on(upper as (typeof METHODS)[number], url, () => {});
      }
    },
    allowed(path) {
      return METHODS.filter((method) => router.find(method, path) !== null);
    },
  };
}
