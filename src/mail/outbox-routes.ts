/**
 * GET /dev/outbox: the development page that shows the local outbox. It exists only when no SMTP server is
 * configured AND Latch runs on a local issuer (localhost, a loopback address) or in development mode: the
 * outbox holds live password reset links, so a public Latch must never show it, even if SMTP was forgotten.
 */
import type { FastifyInstance } from 'fastify';
import { issuerIsLocal, type Config } from '../config.js';
import { renderPage } from '../http/render-page.js';
import { readBrowserSession } from '../session/browser-session.js';
import type { Storage } from '../storage/storage.js';
import { OutboxPage } from '../views/pages/outbox-page.js';

const OUTBOX_PAGE_SIZE = 50;

export function outboxPageIsAvailable(config: Config): boolean {
  return config.smtpUrl === null && (issuerIsLocal(config.issuer) || config.developmentMode);
}

export function registerOutboxRoutes(app: FastifyInstance, { storage, config }: { storage: Storage; config: Config }): void {
  if (!outboxPageIsAvailable(config)) return;
  app.get('/dev/outbox', async (request, reply) => {
    const [kept, current] = await Promise.all([storage.outbox.listRecent(OUTBOX_PAGE_SIZE), readBrowserSession(storage, config, request)]);
    const messages = kept.map(({ to, subject, text, createdAt }) => ({ to, subject, text, createdAt }));
    return renderPage(reply, OutboxPage({ messages, issuer: config.issuer, signedIn: !!current }));
  });
}
