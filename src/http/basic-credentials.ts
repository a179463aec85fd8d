/**
 * HTTP Basic credentials as OAuth clients send them (RFC 7617 §2; RFC 6749 §2.3.1): Base64 of
 * `client_id:client_secret`, each part form-encoded first. One reading for client authentication
 * (oauth/request/client-authentication.ts) and for the rate limits keyed by the claimed client id
 * (rate-limits.ts), so that both see the same client in the same header.
 */
// RFC 7235 §2.1 separates scheme and credentials with spaces; a tab (which some clients and proxies write) is read as one.
const BASIC = /^basic[ \t]+([A-Za-z0-9+/=._~-]+)\s*$/i;

export type BasicCredentials = { id: string; secret: string } | { problem: 'malformed' | 'no colon' };

/** The header's two parts, still form-encoded; or what is wrong with it. */
export function splitBasicCredentials(header: string): BasicCredentials {
  const match = BASIC.exec(header);
  if (!match?.[1]) return { problem: 'malformed' };
  const decoded = Buffer.from(match[1], 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return { problem: 'no colon' };
  return { id: decoded.slice(0, colon), secret: decoded.slice(colon + 1) };
}

/** One form-encoded part decoded (`+` is a space, RFC 6749 Appendix B); null when it is not valid percent-encoding. */
export function decodeFormEncoded(value: string): string | null {
  // Nothing to decode (Latch's own ids and secrets): the same text, without a decoder's pass on every request.
  if (!value.includes('%') && !value.includes('+')) return value;
  try {
    return decodeURIComponent(value.replace(/\+/g, '%20'));
  } catch {
    return null;
  }
}
