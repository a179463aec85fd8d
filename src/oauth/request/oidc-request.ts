/**
 * The OpenID Connect parameters of an authorization request (OIDC Core §3.1.2.1, §6).
 *
 * `request` and `request_uri` (request objects) are not supported and get their own error codes (§6.1, §6.2,
 * §3.1.2.6), before anything else is read, since a request object could carry the other parameters.
 * `display`, `claims_locales` and `claims` are accepted and ignored, as are unknown parameters (RFC 6749 §3.1);
 * Latch has one page layout. `ui_locales` chooses the language of the request's pages, read where the pages are
 * rendered (http/page-locale.ts): an unsupported or malformed tag is a hint not taken, never an error. `acr_values` asks for a level of authentication
 * (session/authentication-methods.ts).
 */
import { InvalidRequest, RequestNotSupported, RequestUriNotSupported } from '../../errors.js';
import type { RawParams } from '../../http/form-body.js';
import { readParam } from './params.js';
import { parseMaxAge, parsePrompt, type Prompt } from './prompt.js';

export const MAX_NONCE_LENGTH = 512;
export const MAX_ID_TOKEN_HINT_LENGTH = 8192;
export const MAX_LOGIN_HINT_LENGTH = 254;

/**
 * Set by Latch itself on the URL the sign-in page returns to when it asked for a fresh sign-in (prompt=login,
 * max_age): a sign-in at or after this time (epoch seconds) satisfies the request. The request is not stored
 * between the steps (oauth/authorize.ts), so this is how the return trip knows the sign-in already happened.
 * Whoever can craft the URL could add it, but could as well leave prompt=login out: it grants nothing, and
 * auth_time in the id_token still tells the client when the user really signed in.
 */
export const AUTHENTICATED_AFTER_PARAM = 'latch_authenticated_after';

export interface OidcParameters {
  nonce: string | null;
  prompt: ReadonlySet<Prompt>;
  maxAgeSeconds: number | null;
  idTokenHint: string | null;
  loginHint: string | null;
  /** A sign-in at or after this time satisfies prompt=login and max_age (see AUTHENTICATED_AFTER_PARAM). */
  authenticatedAfter: Date | null;
  /** OIDC Core §3.1.2.1: the acr values asked for, in order of preference (space-separated); empty when none. */
  acrValues: string[];
}

export function rejectRequestObjects(params: RawParams): void {
  if (readParam(params, 'request', { maxLength: Number.MAX_SAFE_INTEGER }) !== undefined) {
    throw new RequestNotSupported('Request objects (the request parameter) are not supported; send the parameters in the query');
  }
  if (readParam(params, 'request_uri', { maxLength: Number.MAX_SAFE_INTEGER }) !== undefined) {
    throw new RequestUriNotSupported('request_uri is not supported; send the parameters in the query');
  }
}

export function parseOidcParameters(params: RawParams): OidcParameters {
  const responseMode = readParam(params, 'response_mode', { maxLength: 64 });
  if (responseMode !== undefined && responseMode !== 'query') {
    throw new InvalidRequest(`response_mode ${responseMode} is not supported; Latch returns the code in the query (response_mode=query)`);
  }

  const nonce = readParam(params, 'nonce', { maxLength: MAX_NONCE_LENGTH }) ?? null;
  // A nonce is compared byte for byte by the client; control characters cannot survive every client's storage.
  if (nonce !== null && /[\u0000-\u001f\u007f]/.test(nonce)) throw new InvalidRequest('nonce must not contain control characters');

  const prompt = parsePrompt(readParam(params, 'prompt', { maxLength: 128 }));
  const maxAgeSeconds = parseMaxAge(readParam(params, 'max_age', { maxLength: 32 }));
  const idTokenHint = readParam(params, 'id_token_hint', { maxLength: MAX_ID_TOKEN_HINT_LENGTH }) ?? null;
  if (idTokenHint !== null && !/^[\w-]+\.[\w-]+\.[\w-]+$/.test(idTokenHint)) {
    throw new InvalidRequest('id_token_hint must be an id_token issued by Latch (a signed JWT)');
  }
  const loginHint = readParam(params, 'login_hint', { maxLength: MAX_LOGIN_HINT_LENGTH }) ?? null;

  const marker = readParam(params, AUTHENTICATED_AFTER_PARAM, { maxLength: 12 });
  const authenticatedAfter = marker !== undefined && /^\d{1,12}$/.test(marker) ? new Date(Number(marker) * 1000) : null;

  const acrValues = (readParam(params, 'acr_values', { maxLength: 1024 }) ?? '').split(' ').filter((value) => value !== '');

  return { nonce, prompt, maxAgeSeconds, idTokenHint, loginHint, authenticatedAfter, acrValues };
}
