/**
 * Matching a sent redirect_uri against the registered ones: exact string comparison (RFC 9700 §4.1.3), with
 * RFC 8252 §7.3's exception that a registered loopback IP URI matches any port. And, for the developer console,
 * naming the first part in which a rejected URI differs from the closest registered one, by the same rules:
 * parts are compared as strings (RFC 3986 Appendix B splits them, nothing is normalised), and the port of two
 * loopback IP URIs is never the difference, since it never counts.
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
  return registered.some((uri) => matchesRegisteredUri(uri, sent));
}

function matchesRegisteredUri(registered: string, sent: string): boolean {
  if (registered === sent) return true;
  const sentWithoutPort = loopbackWithoutPort(sent);
  // Everything but the port still compared as exact strings.
  return sentWithoutPort !== null && loopbackWithoutPort(registered) === sentWithoutPort;
}

export type RedirectUriPart = 'scheme' | 'user info' | 'host' | 'port' | 'path' | 'trailing slash' | 'query' | 'fragment' | 'whole URI';

/**
 * Why two parts that look alike still differ, or what the matcher's exception does and does not cover, for the
 * console to say in words (views/components/redirect-url-rules.tsx).
 */
export type RedirectUriNote =
  /** The same letters in another case: the comparison is case-sensitive, even for the scheme and host. */
  | 'letter case'
  /** A default port written out on one side only (:443, :80): still another string. */
  | 'default port'
  /** The same once percent-decoded: encoding is not undone. */
  | 'percent-encoding'
  /** Both are loopback IP URIs: their ports were not compared (RFC 8252 §7.3). */
  | 'loopback port ignored'
  /** localhost, or another 127/8 address: the any-port exception is for 127.0.0.1 and [::1] only. */
  | 'port exception not for this host';

export interface RedirectUriDifference {
  part: RedirectUriPart;
  /** The differing part as sent and as registered (null: absent); both null for 'whole URI'. */
  sent: string | null;
  registered: string | null;
  note: RedirectUriNote | null;
}

export interface RedirectUriMismatch {
  received: string;
  registered: string[];
  /** The registered URI closest to the received one, or null when none is registered. */
  closest: string | null;
  /** The first part in which received and closest differ. */
  differingPart: RedirectUriPart | null;
}

// Later parts mean a closer match: a URI differing only in its query is closer than one differing in host.
const PART_ORDER: RedirectUriPart[] = ['whole URI', 'scheme', 'host', 'user info', 'port', 'path', 'trailing slash', 'query', 'fragment'];

export function describeRedirectUriMismatch(received: string, registered: readonly string[]): RedirectUriMismatch {
  const closest = closestRegisteredUri(received, registered);
  return { received, registered: [...registered], closest: closest?.uri ?? null, differingPart: closest?.difference?.part ?? null };
}

/** The registered URI closest to `received` and how they differ (difference null: it matches). */
export function closestRegisteredUri(received: string, registered: readonly string[]): { uri: string; difference: RedirectUriDifference | null } | null {
  let best: { uri: string; difference: RedirectUriDifference | null; rank: number } | null = null;
  for (const uri of registered) {
    const difference = compareRedirectUri(received, uri);
    const rank = difference === null ? PART_ORDER.length : PART_ORDER.indexOf(difference.part);
    if (!best || rank > best.rank) best = { uri, difference, rank };
  }
  return best && { uri: best.uri, difference: best.difference };
}

export function firstDifferingPart(received: string, registered: string): RedirectUriPart | null {
  return compareRedirectUri(received, registered)?.part ?? null;
}

interface UriParts {
  scheme: string;
  userInfo: string | null;
  host: string | null;
  port: string | null;
  path: string;
  query: string | null;
  fragment: string | null;
}

