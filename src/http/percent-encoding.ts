/**
 * Malformed percent-encoding (RFC 3986 §2.1: "%" followed by two hex digits; the octets, UTF-8 for form data per
 * the WHATWG URL standard) in a query string or a form body. The parsers Latch uses pass a broken escape on as
 * literal text (`%ZZ` stays `%ZZ`, a cut UTF-8 sequence becomes U+FFFD): a parameter would then silently differ
 * from what the caller meant. Such a request is refused instead: invalid_request on the API, a 400 page
 * elsewhere (issue 16 item 6).
 */
import { parse as parseQueryString, type ParsedUrlQuery } from 'node:querystring';
import { InvalidRequest } from '../errors.js';

/** Why `encoded` is not well-formed percent-encoding, or null when it is. */
export function percentEncodingProblem(encoded: string): string | null {
  if (!encoded.includes('%')) return null;
  // Plain words: an OAuth error_description allows no double quote (RFC 6749 §5.2).
  if (/%(?![0-9A-Fa-f]{2})/.test(encoded)) return 'a % sign not followed by two hexadecimal digits';
  try {
    decodeURIComponent(encoded);
    return null;
  } catch {
    return 'percent-escapes that do not form UTF-8 text';
  }
}

/**
 * A NUL character (U+0000, `%00` when escaped) in a request. No parameter, path or field of Latch's can hold one,
 * and PostgreSQL cannot store or even compare text with one ("invalid byte sequence for encoding UTF8: 0x00"): a
 * client_id or a client_name with a NUL made every lookup a 500 there. Refused where the request is parsed, on
 * both databases alike.
 */
export function nulCharacter(where: 'request URL' | 'form body' | 'JSON body'): InvalidRequest {
  return new InvalidRequest(`The ${where} holds a NUL character (U+0000${where === 'JSON body' ? '' : ', %00 percent-encoded'}), which no parameter may contain; remove it`);
}

function malformedEncoding(where: 'query string' | 'form body', problem: string): InvalidRequest {
  return new InvalidRequest(`The ${where} has malformed percent-encoding (${problem}): encode every parameter with encodeURIComponent or URLSearchParams (RFC 3986, section 2.1)`);
}

/** Throws invalid_request when `encoded` (a query string or a urlencoded body) is malformed. */
export function assertWellFormedPercentEncoding(encoded: string, where: 'query string' | 'form body'): void {
  const problem = percentEncodingProblem(encoded);
  if (problem) throw malformedEncoding(where, problem);
}

/**
 * A urlencoded body parsed as node:querystring parses it, refusing malformed percent-encoding in the same pass:
 * the parser hands each escaped name and value (and only those) to the decoder, which notes the first that does
 * not decode. On the token endpoint's hot path this costs nothing beyond the parse (a check of the whole body
 * before it decoded every escape twice).
 */
/** The objects parseWellFormedForm returned: already plain parameters, read without a copy (form-body.ts). */
const parsedForms = new WeakSet<object>();

/**
 * True for a body that parseWellFormedForm parsed: an object without prototype whose every value is a string or
 * a list of strings (node:querystring's result), so that readers need not check or copy it again.
 */
export function isParsedForm(body: unknown): body is ParsedUrlQuery {
  return typeof body === 'object' && body !== null && parsedForms.has(body);
}

export function parseWellFormedForm(body: string): ParsedUrlQuery {
  // A NUL, as it is or escaped (nulCharacter): one scan of the body for the raw byte, and %00 below.
  if (body.includes('\u0000')) throw nulCharacter('form body');
  let malformed: string | undefined;
  let nul = false;
  const parsed = parseQueryString(body, '&', '=', {
    decodeURIComponent: (text) => {
      // With a decoder of its own, node:querystring hands it every name and value (a `+` already made `%20`);
      // one without `%` decodes to itself, and most of a token request's do (the decoder was 1.6% of a refresh's
      // main-thread time in the bench profile, 2026-11-27).
      if (!text.includes('%')) return text;
      if (text.includes('%00')) nul = true;
      try {
        return decodeURIComponent(text);
      } catch {
        malformed ??= text;
        return text;
      }
    },
  });
  if (nul) throw nulCharacter('form body');
  if (malformed !== undefined) throw malformedEncoding('form body', percentEncodingProblem(malformed) ?? 'percent-escapes that do not form UTF-8 text');
  parsedForms.add(parsed);
  return parsed;
}
