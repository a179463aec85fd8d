/**
 * Where to send the browser after sign-in. Only a path on this origin is accepted, so that the sign-in page
 * cannot be used as an open redirector (RFC 9700 §4.11).
 */

/** What a Location header may carry as it is: visible ASCII (RFC 9110 §5.5; Node refuses anything beyond Latin-1). */
const NOT_VISIBLE_ASCII = /[^\x21-\x7e]/u;
const EACH_NOT_VISIBLE_ASCII = /[^\x21-\x7e]/gu;

export function safeReturnTo(raw: unknown, fallback = '/'): string {
  if (typeof raw !== 'string' || raw.length > 8192) return fallback;
  // A single leading slash, not // or /\ (protocol-relative), no control characters.
  if (!raw.startsWith('/') || raw.startsWith('//') || raw.startsWith('/\\') || /[\u0000-\u001f\u007f]/.test(raw)) return fallback;
  // Anything else (non-ASCII text, spaces) is percent-encoded as UTF-8 (RFC 3986 §2.1), as a browser encodes it, so
  // that the redirect is a valid header: "/日本" once made the sign-in hang (found by test/fuzz/login.test.ts). A lone
  // surrogate becomes U+FFFD on the way through UTF-8, as in URL parsing. Only characters that were neither `/` nor
  // `\` are replaced, and only by `%XX`, so the checks above still hold for the result.
  if (!NOT_VISIBLE_ASCII.test(raw)) return raw;
  return Buffer.from(raw, 'utf8').toString('utf8').replace(EACH_NOT_VISIBLE_ASCII, (char) => encodeURIComponent(char));
}