// RFC 3986 Appendix B: the parts of a URI reference, as written.
const URI_PARTS = /^([^:/?#]+):(?:\/\/([^/?#]*))?([^?#]*)(?:\?([^#]*))?(?:#(.*))?$/s;

function splitUri(uri: string): UriParts | null {
  const match = URI_PARTS.exec(uri);
  if (!match) return null;
  const [, scheme, authority, path, query, fragment] = match;
  let userInfo: string | null = null;
  let host: string | null = null;
  let port: string | null = null;
  if (authority !== undefined) {
    const at = authority.lastIndexOf('@');
    userInfo = at === -1 ? null : authority.slice(0, at);
    const hostPort = authority.slice(at + 1);
    // An IPv6 literal is bracketed (RFC 3986 §3.2.2): its colons are not the port's.
    const portColon = hostPort.startsWith('[') ? hostPort.indexOf(':', hostPort.indexOf(']')) : hostPort.indexOf(':');
    host = portColon === -1 ? hostPort : hostPort.slice(0, portColon);
    port = portColon === -1 ? null : hostPort.slice(portColon + 1);
  }
  return { scheme: scheme!, userInfo, host, port, path: path!, query: query ?? null, fragment: fragment ?? null };
}

function caseNote(sent: string | null, registered: string | null): RedirectUriNote | null {
  return sent !== null && registered !== null && sent.toLowerCase() === registered.toLowerCase() ? 'letter case' : null;
}

function decodedOrSelf(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}

const DEFAULT_PORTS: Record<string, string> = { http: '80', https: '443' };

/**
 * How `received` differs from one registered URI, by the matcher's own rules; null when the matcher accepts it.
 * The first differing part is named, in the order the parts are written.
 */
export function compareRedirectUri(received: string, registered: string): RedirectUriDifference | null {
  if (matchesRegisteredUri(registered, received)) return null;
  const a = splitUri(received);
  const b = splitUri(registered);
  if (!a || !b) return { part: 'whole URI', sent: null, registered: null, note: null };
  const differ = (part: RedirectUriPart, sent: string | null, reg: string | null, note: RedirectUriNote | null = caseNote(sent, reg)): RedirectUriDifference => ({
    part,
    sent,
    registered: reg,
    note,
  });
  if (a.scheme !== b.scheme) return differ('scheme', a.scheme, b.scheme);
  // The host before the user info written ahead of it: 127.0.0.1:8080@evil.example is another host.
  if (a.host !== b.host) return differ('host', a.host, b.host);
  if (a.userInfo !== b.userInfo) return differ('user info', a.userInfo, b.userInfo);
  // Two loopback IP URIs (RFC 8252 §7.3): their ports never count, so they differ further on.
  const portIgnored = loopbackWithoutPort(received) !== null && loopbackWithoutPort(registered) !== null;
  if (!portIgnored && a.port !== b.port) {
    const defaultPort = DEFAULT_PORTS[a.scheme];
    const oneIsDefault = (a.port === null && b.port === defaultPort) || (b.port === null && a.port === defaultPort);
    // localhost and the rest of 127/8 look like loopback, but the exception names 127.0.0.1 and [::1] only.
    const lookalike = a.scheme === 'http' && a.host !== null && (a.host === 'localhost' || (a.host !== '127.0.0.1' && /^127(\.\d{1,3}){3}$/.test(a.host)));
    return differ('port', a.port, b.port, oneIsDefault ? 'default port' : lookalike ? 'port exception not for this host' : null);
  }
  const note = portIgnored ? 'loopback port ignored' : null;
  if (a.path !== b.path) {
    const trim = (path: string) => path.replace(/\/+$/, '');
    if (trim(a.path) === trim(b.path)) return differ('trailing slash', a.path, b.path, note);
    const why = caseNote(a.path, b.path) ?? (decodedOrSelf(a.path) === decodedOrSelf(b.path) ? 'percent-encoding' : null);
    return differ('path', a.path, b.path, why ?? note);
  }
  if (a.query !== b.query) {
    const why = caseNote(a.query, b.query) ?? (a.query !== null && b.query !== null && decodedOrSelf(a.query) === decodedOrSelf(b.query) ? 'percent-encoding' : null);
    return differ('query', a.query, b.query, why ?? note);
  }
  if (a.fragment !== b.fragment) return differ('fragment', a.fragment, b.fragment, note);
  // Every part as written is the same, so the strings are too: only the port of a non-loopback pair is left.
  return differ('whole URI', null, null, note);
}
