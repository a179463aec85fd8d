/**
 * The error model: one class per RFC error code, and PageError for what a person reads on Latch's own pages. Each
 * OAuth error keeps three levels of detail (as fosite does): `code` for machines, `description` safe to show the
 * client developer, and `cause` for the log only. Where an error is rendered (JSON, redirect, page) is decided by
 * the handlers in oauth/error-surfaces.ts.
 */
export type OAuthErrorCode =
  // RFC 6749 §4.1.2.1, §5.2
  | 'invalid_request'
  | 'invalid_client'
  | 'invalid_grant'
  | 'unauthorized_client'
  | 'unsupported_grant_type'
  | 'unsupported_response_type'
  | 'invalid_scope'
  // RFC 8707 §2: a resource indicator that is malformed, unknown, or not allowed here.
  | 'invalid_target'
  | 'access_denied'
  | 'server_error'
  | 'temporarily_unavailable'
  // RFC 6750 §3.1
  | 'invalid_token'
  | 'insufficient_scope'
  // OIDC Core §3.1.2.6
  | 'login_required'
  | 'consent_required'
  | 'interaction_required'
  | 'unmet_authentication_requirements'
  | 'request_not_supported'
  | 'request_uri_not_supported'
  // RFC 7591 §3.2.2
  | 'invalid_redirect_uri'
  | 'invalid_client_metadata'
  // RFC 8628 §3.5
  | 'authorization_pending'
  | 'slow_down'
  | 'expired_token';

export interface OAuthErrorOptions {
  cause?: unknown;
  /** False when the error must never be sent to a redirect_uri (unverified client or redirect_uri). */
  redirectable?: boolean;
  /** Structured detail for the client's developer console (never a secret or a code), e.g. a redirect_uri comparison. */
  details?: Record<string, unknown>;
}

/**
 * A Latch secret (client secret, token, code, session id, registration token: crypto/secrets.ts prefixes) inside
 * a text that repeats what a caller sent. Descriptions quote parameters to say what was wrong; when the caller
 * put a credential in the wrong place (a secret as client_id, a token as a code), the quote must not carry it
 * into the answer, the log or the developer console (issue 22 item 6).
 */
const LATCH_SECRET_IN_TEXT = /latch_[a-z]{2,3}_[A-Za-z0-9_-]{16,}/g;

/** The text with every Latch secret in it cut to its prefix. */
export function redactSecrets(text: string): string {
  return text.replace(LATCH_SECRET_IN_TEXT, (secret) => `${secret.slice(0, secret.indexOf('_', 6) + 1)}…(a secret, not repeated)`);
}

/** An error's structured details (JSON-like) with redactSecrets applied to every string in them. */
function redactDetails(value: unknown): unknown {
  if (typeof value === 'string') return redactSecrets(value);
  if (Array.isArray(value)) return value.map(redactDetails);
  if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, redactDetails(item)]));
  return value;
}

export class OAuthError extends Error {
  readonly redirectable: boolean;
  readonly details: Record<string, unknown> | undefined;
  /** What went wrong, for the client's developer; Latch secrets quoted in it are cut (redactSecrets). */
  readonly description: string;

  constructor(
    readonly code: OAuthErrorCode,
    readonly status: number,
    description: string,
    options: OAuthErrorOptions = {},
  ) {
    super(redactSecrets(description), options.cause === undefined ? undefined : { cause: options.cause });
    this.description = redactSecrets(description);
    this.name = new.target.name;
    this.redirectable = options.redirectable ?? true;
    this.details = options.details && (redactDetails(options.details) as Record<string, unknown>);
  }

  /** The description as it may travel in error_description (JSON, redirects, WWW-Authenticate). */
  get wireDescription(): string {
    return toErrorDescriptionCharset(this.description);
  }

  toJSON(): { error: OAuthErrorCode; error_description: string } {
    return { error: this.code, error_description: this.wireDescription };
  }
}

/**
 * RFC 6749 §4.1.2.1 and §5.2: error_description may only use %x20-21 / %x23-5B / %x5D-7E. Descriptions
 * echo what the client sent (a redirect_uri, a client_id), which can hold anything: every other character is
 * percent-encoded (UTF-8), so the value stays legible and no client parser meets a quote or a control
 * character. The log and the client's failure record keep the exact text.
 */
export function toErrorDescriptionCharset(description: string): string {
  return description.replace(/[^\x20-\x21\x23-\x5b\x5d-\x7e]/gu, (character) =>
    [...Buffer.from(character, 'utf8')].map((byte) => `%${byte.toString(16).toUpperCase().padStart(2, '0')}`).join(''),
  );
}

export class InvalidRequest extends OAuthError {
  constructor(description: string, options?: OAuthErrorOptions) {
    super('invalid_request', 400, description, options);
  }
}

/** RFC 6749 §5.2: 401 for failed client authentication; WWW-Authenticate: Basic when Basic was tried. */
export class InvalidClient extends OAuthError {
  constructor(
    description: string,
    readonly triedBasic: boolean,
    options?: OAuthErrorOptions,
  ) {
    super('invalid_client', 401, description, options);
  }
}

export class InvalidGrant extends OAuthError {
  constructor(description: string, options?: OAuthErrorOptions) {
    super('invalid_grant', 400, description, options);
  }
}

export class UnauthorizedClient extends OAuthError {
  constructor(description: string, options?: OAuthErrorOptions) {
    super('unauthorized_client', 400, description, options);
  }
}

export class UnsupportedGrantType extends OAuthError {
  constructor(description: string, options?: OAuthErrorOptions) {
    super('unsupported_grant_type', 400, description, options);
  }
}

