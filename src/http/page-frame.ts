/**
 * The frame every page shares (views/page-context.ts): the operator's brand, the stylesheet with its accent
 * colour at a versioned address, and the default favicon. Built once per app from the configuration and kept
 * on the Fastify instance, where render-page.tsx finds it.
 */
import type { FastifyInstance } from 'fastify';
import type { BrandSettings } from '../config-brand.js';
import { brandedStylesheet, DEFAULT_BRAND, defaultFaviconSvg, stylesheetHrefFor } from '../views/page-context.js';

export interface PageFrame {
  brand: BrandSettings;
  stylesheet: string;
  stylesheetHref: string;
  faviconSvg: string;
}

declare module 'fastify' {
  interface FastifyInstance {
    pageFrame?: PageFrame;
  }
  interface FastifyRequest {
    /** Whether the request came with a live browser session (session/sign-in-state.ts); undefined until looked at. */
    browserSignedIn?: boolean;
  }
}

export function buildPageFrame(brand: BrandSettings = DEFAULT_BRAND): PageFrame {
  const stylesheet = brandedStylesheet(brand);
  return { brand, stylesheet, stylesheetHref: stylesheetHrefFor(stylesheet), faviconSvg: defaultFaviconSvg(brand) };
}

export const DEFAULT_PAGE_FRAME = buildPageFrame();

/** /assets/latch.css, and the favicon at /favicon.svg and /favicon.ico (where browsers look without a link tag). */
export function registerPageFrameRoutes(scope: FastifyInstance, frame: PageFrame): void {
  scope.get('/assets/latch.css', async (_request, reply) =>
    // Versioned by its hash in every page's link (stylesheetHref), so a long cache is safe; the plain address stays an hour.
    reply.type('text/css; charset=utf-8').header('cache-control', 'public, max-age=3600').send(frame.stylesheet),
  );
  scope.get('/favicon.svg', async (_request, reply) => {
    if (frame.brand.faviconUrl) return reply.redirect(frame.brand.faviconUrl, 302);
    return reply.type('image/svg+xml').header('cache-control', 'public, max-age=86400').send(frame.faviconSvg);
  });
  // Browsers ask for /favicon.ico on their own (pages without a link tag, a PDF, an error): send them to the icon.
  scope.get('/favicon.ico', async (_request, reply) => reply.header('cache-control', 'public, max-age=86400').redirect(frame.brand.faviconUrl ?? '/favicon.svg', 301));
}
