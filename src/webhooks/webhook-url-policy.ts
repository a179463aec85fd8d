/**
 * What a webhook's URL may be: the policy of back-channel logout URIs (clients/logout-uri-policy.ts), since
 * both are URLs Latch's server POSTs to. An absolute URL without a fragment or user name; https, or, in
 * development mode only, http to localhost or a loopback address. Where it resolves is judged again at every
 * attempt (http/outbound-request.ts): a private address is refused unless LATCH_OUTBOUND_ALLOW_PRIVATE=1.
 */
import { checkRedirectUri, isLoopbackHost } from '../clients/redirect-uri-policy.js';

export function checkWebhookUrl(url: string, options: { developmentMode: boolean }): string | null {
  if (url.length === 0) return 'The webhook URL must not be empty';
  // The generic URI rules first (length, spaces, fragment, characters, absolute, no user info).
  const problem = checkRedirectUri(url, { developmentMode: false });
  if (problem !== null && !problem.includes('uses http to a non-loopback host')) return problem.replace(/^Redirect URI/, 'Webhook URL');
  const parsed = new URL(url);
  if (parsed.protocol === 'https:') return null;
  if (parsed.protocol === 'http:' && options.developmentMode && isLoopbackHost(parsed.hostname)) return null;
  if (parsed.protocol === 'http:' && isLoopbackHost(parsed.hostname)) {
    return `Webhook URL ${url} uses http; use https:// (http to localhost, 127.0.0.1 or [::1] is allowed only in development mode, LATCH_DEV_MODE=1)`;
  }
  return `Webhook URL ${url} must start with https:// (deliveries carry account events; http only to localhost, 127.0.0.1 or [::1] in development mode)`;
}
