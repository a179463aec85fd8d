/** GET /: the home page, which says who is signed in and offers sign-in, sign-up or sign-out. */
import type { FastifyInstance } from 'fastify';
import type { Config } from '../config.js';
import { renderPage } from '../http/render-page.js';
import { readBrowserSession } from '../session/browser-session.js';
import type { Storage } from '../storage/storage.js';
import { HomePage } from '../views/pages/home-page.js';

export function registerHomeRoutes(app: FastifyInstance, { storage, config }: { storage: Storage; config: Config }): void {
  app.get('/', async (request, reply) => {
    const current = await readBrowserSession(storage, config, request);
    return renderPage(reply, HomePage({ user: current?.user ?? null, csrfToken: reply.generateCsrf(), signupEnabled: config.signupEnabled }));
  });
}
