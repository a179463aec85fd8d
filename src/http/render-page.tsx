/**
 * Rendering pages: JSX to an HTML string with preact-render-to-string (escapes by default; nothing here
 * escapes by hand), sent with the page security headers, inside the page frame (page-frame.ts: the brand, the
 * stylesheet, the sign-in state the request found).
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { VNode } from 'preact';
import { renderToString } from 'preact-render-to-string';
import { OAuthError, type PageError } from '../errors.js';
import { pageContentSecurityPolicy } from './security-headers.js';
import { DEFAULT_PAGE_FRAME } from './page-frame.js';
import { ErrorPage, type ErrorPageProps } from '../views/pages/error-page.js';
import { PageContextProvider } from '../views/page-context.js';
import { asSentence } from '../views/format.js';
import { translator } from '../i18n/translator.js';
import { pageLocale } from './page-locale.js';

export interface RenderOptions {
  /** Extra CSP form-action sources, for forms whose redirect chain ends at a client. */
  formActions?: readonly string[];
}

export function renderPage(reply: FastifyReply, page: VNode, options: RenderOptions = {}): FastifyReply {
  const frame = reply.server.pageFrame ?? DEFAULT_PAGE_FRAME;
  const i18n = translator(pageLocale(reply.request));
  const context = { brand: frame.brand, stylesheetHref: frame.stylesheetHref, signedIn: reply.request.browserSignedIn, isAdmin: reply.request.browserIsAdmin, i18n };
  return reply
    .header('content-language', i18n.locale)
    // The same address answers in another language for another Accept-Language (RFC 9110 §12.5.5).
    .header('vary', 'accept-language')
    .header('content-security-policy', pageContentSecurityPolicy(options.formActions))
    .header('cache-control', 'no-store')
    .type('text/html; charset=utf-8')
    .send(`<!doctype html>${renderToString(<PageContextProvider value={context}>{page}</PageContextProvider>)}`);
}

/**
 * What the person reads about an error of the authorization request (issue 19 item 2): plain words, never the
 * OAuth code or parameter names. The code and the exact reason are in the log line with the request id, and in
 * the app's failed-request log in the developer console (error-surfaces.ts), where the app's developer reads them.
 */
function describeAuthorizeError(error: OAuthError, status: number, appName: string | undefined): Pick<ErrorPageProps, 'heading' | 'description'> {
  if (status === 503) return { heading: 'Try again in a moment', description: 'The sign-in service cannot reach its database right now. Try again in a few seconds.' };
  if (status >= 500) return { heading: 'Something went wrong on our side', description: 'The sign-in could not be completed because of a fault on our side. Try again in a moment.' };
  // A form that expired or did not come from these pages: the description was written for people.
  if (status === 403) return { heading: 'This form has expired', description: asSentence(error.description) };
  return {
    heading: 'This sign-in link does not work',
    description: appName
      ? `${appName} sent you here with a sign-in request that cannot be accepted, so you cannot be sent back to it from here. Go back to ${appName} and try again; if it happens again, the people who run ${appName} need to fix it.`
      : 'The link that brought you here does not name an app that may sign people in here, or is incomplete. Go back to the site you came from and try again; if it happens again, tell the people who run that site.',
  };
}

const PAGE_ERROR_HEADINGS: Record<number, string> = {
  400: 'This request cannot be completed',
  403: 'This form has expired',
  404: 'Page not found',
  405: 'Not a page to open',
  413: 'That is too large',
  415: 'This form cannot be read',
  429: 'Too many attempts',
  503: 'Try again in a moment',
};

/**
 * The error page. An OAuthError (the authorization surface) is told in plain words, the app named when it is
 * known, with its homepage as the way back; a PageError (Latch's own pages) shows its description, written for
 * people. Both show the request id, which finds the technical reason in the log and the developer console.
 */
export function renderErrorPage(reply: FastifyReply, request: FastifyRequest, error: OAuthError | PageError): FastifyReply {
  const status = reply.statusCode >= 400 ? reply.statusCode : error.status;
  const client = request.latchClient;
  const words =
    error instanceof OAuthError
      ? describeAuthorizeError(error, status, client?.name)
      : { heading: error.heading ?? PAGE_ERROR_HEADINGS[status] ?? (status >= 500 ? 'Something went wrong on our side' : 'Something went wrong'), description: asSentence(error.description) };
  const app = client ? { name: client.name, homepageUrl: client.homepageUrl } : undefined;
  return renderPage(reply, <ErrorPage {...words} requestId={request.id} app={app} />);
}
