/**
 * Rendering pages: JSX to an HTML string with preact-render-to-string (escapes by default; nothing here
 * escapes by hand), sent with the page security headers.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { VNode } from 'preact';
import { renderToString } from 'preact-render-to-string';
import { OAuthError, type PageError } from '../errors.js';
import { pageContentSecurityPolicy } from './security-headers.js';
import { ErrorPage } from '../views/pages/error-page.js';

export interface RenderOptions {
  /** Extra CSP form-action sources, for forms whose redirect chain ends at a client. */
  formActions?: readonly string[];
}

export function renderPage(reply: FastifyReply, page: VNode, options: RenderOptions = {}): FastifyReply {
  return reply
    .header('content-security-policy', pageContentSecurityPolicy(options.formActions))
    .header('cache-control', 'no-store')
    .type('text/html; charset=utf-8')
    .send(`<!doctype html>${renderToString(page)}`);
}

/**
 * The error page. An OAuthError (the authorization surface) shows its code, for the developer of the application
 * that sent the person here; a PageError (Latch's own pages) shows none: a person reads what happened.
 */
export function renderErrorPage(reply: FastifyReply, request: FastifyRequest, error: OAuthError | PageError): FastifyReply {
  const code = error instanceof OAuthError ? error.code : undefined;
  return renderPage(reply, <ErrorPage code={code} description={error.description} requestId={request.id} />);
}
