/**
 * Limits on every door (issue 16 item 6, issue 18 item 3; README "Rate limits"): how many requests each endpoint
 * class takes per key and window, and how long a self-registered client may stay unused. Read by config.ts.
 *
 * The defaults are far above what a person or a well-behaved client does, and above what `npm run bench` offers
 * from its one address (thousands of token and authorization requests a second from 127.0.0.1): they stop floods
 * and runaway loops, not traffic. An operator who sees its clients' addresses (LATCH_TRUST_PROXY behind a proxy)
 * can lower the per-address ones.
 */

export interface LimitSettings {
  /** Length of the rate-limit windows, seconds (`LATCH_RATE_LIMIT_WINDOW_SECONDS`, default 60). */
  readonly windowSeconds: number;
  /**
   * Token, revocation and introspection requests per authenticated client and window (`LATCH_RATE_LIMIT_TOKEN`,
   * default 1,200,000, i.e. 20,000 a second); 0 turns it off.
   */
  readonly tokenPerClient: number;
  /**
   * Failed client authentications at those endpoints per client id and address and window
   * (`LATCH_RATE_LIMIT_CLIENT_AUTH_FAILURES`, default 100); 0 turns it off.
   */
  readonly clientAuthFailures: number;
  /**
   * Failed client authentications per address and window, whatever client id they name
   * (`LATCH_RATE_LIMIT_CLIENT_AUTH_FAILURES_PER_ADDRESS`, default 1,000), so that trying ever new client ids gains
   * nothing; 0 turns it off.
   */
  readonly clientAuthFailuresPerAddress: number;
  /** Authorization requests (and consent decisions) per address and window (`LATCH_RATE_LIMIT_AUTHORIZE`, default 300,000); 0: off. */
  readonly authorizePerAddress: number;
  /** Requests to Latch's pages (sign-in, sign-up, account, console …) per address and window (`LATCH_RATE_LIMIT_PAGES`, default 30,000: 500 a second, above the benchmark's password sign-ins from one address on a large machine); 0: off. */
  readonly pagesPerAddress: number;
  /** Open dynamic registrations per address and hour (`LATCH_RATE_LIMIT_REGISTRATION`, default 20); 0: off. */
  readonly registrationsPerAddressPerHour: number;
  /**
   * Requests of any outcome to the registration endpoints (RFC 7591 and RFC 7592) per address and window
   * (`LATCH_RATE_LIMIT_REGISTRATION_REQUESTS`, default 1,200): wrong tokens and bad metadata included; 0: off.
   */
  readonly registrationRequestsPerAddress: number;
  /**
   * A client that registered itself (RFC 7591) and has had no successful token exchange this long after registering
   * is removed by the periodic cleanup (`LATCH_REGISTRATION_UNUSED_SECONDS`, default 86400 = one day).
   */
  readonly unusedRegistrationSeconds: number;
  /**
   * Open registration stops taking new clients while this many self-registered clients have had no token exchange
   * yet (`LATCH_REGISTRATION_MAX_UNUSED`, default 1000; 0: no cap): the table cannot be filled faster than the
   * cleanup empties it, whatever addresses the registrations come from.
   */
  readonly maxUnusedRegistrations: number;
}

type IntegerReader = (name: string, fallback: number, min: number, max: number) => number;

export function parseLimits(integer: IntegerReader): LimitSettings {
  return {
    windowSeconds: integer('LATCH_RATE_LIMIT_WINDOW_SECONDS', 60, 1, 3600),
    tokenPerClient: integer('LATCH_RATE_LIMIT_TOKEN', 1_200_000, 0, 1_000_000_000),
    clientAuthFailures: integer('LATCH_RATE_LIMIT_CLIENT_AUTH_FAILURES', 100, 0, 1_000_000_000),
    clientAuthFailuresPerAddress: integer('LATCH_RATE_LIMIT_CLIENT_AUTH_FAILURES_PER_ADDRESS', 1000, 0, 1_000_000_000),
    authorizePerAddress: integer('LATCH_RATE_LIMIT_AUTHORIZE', 300_000, 0, 1_000_000_000),
    pagesPerAddress: integer('LATCH_RATE_LIMIT_PAGES', 30_000, 0, 1_000_000_000),
    registrationsPerAddressPerHour: integer('LATCH_RATE_LIMIT_REGISTRATION', 20, 0, 1_000_000),
    registrationRequestsPerAddress: integer('LATCH_RATE_LIMIT_REGISTRATION_REQUESTS', 1200, 0, 1_000_000_000),
    unusedRegistrationSeconds: integer('LATCH_REGISTRATION_UNUSED_SECONDS', 86400, 60, 365 * 86400),
    maxUnusedRegistrations: integer('LATCH_REGISTRATION_MAX_UNUSED', 1000, 0, 10_000_000),
  };
}
