/**
 * The issuer, the proxy in front and development mode, judged from the configuration alone (pure).
 *
 * What is inferred, since no request is seen: Latch never terminates TLS itself, so an https issuer means a
 * TLS-terminating proxy or load balancer in front of it, whose address every request then comes from unless
 * LATCH_TRUST_PROXY is on. A HOST on loopback means that proxy runs on this machine (nothing else can reach
 * Latch); an http issuer on a public host with a proxy in front (loopback HOST, or LATCH_TRUST_PROXY on) is
 * most likely the "http issuer behind TLS" mistake: TLS is there, the issuer just does not say so.
 */
import type { Finding } from './finding.js';

export interface IssuerSettings {
  /** LATCH_ISSUER as loaded (no trailing slash). */
  issuer: string;
  /** HOST: the interface Latch binds. */
  host: string;
  port: number;
  trustProxy: boolean;
  developmentMode: boolean;
}

/** Loopback hosts, as in an issuer or a HOST to bind. */
export function isLoopbackHost(host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, '').toLowerCase();
  return bare === 'localhost' || bare === '::1' || /^127(\.\d{1,3}){3}$/.test(bare);
}

function issuerHost(issuer: string): string {
  try {
    return new URL(issuer).hostname;
  } catch {
    return '';
  }
}

export function checkIssuer(settings: IssuerSettings): Finding[] {
  const { issuer, host, port, trustProxy, developmentMode } = settings;
  const https = issuer.startsWith('https:');
  const publicIssuer = !isLoopbackHost(issuerHost(issuer));
  const proxyOnThisMachine = isLoopbackHost(host);
  const findings: Finding[] = [];

  // RFC 8414 §2 and OIDC Discovery §3: the issuer is an https URL; codes, tokens and session cookies must not
  // cross a network in clear text (RFC 9700 §2.6 forbids http redirect URIs for the same reason).
  if (https) {
    findings.push({ check: 'issuer', level: 'ok', title: `LATCH_ISSUER ${issuer} uses https`, fix: null });
  } else if (!publicIssuer) {
    findings.push({
      check: 'issuer',
      level: 'note',
      title: `LATCH_ISSUER ${issuer} is on this machine: a development setup`,
      fix: 'For production, run Latch behind a TLS-terminating proxy and set LATCH_ISSUER to its https URL and LATCH_TRUST_PROXY=1.',
    });
  } else if (developmentMode) {
    findings.push({
      check: 'issuer',
      level: 'warning',
      title: `LATCH_ISSUER ${issuer} is http on a public host, accepted only because LATCH_DEV_MODE is on`,
      fix: 'Fine for a test deployment; in production terminate TLS in front of Latch and use an https issuer.',
    });
  } else {
    const httpsIssuer = issuer.replace(/^http:/, 'https:');
    const proxySeen = proxyOnThisMachine
      ? `HOST is ${host}, so a proxy on this machine forwards to Latch`
      : trustProxy
        ? 'LATCH_TRUST_PROXY is on, so a proxy forwards to Latch'
        : null;
    findings.push({
      check: 'issuer',
      level: 'problem',
      title: `LATCH_ISSUER ${issuer} is http on a public host, and LATCH_DEV_MODE is off: codes, tokens and cookies would travel in clear text`,
      fix: proxySeen
        ? `${proxySeen}: if it already terminates TLS, only the issuer is wrong: set LATCH_ISSUER=${httpsIssuer}${trustProxy ? '' : ' and LATCH_TRUST_PROXY=1'}. If it does not, terminate TLS there first.`
        : `Put a TLS-terminating reverse proxy or load balancer in front of Latch, then set LATCH_ISSUER=${httpsIssuer} and LATCH_TRUST_PROXY=1.`,
    });
  }

  if (https && !trustProxy) {
    const where = proxyOnThisMachine ? `on this machine (HOST is ${host})` : `in front of it (HOST is ${host})`;
    findings.push({
      check: 'trust-proxy',
      level: 'problem',
      title: `LATCH_ISSUER is https but LATCH_TRUST_PROXY is off: Latch does not terminate TLS, so a proxy ${where} does, and every request seems to come from the proxy's address`,
      fix: `Set LATCH_TRUST_PROXY=1 and have the proxy send X-Forwarded-For and X-Forwarded-Proto. Until then sign-in throttling counts every user as one address (a few failed sign-ins lock everyone out) and sessions record the proxy's address.`,
    });
  } else if (trustProxy && !proxyOnThisMachine) {
    findings.push({
      check: 'trust-proxy',
      level: 'note',
      title: `LATCH_TRUST_PROXY is on and HOST ${host} accepts connections from other machines`,
      fix: `Let only the proxy reach port ${port} (firewall, private network): anyone who reaches Latch directly can claim any address in X-Forwarded-For.`,
    });
  } else if (https) {
    findings.push({ check: 'trust-proxy', level: 'ok', title: `Behind a proxy on this machine (HOST ${host}), trusted for client addresses`, fix: null });
  }

  if (developmentMode && publicIssuer) {
    findings.push({
      check: 'dev-mode',
      level: 'warning',
      title: `LATCH_DEV_MODE is on with the public issuer ${issuer}`,
      fix: 'Turn it off in production (unset LATCH_DEV_MODE): it accepts http redirect URIs to any host, which RFC 9700 §2.6 forbids because codes would travel in clear text.',
    });
  }
  return findings;
}
