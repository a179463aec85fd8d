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
import { isTranslatedPage, PageContextProvider } from '../views/page-context.js';
import { DEFAULT_LOCALE } from '../i18n/locales.js';
import { asSentence } from '../views/format.js';
import { translator, type Translator } from '../i18n/translator.js';
import type { MessageKey } from '../i18n/messages/index.js';
import { pageLocale, TranslatedPageError } from './page-locale.js';

export interface RenderOptions {
  /** Extra CSP form-action sources, for forms whose redirect chain ends at a client. */
  formActions?: readonly string[];
}

export function renderPage(reply: FastifyReply, page: VNode, options: RenderOptions = {}): FastifyReply {
  const frame = reply.server.pageFrame ?? DEFAULT_PAGE_FRAME;
  // A page not translated yet is English throughout (views/page-context.ts isTranslatedPage).
  const i18n = translator(isTranslatedPage(page) ? pageLocale(reply.request) : DEFAULT_LOCALE);
  const context = { brand: frame.brand, stylesheetHref: frame.stylesheetHref, signedIn: reply.request.browserSignedIn, isAdmin: reply.request.browserIsAdmin, i18n };
  return reply
    .header('content-language', i18n.locale)
    // The same address answers in another language for another Accept-Language (RFC 9110 §12.5.5); added to
    // what the reply varies on already, if anything.
    .header('vary', [reply.getHeader('vary'), 'Accept-Language'].filter(Boolean).join(', '))
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
function describeAuthorizeError({ t, locale }: Translator, error: OAuthError, status: number, appName: string | undefined): Pick<ErrorPageProps, 'heading' | 'description'> {
  if (status === 503) return { heading: t('error.heading.503'), description: t('error.authorize.503') };
  if (status >= 500) return { heading: t('error.heading.500'), description: t('error.authorize.500') };
  // A form that expired or did not come from these pages: the description was written for people (in English).
  if (status === 403) return { heading: t('error.heading.403'), description: locale === 'en' ? asSentence(error.description) : t('error.description.403') };
  return {
    heading: t('error.authorize.heading'),
    description: appName ? t('error.authorize.app', { app: appName }) : t('error.authorize.noApp'),
  };
}

/** The statuses with a heading (and a description, for languages other than the error's own English) of their own. */
const STATUSES_WITH_WORDS = new Set([400, 403, 404, 405, 413, 415, 429, 503]);

/**
 * A PageError's words. Its description was written in English for people; a TranslatedPageError has them in
 * every language. For another language, a PageError without its own message gets the words of its status
 * (i18n "error.description.<status>"; a 429 with its Retry-After), so that the page is all in one language.
 */
function describePageError({ t, locale }: Translator, reply: FastifyReply, error: PageError, status: number): Pick<ErrorPageProps, 'heading' | 'description'> {
  const known = STATUSES_WITH_WORDS.has(status) ? status : null;
  const statusHeading = known ? t(`error.heading.${known}` as MessageKey) : t(status >= 500 ? 'error.heading.500' : 'error.heading.other');
  if (error instanceof TranslatedPageError) {
    return {
      heading: error.headingText ? t(error.headingText.key, error.headingText.params) : statusHeading,
      description: asSentence(t(error.text.key, error.text.params)),
    };
  }
  if (locale === 'en') return { heading: error.heading ?? statusHeading, description: asSentence(error.description) };
  const retryAfter = Number(reply.getHeader('retry-after'));
  const description =
    status === 429
      ? Number.isInteger(retryAfter) && retryAfter > 0
        ? t('error.description.429', { count: retryAfter })
        : t('error.description.429.other')
      : known && known !== 503
        ? t(`error.description.${known}` as MessageKey)
        : status >= 500
          ? t('error.authorize.500')
          : t('error.description.other');
  return { heading: statusHeading, description };
}

/**
 * The error page. An OAuthError (the authorization surface) is told in plain words, the app named when it is
 * known, with its homepage as the way back; a PageError (Latch's own pages) shows its description, written for
 * people. Both show the request id, which finds the technical reason in the log and the developer console.
 */
export function renderErrorPage(reply: FastifyReply, request: FastifyRequest, error: OAuthError | PageError): FastifyReply {
  const status = reply.statusCode >= 400 ? reply.statusCode : error.status;
  const client = request.latchClient;
  const i18n = translator(pageLocale(request));
  const words = error instanceof OAuthError ? describeAuthorizeError(i18n, error, status, client?.name) : describePageError(i18n, reply, error, status);
  const app = client ? { name: client.name, homepageUrl: client.homepageUrl } : undefined;
  return renderPage(reply, <ErrorPage {...words} requestId={request.id} app={app} />);
}
