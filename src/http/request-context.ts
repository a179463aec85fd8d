/**
 * What route steps learn about a request that its error handler needs: the client once it is known (so that
 * failures are recorded against it), and, on /authorize, where errors may be redirected.
 */
import type { Client } from '../storage/storage.js';

export interface AuthorizeErrorTarget {
  redirectUri: string;
  state: string | undefined;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** Set as soon as a request names a registered client. */
    latchClient?: Client;
    /** Set on /authorize once client_id and redirect_uri are verified: errors then go to the redirect_uri. */
    authorizeErrorTarget?: AuthorizeErrorTarget;
  }
}
