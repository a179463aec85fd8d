/**
 * Malformed percent-encoding (RFC 3986 §2.1: "%" followed by two hex digits; the octets, UTF-8 for form data per
 * the WHATWG URL standard) in a query string or a form body. The parsers Latch uses pass a broken escape on as
 * literal text (`%ZZ` stays `%ZZ`, a cut UTF-8 sequence becomes U+FFFD): a parameter would then silently differ
 * from what the caller meant. Such a request is refused instead: invalid_request on the API, a 400 page
 * elsewhere (issue 16 item 6).
 */
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

/** Throws invalid_request when `encoded` (a query string or a urlencoded body) is malformed. */
export function assertWellFormedPercentEncoding(encoded: string, where: 'query string' | 'form body'): void {
  const problem = percentEncodingProblem(encoded);
  if (problem) throw new InvalidRequest(`The ${where} has malformed percent-encoding (${problem}): encode every parameter with encodeURIComponent or URLSearchParams (RFC 3986, section 2.1)`);
}
