/**
 * The language of a page (i18n/negotiate.ts): the `ui_locales` of the authorization request the page belongs to,
 * then Accept-Language, then English.
 *
 * OIDC Core §3.1.2.1 has `ui_locales` apply to the pages of that one request: the sign-in, sign-up, second step
 * and consent pages it leads to, and its error pages. Those pages already carry the request along (the
 * authorization endpoint's own query; `return_to` on the sign-in and sign-up pages and their forms; the consent
 * form's `authorization_request`; the pending sign-in's return address, which the second-step routes name in
 * `request.flowReturnTo`), so its `ui_locales` is read from there: nothing more is stored, and the next
 * authorization request, without it, is back to the browser's language. RP-initiated logout's own `ui_locales`
 * (OIDC RP-Initiated Logout 1.0 §2) is read the same way, from the query or the form.
 */
import type { FastifyRequest } from 'fastify';
import { PageError } from '../errors.js';
import { negotiateLocale } from '../i18n/negotiate.js';
import type { Locale } from '../i18n/locales.js';
import type { MessageKey } from '../i18n/messages/index.js';
import { translator, type Params, type Translator } from '../i18n/translator.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The authorization request a page without it in its URL or form belongs to (the second step of a sign-in). */
    flowReturnTo?: string;
  }
}

/** A bound: a tag list longer than this is not a language preference. */
const MAX_UI_LOCALES_LENGTH = 512;

function text(value: unknown): string | undefined {
  return typeof value === 'string' && value.length <= 8192 ? value : undefined;
}

/** The `ui_locales` of an authorization request given as a local path (/oauth2/authorize?…), if any. */
function uiLocalesOfReturnTo(returnTo: string | undefined): string | undefined {
  if (!returnTo?.startsWith('/oauth2/authorize?')) return undefined;
  return uiLocalesOfQuery(returnTo.slice(returnTo.indexOf('?') + 1));
}

function uiLocalesOfQuery(query: string | undefined): string | undefined {
  if (!query) return undefined;
  const values = new URLSearchParams(query).getAll('ui_locales');
  // A repeated parameter is refused by the endpoint (OAuth 2.0 §3.1); its pages fall back to the browser's language.
  return values.length === 1 ? values[0] : undefined;
}

export function uiLocalesOf(request: FastifyRequest): string | undefined {
  const query = (request.query ?? {}) as Record<string, unknown>;
  const body = (request.body && typeof request.body === 'object' ? request.body : {}) as Record<string, unknown>;
  const found =
    text(query.ui_locales) ??
    text(body.ui_locales) ??
    uiLocalesOfReturnTo(text(query.return_to) ?? text(body.return_to) ?? request.flowReturnTo) ??
    uiLocalesOfQuery(text(body.authorization_request));
  return found && found.length <= MAX_UI_LOCALES_LENGTH ? found : undefined;
}

export function pageLocale(request: FastifyRequest): Locale {
  return negotiateLocale({ uiLocales: uiLocalesOf(request), acceptLanguage: request.headers['accept-language'] });
}

/** The messages of the request's page language, for what a route tells the page (a field's error). */
export function pageTranslator(request: FastifyRequest): Translator {
  return translator(pageLocale(request));
}

/** A message of the catalogue with its parameters. */
export interface CatalogueMessage {
  key: MessageKey;
  params?: Params;
}

/**
 * A PageError told in the page's language: its description (and heading) are messages of the catalogue. The
 * English text is its description, for the log and for anything that reads it as a PageError.
 */
export class TranslatedPageError extends PageError {
  constructor(
    status: number,
    readonly text: CatalogueMessage,
    readonly headingText?: CatalogueMessage,
  ) {
    const english = translator('en');
    super(status, english.t(text.key, text.params), headingText ? { heading: english.t(headingText.key, headingText.params) } : {});
  }
}
