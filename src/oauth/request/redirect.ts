/**
 * Building the redirect back to the client (RFC 6749 §4.1.2): response parameters appended to the query of
 * the registered redirect_uri, whose own query is kept byte for byte, with `state` exactly as sent and `iss`
 * (RFC 9207 §2).
 */

export function buildRedirectUrl(redirectUri: string, params: Record<string, string | undefined>): string {
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) {
    if (value !== undefined) query.append(name, value);
  }
  const separator = !redirectUri.includes('?') ? '?' : redirectUri.endsWith('?') || redirectUri.endsWith('&') ? '' : '&';
  return `${redirectUri}${separator}${query.toString()}`;
}