export class UnsupportedResponseType extends OAuthError {
  constructor(description: string, options?: OAuthErrorOptions) {
    super('unsupported_response_type', 400, description, options);
  }
}

export class InvalidScope extends OAuthError {
  constructor(description: string, options?: OAuthErrorOptions) {
    super('invalid_scope', 400, description, options);
  }
}

/** RFC 8707 §2: the requested resource is invalid, unknown, or not one this request may ask for. */
export class InvalidTarget extends OAuthError {
  constructor(description: string, options?: OAuthErrorOptions) {
    super('invalid_target', 400, description, options);
  }
}

/** RFC 7591 §3.2.2: a redirect URI of a registration request is not acceptable. */
export class InvalidRedirectUri extends OAuthError {
  constructor(description: string, options?: OAuthErrorOptions) {
    super('invalid_redirect_uri', 400, description, options);
  }
}

/** RFC 7591 §3.2.2: another metadata field of a registration request is not acceptable. */
export class InvalidClientMetadata extends OAuthError {
  constructor(description: string, options?: OAuthErrorOptions) {
    super('invalid_client_metadata', 400, description, options);
  }
}

export class AccessDenied extends OAuthError {
  constructor(description: string, options?: OAuthErrorOptions) {
    super('access_denied', 403, description, options);
  }
}

/** RFC 8628 §3.5: the person has not decided yet; the device polls again after its interval. */
export class AuthorizationPending extends OAuthError {
  constructor(description: string, options?: OAuthErrorOptions) {
    super('authorization_pending', 400, description, options);
  }
}

/** RFC 8628 §3.5: the device polled sooner than its interval, which is now 5 seconds longer. */
export class SlowDown extends OAuthError {
  constructor(description: string, options?: OAuthErrorOptions) {
    super('slow_down', 400, description, options);
  }
}

/** RFC 8628 §3.5: the device code expired before it was approved and redeemed; the device starts again. */
export class ExpiredToken extends OAuthError {
  constructor(description: string, options?: OAuthErrorOptions) {
    super('expired_token', 400, description, options);
  }
}

/** RFC 8628 §3.5: the person denied the device's request. At the token endpoint, so 400 (RFC 6749 §5.2), not 403. */
export class DeviceAccessDenied extends OAuthError {
  constructor(description: string, options?: OAuthErrorOptions) {
    super('access_denied', 400, description, options);
  }
}

export class ServerError extends OAuthError {
  constructor(options?: OAuthErrorOptions) {
    super('server_error', 500, 'The server met an unexpected condition; retry later and quote the request id if it persists', options);
  }
}

export class TemporarilyUnavailable extends OAuthError {
  /** Sent as Retry-After (RFC 9110 §10.2.3) with the 503. */
  readonly retryAfterSeconds: number;

  constructor(description: string, options?: OAuthErrorOptions & { retryAfterSeconds?: number }) {
    super('temporarily_unavailable', 503, description, options);
    this.retryAfterSeconds = options?.retryAfterSeconds ?? 5;
  }
}

/** RFC 6750 §3.1: the access token is missing, unknown, expired or revoked. */
export class InvalidToken extends OAuthError {
  constructor(
    description: string,
    /** False when no token was sent at all: then the challenge carries no error (RFC 6750 §3.1). */
    readonly tokenWasSent = true,
    options?: OAuthErrorOptions,
  ) {
    super('invalid_token', 401, description, options);
  }
}

export class LoginRequired extends OAuthError {
  constructor(description: string, options?: OAuthErrorOptions) {
    super('login_required', 400, description, options);
  }
}

export class ConsentRequired extends OAuthError {
  constructor(description: string, options?: OAuthErrorOptions) {
    super('consent_required', 400, description, options);
  }
}

/**
 * OpenID Connect Unmet Authentication Requirements 1.0: the sign-in cannot reach what was required of it (a
 * client that requires a second factor, for a user who has none).
 */
export class UnmetAuthenticationRequirements extends OAuthError {
  constructor(description: string, options?: OAuthErrorOptions) {
    super('unmet_authentication_requirements', 400, description, options);
  }
}

export class InteractionRequired extends OAuthError {
  constructor(description: string, options?: OAuthErrorOptions) {
    super('interaction_required', 400, description, options);
  }
}

export class RequestNotSupported extends OAuthError {
  constructor(description: string, options?: OAuthErrorOptions) {
    super('request_not_supported', 400, description, options);
  }
}

export class RequestUriNotSupported extends OAuthError {
  constructor(description: string, options?: OAuthErrorOptions) {
    super('request_uri_not_supported', 400, description, options);
  }
}

/**
 * An error a person reads on one of Latch's own pages (sign-up turned off, an app that is not theirs, a page
 * that does not exist): the HTTP status and a sentence that says what happened and what to do. It is not an
 * OAuth error: it has no RFC code, is never sent to a client's redirect_uri, and the page surface shows it
 * without one (docs/protocol-decisions.md "Error model").
 */
export class PageError extends Error {
  /** What the person reads: what happened, and what to do about it (Latch secrets quoted in it are cut). */
  readonly description: string;
  /** The page's heading, when the status's usual one would mislead (a 403 is most often an expired form). */
  readonly heading: string | undefined;

  constructor(
    /** The HTTP status: a 4xx for what the person can act on; the page surface also wraps other errors in one. */
    readonly status: number,
    description: string,
    options: { cause?: unknown; heading?: string } = {},
  ) {
    super(redactSecrets(description), options.cause === undefined ? undefined : { cause: options.cause });
    this.description = redactSecrets(description);
    this.heading = options.heading;
    this.name = 'PageError';
  }
}
