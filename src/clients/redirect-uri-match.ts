/**
 * Matching a sent redirect_uri against the registered ones: exact string comparison (RFC 9700 §4.1.3), with
 * RFC 8252 §7.3's exception that a registered loopback IP URI matches any port. And, for the developer console,
 * naming the first part in which a rejected URI differs from the closest registered one.
 */

// http://127.0.0.1[:port] or http://[::1][:port], then the rest of the URI.
const LOOPBACK_IP_AUTHORITY = /^http:\/\/(127\.0\.0\.1|\[::1\])(?::(\d{1,5}))?(?=[/?]|$)/;
const HIGHEST_PORT = 65535;

/**
 * The URI with the port of a loopback IP authority taken out, textually; null when it is not one. A port that no
 * socket can have (0, above 65535) makes it not one: such a URI is no redirect target, and would only ever match
 * exactly.
 */
function loopbackWithoutPort(uri: string): string | null {
  const authority = LOOPBACK_IP_AUTHORITY.exec(uri);
  if (authority === null) return null;
  const port = authority[2];
  if (port !== undefined && (Number(port) < 1 || Number(port) > HIGHEST_PORT)) return null;
  return `http://${authority[1]}${uri.slice(authority[0].length)}`;
}

export function isRegisteredRedirectUri(registered: readonly string[], sent: string): boolean {
  if (registered.includes(sent)) return true;
  const sentWithoutPort = loopbackWithoutPort(sent);
  if (sentWithoutPort === null) return false;
  // Everything but the port still compared as exact strings.
  return registered.some((uri) => loopbackWithoutPort(uri) === sentWithoutPort);
}

export type RedirectUriPart = 'scheme' | 'host' | 'port' | 'path' | 'trailing slash' | 'query' | 'whole URI';

export interface RedirectUriMismatch {
  received: string;
  registered: string[];
  /** The registered URI closest to the received one, or null when none is registered. */
  closest: string | null;
  /** The first part in which received and closest differ. */
  differingPart: RedirectUriPart | null;
}

export function describeRedirectUriMismatch(received: string, registered: readonly string[]): RedirectUriMismatch {
  let best: { uri: string; part: RedirectUriPart; rank: number } | null = null;
  for (const uri of registered) {
    const part = firstDifferingPart(received, uri);
    const rank = PART_ORDER.indexOf(part);
    if (!best || rank > best.rank) best = { uri, part, rank };
  }
  return { received, registered: [...registered], closest: best?.uri ?? null, differingPart: best?.part ?? null };
}

// Later parts mean a closer match: a URI differing only in its query is closer than one differing in host.
const PART_ORDER: RedirectUriPart[] = ['whole URI', 'scheme', 'host', 'port', 'path', 'trailing slash', 'query'];

export function firstDifferingPart(received: string, registered: string): RedirectUriPart {
  let a: URL;
  let b: URL;
  try {
    a = new URL(received);
    b = new URL(registered);
  } catch {
    return 'whole URI';
  }
  if (a.protocol !== b.protocol) return 'scheme';
  if (a.hostname !== b.hostname) return 'host';
  if (a.port !== b.port) return 'port';
  if (a.pathname !== b.pathname) {
    const trim = (path: string) => path.replace(/\/+$/, '');
    return trim(a.pathname) === trim(b.pathname) ? 'trailing slash' : 'path';
  }
  if (a.search !== b.search) return 'query';
  // Same once parsed, yet different as strings (case, default port written out, encoding).
  return 'whole URI';
}
