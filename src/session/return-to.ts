/**
 * Where to send the browser after sign-in. Only a path on this origin is accepted, so that the sign-in page
 * cannot be used as an open redirector (RFC 9700 §4.11).
 */
export function safeReturnTo(raw: unknown, fallback = '/'): string {
  if (typeof raw !== 'string' || raw.length > 8192) return fallback;
  // A single leading slash, not // or /\ (protocol-relative), no control characters.
  if (!raw.startsWith('/') || raw.startsWith('//') || raw.startsWith('/\\') || /[\u0000-\u001f\u007f]/.test(raw)) return fallback;
  return raw;
}
