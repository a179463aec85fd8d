/**
 * Latch configuration: one typed object, read once at start from the environment.
 *
 * Every option documents its default next to its definition (as node-oidc-provider's defaults.js does).
 * `loadConfig` validates the whole environment and throws one error listing every problem, so that a
 * misconfigured deployment fails at boot rather than on the first request.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { sqlitePath } from './storage/database-url.js';
import { parseLimits, type LimitSettings } from './config-limits.js';
import { parseBrand, type BrandSettings } from './config-brand.js';

/** Read once at start and never changed: everything built from it (the app, its cookies, its metadata) stays true. */
export interface Config {
  /**
   * Public base URL of this Latch (`LATCH_ISSUER`, default `http://localhost:3000`). Every URL Latch prints or
   * redirects to derives from it; it is the `iss` of RFC 9207 authorization responses and of id_tokens.
   * Kept byte-identical to what was configured, without a trailing slash (OIDC Discovery §3).
   */
  readonly issuer: string;
  /** TCP port (`PORT`, default 3000). */
  readonly port: number;
  /** Interface to bind (`HOST`, default `127.0.0.1`). */
  readonly host: string;
  /** `LATCH_DATABASE_URL`, default `sqlite:data/latch.db`; `postgres://…` for PostgreSQL. */
  readonly databaseUrl: string;
  /**
   * Master secret (`LATCH_SECRET`, at least 32 characters). Keys the CSRF tokens and encrypts signing keys at
   * rest. When unset on the embedded default, one is generated once into the data folder (`data/secret`).
   */
  readonly secret: string;
  /**
   * Access token lifetime (`LATCH_ACCESS_TOKEN_TTL_SECONDS`, default 3600 as in the service's reference response;
   * docs/protocol-decisions.md "Lifetimes").
   */
  readonly accessTokenTtlSeconds: number;
  /**
   * Refresh tokens (RFC 6749 §6; docs/protocol-decisions.md "Refresh tokens"): how long after a refresh token was
   * rotated a retry of it still gets the same answer (`LATCH_REFRESH_TOKEN_REUSE_GRACE_SECONDS`, default 60; a
   * lost response, two tabs); any later reuse revokes the grant (RFC 9700 §4.14.2).
   */
  readonly refreshTokenReuseGraceSeconds: number;
  /** A refresh token unused this long expires (`LATCH_REFRESH_TOKEN_IDLE_SECONDS`, default 30 days). */
  readonly refreshTokenIdleSeconds: number;
  /** No refresh of a grant outlives this, from the code exchange (`LATCH_REFRESH_TOKEN_MAX_SECONDS`, default 365 days). */
  readonly refreshTokenMaxSeconds: number;
  /** id_token lifetime (`LATCH_ID_TOKEN_TTL_SECONDS`, default 3600; OIDC Core §2 `exp`). Also how long a retired signing key stays published. */
  readonly idTokenTtlSeconds: number;
  /**
   * How long `latch keys rotate` publishes a new signing key before it signs (`LATCH_SIGNING_KEY_LEAD_SECONDS`,
   * default 3600). Keep it above the key refresh interval plus the JWKS cache lifetime (300 s), so that every
   * process and every client that caches the JWKS knows a key before it sees a token signed with it.
   */
  readonly signingKeyLeadSeconds: number;
  /** How often each process reloads the signing keys from the database (`LATCH_SIGNING_KEY_REFRESH_SECONDS`, default 60). */
  readonly signingKeyRefreshSeconds: number;
  /** Authorization code lifetime (`LATCH_AUTHORIZATION_CODE_TTL_SECONDS`, default 60; RFC 6749 §4.1.2 says ≤ 10 min). */
  readonly authorizationCodeTtlSeconds: number;
  /**
   * Device code and user code lifetime (`LATCH_DEVICE_CODE_TTL_SECONDS`, default 600 = 10 minutes; RFC 8628 §3.2
   * `expires_in`): long enough to find a phone and sign in, short enough that a user code cannot be guessed in time.
   */
  readonly deviceCodeTtlSeconds: number;
  /** The polling interval a device is told to wait between token requests (`LATCH_DEVICE_POLL_INTERVAL_SECONDS`, default 5; RFC 8628 §3.2 `interval`). */
  readonly devicePollIntervalSeconds: number;
  /** Browser session lifetime after sign-in (`LATCH_SESSION_TTL_SECONDS`, default 86400 = one day). */
  readonly sessionTtlSeconds: number;
  /**
   * Development mode (`LATCH_DEV_MODE=1`, default off). Allows `http` redirect URIs to non-loopback hosts,
   * which RFC 9700 §2.6 forbids in production because codes would travel in clear text.
   */
  readonly developmentMode: boolean;
  /** Failed sign-ins allowed per account per window before it is throttled (`LATCH_SIGNIN_MAX_FAILURES_PER_ACCOUNT`, default 5). */
  readonly signInMaxFailuresPerAccount: number;
  /** Failed sign-ins allowed per client address per window (`LATCH_SIGNIN_MAX_FAILURES_PER_ADDRESS`, default 30). */
  readonly signInMaxFailuresPerAddress: number;
  /** Length of the sign-in throttling window (`LATCH_SIGNIN_WINDOW_SECONDS`, default 900). */
  readonly signInWindowSeconds: number;
  /** Trust `X-Forwarded-*` from a reverse proxy (`LATCH_TRUST_PROXY=1`, default off). */
  readonly trustProxy: boolean;
  /** pino log level (`LATCH_LOG_LEVEL`, default `info`). */
  readonly logLevel: string;
  /**
   * PostgreSQL connections per process (`LATCH_DATABASE_POOL_SIZE`, default 10). With N processes the server
   * sees up to N × this many connections: keep the sum under PostgreSQL's `max_connections` (default 100).
   */
  readonly databasePoolSize: number;
  /**
   * PostgreSQL `statement_timeout` in milliseconds (`LATCH_DATABASE_STATEMENT_TIMEOUT_MS`, default 10000; 0 turns
   * it off). Bounds how long one request can hold a connection when the database is slow or a lock is stuck.
   */
  readonly databaseStatementTimeoutMs: number;
  /**
   * PostgreSQL schema to use (`LATCH_DATABASE_SCHEMA`, default: the connection's own search_path, usually
   * `public`). Created by the migrations when missing. Lets several Latch installations share one database.
   */
  readonly databaseSchema: string | null;
  /**
   * PostgreSQL: run the hot queries as named prepared statements, parsed and planned once per connection
   * (`LATCH_DATABASE_PREPARED_STATEMENTS`, default on; storage/postgres/postgres-executor.ts). Off for a
   * connection pooler that cannot keep them, e.g. PgBouncer in transaction mode before 1.21 or without
   * `max_prepared_statements`.
   */
  readonly databasePreparedStatements: boolean;
  /**
   * PostgreSQL: the longest a committed change can go unheard by a process serving cached reads (an access token at
   * userinfo, a client, a consent, a session) (`LATCH_CACHE_MAX_STALENESS_MS`, default 1000; 0 turns the caches
   * off). Every change to a cached row announces itself from its own transaction, through LISTEN/NOTIFY, and reaches
   * every process at once; a heartbeat proves the channel alive, and while none has come back within this, nothing
   * cached is used (storage/postgres/notify-signal.ts).
   */
  readonly cacheMaxStalenessMs: number;
  /**
   * Redis URL (`LATCH_REDIS_URL`, default unset). When set, sign-in throttling counters live in Redis and are
   * shared by every process; when unset they are kept in memory, per process.
   */
  readonly redisUrl: string | null;
  /** Prefix of every Redis key Latch writes (`LATCH_REDIS_KEY_PREFIX`, default `latch:`), so that installations can share one Redis. */
  readonly redisKeyPrefix: string;
  /**
   * Longest wait for requests in flight at shutdown (`LATCH_SHUTDOWN_TIMEOUT_SECONDS`, default 10), after which
   * the process exits anyway. Keep it below the orchestrator's kill grace period (Kubernetes: 30 s).
   */
  readonly shutdownTimeoutSeconds: number;
  /**
   * Whether anyone may create an account at /signup (`LATCH_SIGNUP_ENABLED`, default on). Turn it off for
   * invite-only deployments; accounts are then made with `latch user create`.
   */
  readonly signupEnabled: boolean;
  /**
   * SMTP server for outgoing mail (`LATCH_SMTP_URL`, e.g. `smtps://user:pass@smtp.example.com:465`; default
   * unset). Unset: mails are kept in Latch's local outbox and printed to the log, and on a local issuer the
   * development page /dev/outbox shows them, so that sign-up and password reset work on one machine.
   */
  readonly smtpUrl: string | null;
  /** Sender of Latch's mails (`LATCH_MAIL_FROM`, default `<brand name> <no-reply@HOST>` with the issuer's host). */
  readonly mailFrom: string;
  /** How long an email verification link works (`LATCH_EMAIL_VERIFICATION_TTL_SECONDS`, default 86400). */
  readonly emailVerificationTtlSeconds: number;
  /** How long a password reset link works (`LATCH_PASSWORD_RESET_TTL_SECONDS`, default 3600; OWASP Forgot Password Cheat Sheet). */
  readonly passwordResetTtlSeconds: number;
  /**
   * How long a client's previous secret keeps working after a rotation in the developer console
   * (`LATCH_SECRET_ROTATION_GRACE_SECONDS`, default 86400), so that deployments can roll the new one out.
   */
  readonly secretRotationGraceSeconds: number;
  /**
   * Longest time a request may take to arrive, headers and body (`LATCH_REQUEST_TIMEOUT_SECONDS`, default 60).
   * A client that stops sending half-way (slowloris, a body shorter than its Content-Length) is answered 408
   * and its connection closed, instead of holding it forever. Counted until the request has arrived, not while
   * Latch works on it.
   */
  readonly requestTimeoutSeconds: number;
  /**
   * How long an idle keep-alive connection stays open (`LATCH_KEEP_ALIVE_TIMEOUT_SECONDS`, default 72). Keep it
   * above the idle timeout of any load balancer in front (AWS ALB and most others: 60 s): the balancer must
   * be the one that closes an idle connection, or it may send a request on one Latch is closing at that
   * instant and answer its client 502.
   */
  readonly keepAliveTimeoutSeconds: number;
  /**
   * SQLite durability (`LATCH_SQLITE_SYNCHRONOUS`, `normal` or `full`, default `normal`). In WAL mode `normal`
   * survives a crash of the process (every acknowledged write is in the WAL); `full` also survives a power
   * loss or an OS crash, at the cost of an fsync per commit (BENCHMARKS.md, "SQLite durability: normal and full").
   */
  readonly sqliteSynchronous: 'normal' | 'full';
  /**
   * Let Latch's own outbound requests (back-channel logout; later webhooks and metadata fetches) reach loopback,
   * private, link-local and other special-purpose addresses (`LATCH_OUTBOUND_ALLOW_PRIVATE=1`, default off).
   * Off, a URL that resolves to one is refused (server-side request forgery: http/outbound-request.ts). For
   * tests and development only, where the receiving app runs on the same machine or network.
   */
  readonly outboundAllowPrivate: boolean;
  /**
   * Prometheus metrics (`LATCH_METRICS_PORT`, default unset: off). Set, `GET /metrics` is served on a listener of
   * its own at this port, never on the main one (README "Metrics"); 0 picks a free port (tests). With
   * `latch serve --workers N` the primary serves it, with every worker's metrics (observability/cluster-metrics.ts).
   */
  readonly metricsPort: number | null;
  /**
   * Interface the metrics listener binds (`LATCH_METRICS_HOST`, default `127.0.0.1`): only this machine can
   * scrape unless the operator chooses an interface the scraper reaches. The metrics carry no secrets, but
   * request counts and timings are nobody else's business.
   */
  readonly metricsHost: string;
  /**
   * `Server-Timing` on successful token and userinfo responses (`LATCH_SERVER_TIMING=1`, default off): the time
   * spent in the database, signing, and in all (W3C Server Timing). Never on a failed request: per-phase
   * timings of a refused client authentication would be a side channel (observability/server-timing.ts).
   */
  readonly serverTiming: boolean;
  /**
   * OpenTelemetry tracing, from the standard `OTEL_*` variables (README "Tracing"); null (off, nothing loaded)
   * unless `OTEL_EXPORTER_OTLP_ENDPOINT`, `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` or `OTEL_TRACES_EXPORTER=otlp` asks
   * for it, and off whenever `OTEL_SDK_DISABLED=true` or `OTEL_TRACES_EXPORTER=none`.
   */
  readonly tracing: TracingSettings | null;
  /**
   * How long audit events are kept (`LATCH_AUDIT_RETENTION_DAYS`, default 90; 1 to 3650). Older ones are deleted
   * in batches by the periodic cleanup (server.ts deleteExpiredRecords; README "Audit events").
   */
  readonly auditRetentionDays: number;
  /** Rate limits per endpoint class and the lifetime of unused self-registered clients (config-limits.ts). */
  readonly limits: LimitSettings;
  /**
   * The waits between a webhook's failed attempt and the next (`LATCH_WEBHOOK_RETRY_SECONDS`, seconds separated
   * by commas; default `30,120,600,3600,21600`: six attempts over about seven hours; `none`: no retries). Tests
   * set short ones (docs/protocol-decisions.md "Webhooks").
   */
  readonly webhookRetrySeconds: readonly number[];
  /**
   * Dynamic Client Registration at POST /oauth2/register (`LATCH_REGISTRATION`, RFC 7591; docs/protocol-decisions.md
   * "Dynamic client registration"): `off` (default: refused), `token` (callers present the initial access token
   * `LATCH_REGISTRATION_TOKEN` as a Bearer token), `open` (anyone, for public clients only).
   */
  readonly registration: 'off' | 'token' | 'open';
  /** `LATCH_REGISTRATION_TOKEN`: the initial access token of `token` mode (at least 32 characters); null otherwise. */
  readonly registrationToken: string | null;
  /**
   * Client ID Metadata Documents (`LATCH_CIMD=1`, default off; docs/protocol-decisions.md "Client ID Metadata
   * Documents"): a client_id that is an https URL is resolved by fetching the client's metadata document from it.
   */
  readonly cimd: boolean;
  /**
   * The operator's product name, logo, accent colour, favicon and footer links (`LATCH_BRAND_*`, config-brand.ts;
   * README "Branding"). Defaults: the name Latch, its blue, its own favicon, no logo and no footer links.
   */
  readonly brand: BrandSettings;
  /**
   * Derived, not read: the issuer is https. Cookies are then Secure with the __Host- prefix (RFC 6265bis
   * §4.1.3.2) and responses carry Strict-Transport-Security (RFC 6797).
   */
  readonly secureCookies: boolean;
}

/** OpenTelemetry settings as the OTel specification names them ("Environment Variable Specification"). */
export interface TracingSettings {
  /** Where spans are sent, OTLP over HTTP with JSON bodies: the traces endpoint, or the base endpoint + /v1/traces. */
  readonly tracesEndpoint: string;
  /** `OTEL_SERVICE_NAME`, else service.name of `OTEL_RESOURCE_ATTRIBUTES`, else `latch`. */
  readonly serviceName: string;
  /** `OTEL_RESOURCE_ATTRIBUTES` (key=value,…; values percent-decoded). */
  readonly resourceAttributes: Readonly<Record<string, string>>;
  /** `OTEL_TRACES_SAMPLER` (default parentbased_always_on) and, for the ratio samplers, `OTEL_TRACES_SAMPLER_ARG` (default 1). */
  readonly sampler: TraceSampler;
  readonly samplerRatio: number;
}

export const TRACE_SAMPLERS = ['always_on', 'always_off', 'traceidratio', 'parentbased_always_on', 'parentbased_always_off', 'parentbased_traceidratio'] as const;
export type TraceSampler = (typeof TRACE_SAMPLERS)[number];

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n  - ${problems.join('\n  - ')}`);
  }
}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const problems: string[] = [];

  const integer = (name: string, fallback: number, min: number, max: number): number => {
    const raw = env[name];
    if (raw === undefined || raw === '') return fallback;
    const value = Number(raw);
    if (!Number.isInteger(value) || value < min || value > max) {
      problems.push(`${name} must be an integer between ${min} and ${max} (got "${raw}")`);
      return fallback;
    }
    return value;
  };
  const flag = (name: string): boolean => {
    const raw = (env[name] ?? '').toLowerCase();
    if (raw === '' || raw === '0' || raw === 'false' || raw === 'no') return false;
    if (raw === '1' || raw === 'true' || raw === 'yes') return true;
    problems.push(`${name} must be 1/true/yes or 0/false/no (got "${env[name]}")`);
    return false;
  };

  const issuer = parseIssuer(env.LATCH_ISSUER ?? 'http://localhost:3000', problems);
  const databaseUrl = env.LATCH_DATABASE_URL || 'sqlite:data/latch.db';
  if (!/^(sqlite:|postgres:\/\/|postgresql:\/\/)/.test(databaseUrl)) {
    problems.push(`LATCH_DATABASE_URL must start with sqlite: or postgres:// (got "${databaseUrl}")`);
  }
  const databaseSchema = env.LATCH_DATABASE_SCHEMA || null;
  if (databaseSchema !== null && !/^[a-z_][a-z0-9_]{0,62}$/.test(databaseSchema)) {
    problems.push(`LATCH_DATABASE_SCHEMA must be a lower-case SQL identifier (letters, digits, _) (got "${databaseSchema}")`);
  }
  if (databaseSchema !== null && sqlitePath(databaseUrl) !== null) problems.push('LATCH_DATABASE_SCHEMA applies to PostgreSQL only');
  const redisUrl = env.LATCH_REDIS_URL || null;
  if (redisUrl !== null && !/^rediss?:\/\//.test(redisUrl)) problems.push(`LATCH_REDIS_URL must start with redis:// or rediss:// (got "${redisUrl}")`);
  const sqliteSynchronous = (env.LATCH_SQLITE_SYNCHRONOUS || 'normal').toLowerCase();
  if (sqliteSynchronous !== 'normal' && sqliteSynchronous !== 'full') {
    problems.push(`LATCH_SQLITE_SYNCHRONOUS must be normal or full (got "${env.LATCH_SQLITE_SYNCHRONOUS}")`);
  }
  const logLevel = env.LATCH_LOG_LEVEL || 'info';
  if (!LOG_LEVELS.includes(logLevel)) problems.push(`LATCH_LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}`);

  // Footer links may be http:// only on an http:// (development) issuer.
  const brand = parseBrand(env, { linksMayBeHttp: issuer.startsWith('http:') }, problems);
  const config: Omit<Config, 'secret' | 'secureCookies'> = {
    issuer,
    port: integer('PORT', 3000, 0, 65535),
    host: env.HOST || '127.0.0.1',
    databaseUrl,
    accessTokenTtlSeconds: integer('LATCH_ACCESS_TOKEN_TTL_SECONDS', 3600, 1, 86400),
    refreshTokenReuseGraceSeconds: integer('LATCH_REFRESH_TOKEN_REUSE_GRACE_SECONDS', 60, 0, 3600),
    refreshTokenIdleSeconds: integer('LATCH_REFRESH_TOKEN_IDLE_SECONDS', 30 * 86400, 60, 5 * 365 * 86400),
    refreshTokenMaxSeconds: integer('LATCH_REFRESH_TOKEN_MAX_SECONDS', 365 * 86400, 60, 10 * 365 * 86400),
    idTokenTtlSeconds: integer('LATCH_ID_TOKEN_TTL_SECONDS', 3600, 60, 86400),
    signingKeyLeadSeconds: integer('LATCH_SIGNING_KEY_LEAD_SECONDS', 3600, 0, 30 * 86400),
    signingKeyRefreshSeconds: integer('LATCH_SIGNING_KEY_REFRESH_SECONDS', 60, 1, 3600),
    authorizationCodeTtlSeconds: integer('LATCH_AUTHORIZATION_CODE_TTL_SECONDS', 60, 1, 600),
    deviceCodeTtlSeconds: integer('LATCH_DEVICE_CODE_TTL_SECONDS', 600, 10, 1800),
    devicePollIntervalSeconds: integer('LATCH_DEVICE_POLL_INTERVAL_SECONDS', 5, 1, 60),
    sessionTtlSeconds: integer('LATCH_SESSION_TTL_SECONDS', 86400, 300, 90 * 86400),
    developmentMode: flag('LATCH_DEV_MODE'),
    signInMaxFailuresPerAccount: integer('LATCH_SIGNIN_MAX_FAILURES_PER_ACCOUNT', 5, 1, 1000),
    signInMaxFailuresPerAddress: integer('LATCH_SIGNIN_MAX_FAILURES_PER_ADDRESS', 30, 1, 100000),
    signInWindowSeconds: integer('LATCH_SIGNIN_WINDOW_SECONDS', 900, 1, 86400),
    trustProxy: flag('LATCH_TRUST_PROXY'),
    logLevel,
    databasePoolSize: integer('LATCH_DATABASE_POOL_SIZE', 10, 1, 1000),
    databaseStatementTimeoutMs: integer('LATCH_DATABASE_STATEMENT_TIMEOUT_MS', 10_000, 0, 3_600_000),
    databaseSchema,
    databasePreparedStatements: env.LATCH_DATABASE_PREPARED_STATEMENTS === undefined || env.LATCH_DATABASE_PREPARED_STATEMENTS === '' ? true : flag('LATCH_DATABASE_PREPARED_STATEMENTS'),
    cacheMaxStalenessMs: integer('LATCH_CACHE_MAX_STALENESS_MS', 1000, 0, 60_000),
    redisUrl,
    redisKeyPrefix: env.LATCH_REDIS_KEY_PREFIX || 'latch:',
    shutdownTimeoutSeconds: integer('LATCH_SHUTDOWN_TIMEOUT_SECONDS', 10, 1, 3600),
    signupEnabled: env.LATCH_SIGNUP_ENABLED === undefined || env.LATCH_SIGNUP_ENABLED === '' ? true : flag('LATCH_SIGNUP_ENABLED'),
    smtpUrl: parseSmtpUrl(env.LATCH_SMTP_URL, problems),
    mailFrom: env.LATCH_MAIL_FROM || `${mailDisplayName(brand.name)} <no-reply@${hostOf(issuer)}>`,
    emailVerificationTtlSeconds: integer('LATCH_EMAIL_VERIFICATION_TTL_SECONDS', 86400, 300, 30 * 86400),
    passwordResetTtlSeconds: integer('LATCH_PASSWORD_RESET_TTL_SECONDS', 3600, 300, 86400),
    secretRotationGraceSeconds: integer('LATCH_SECRET_ROTATION_GRACE_SECONDS', 86400, 0, 30 * 86400),
    requestTimeoutSeconds: integer('LATCH_REQUEST_TIMEOUT_SECONDS', 60, 1, 3600),
    keepAliveTimeoutSeconds: integer('LATCH_KEEP_ALIVE_TIMEOUT_SECONDS', 72, 1, 3600),
    sqliteSynchronous: sqliteSynchronous === 'full' ? 'full' : 'normal',
    outboundAllowPrivate: flag('LATCH_OUTBOUND_ALLOW_PRIVATE'),
    metricsPort: env.LATCH_METRICS_PORT === undefined || env.LATCH_METRICS_PORT === '' ? null : integer('LATCH_METRICS_PORT', 0, 0, 65535),
    metricsHost: env.LATCH_METRICS_HOST || '127.0.0.1',
    serverTiming: flag('LATCH_SERVER_TIMING'),
    tracing: parseTracing(env, problems),
    auditRetentionDays: integer('LATCH_AUDIT_RETENTION_DAYS', 90, 1, 3650),
    limits: parseLimits(integer),
    webhookRetrySeconds: parseWebhookRetrySeconds(env.LATCH_WEBHOOK_RETRY_SECONDS, problems),
    ...parseRegistration(env, problems),
    cimd: flag('LATCH_CIMD'),
    brand,
  };
  if (config.metricsPort !== null && config.metricsPort === config.port && config.port !== 0) {
    problems.push(`LATCH_METRICS_PORT must differ from PORT (${config.port}): metrics have a listener of their own`);
  }
  const secret = resolveSecret(env.LATCH_SECRET, databaseUrl, problems);

  if (problems.length > 0) throw new ConfigError(problems);
  return { ...config, secret, secureCookies: issuer.startsWith('https:') };
}

const DEFAULT_WEBHOOK_RETRY_SECONDS = [30, 120, 600, 3600, 21600];

function parseWebhookRetrySeconds(value: string | undefined, problems: string[]): readonly number[] {
  if (value === undefined || value.trim() === '') return DEFAULT_WEBHOOK_RETRY_SECONDS;
  if (value.trim() === 'none') return [];
  const delays = value.split(',').map((part) => part.trim());
  if (delays.length > 20 || !delays.every((delay) => /^\d{1,6}$/.test(delay) && Number(delay) >= 1 && Number(delay) <= 7 * 86400)) {
    problems.push('LATCH_WEBHOOK_RETRY_SECONDS must be at most 20 waits in seconds (1 to 604800) separated by commas, e.g. 30,120,600, or none');
    return DEFAULT_WEBHOOK_RETRY_SECONDS;
  }
  return delays.map(Number);
}

function parseRegistration(env: NodeJS.ProcessEnv, problems: string[]): Pick<Config, 'registration' | 'registrationToken'> {
  const mode = env.LATCH_REGISTRATION || 'off';
  if (mode !== 'off' && mode !== 'token' && mode !== 'open') {
    problems.push(`LATCH_REGISTRATION must be off, token or open (got "${mode}")`);
    return { registration: 'off', registrationToken: null };
  }
  const token = env.LATCH_REGISTRATION_TOKEN || null;
  // Tokens can also be made with `latch registration-token create` (stored as hashes): the variable is optional,
  // but one that is set must be strong.
  if (mode === 'token' && token !== null && token.length < 32) {
    problems.push('LATCH_REGISTRATION_TOKEN must be at least 32 random characters (openssl rand -base64 32), or left unset and tokens made with `latch registration-token create`');
  }
  return { registration: mode, registrationToken: mode === 'token' ? token : null };
}

function parseIssuer(raw: string, problems: string[]): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    problems.push(`LATCH_ISSUER must be an absolute URL (got "${raw}")`);
    return raw;
  }
  // OIDC Discovery §3 / RFC 8414 §2: https scheme, no query or fragment. http is tolerated for local use.
  if (url.protocol !== 'https:' && url.protocol !== 'http:') problems.push('LATCH_ISSUER must use https (or http for local use)');
  if (url.search || url.hash) problems.push('LATCH_ISSUER must not have a query or fragment');
  return raw.replace(/\/+$/, '');
}

/**
 * Tracing from the standard OTEL_* variables (OpenTelemetry "SDK Environment Variables" and "OTLP Exporter
 * Configuration"). Latch exports with OTLP over HTTP only (JSON bodies, which every OTLP/HTTP receiver accepts
 * beside protobuf); grpc and other exporters are refused at start rather than silently not sending.
 */
function parseTracing(env: NodeJS.ProcessEnv, problems: string[]): TracingSettings | null {
  if ((env.OTEL_SDK_DISABLED ?? '').trim().toLowerCase() === 'true') return null;
  const exporters = (env.OTEL_TRACES_EXPORTER ?? '').split(',').map((name) => name.trim().toLowerCase()).filter(Boolean);
  if (exporters.includes('none')) return null;
  const unsupported = exporters.filter((name) => name !== 'otlp');
  if (unsupported.length > 0) problems.push(`OTEL_TRACES_EXPORTER: Latch exports traces with otlp only (got "${env.OTEL_TRACES_EXPORTER}")`);
  const tracesEndpoint = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT || undefined;
  const baseEndpoint = env.OTEL_EXPORTER_OTLP_ENDPOINT || undefined;
  if (!tracesEndpoint && !baseEndpoint && !exporters.includes('otlp')) return null;
  // The signal-specific endpoint is used as it is; the base one gets the signal's path appended (OTLP spec).
  const endpoint = tracesEndpoint ?? (baseEndpoint ? `${baseEndpoint.replace(/\/+$/, '')}/v1/traces` : 'http://localhost:4318/v1/traces');
  if (!/^https?:\/\/[^/]/.test(endpoint)) problems.push(`the OTLP traces endpoint must be an http:// or https:// URL (got "${endpoint}")`);
  const protocol = env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL || env.OTEL_EXPORTER_OTLP_PROTOCOL || 'http/protobuf';
  if (protocol !== 'http/protobuf' && protocol !== 'http/json') {
    problems.push(`OTEL_EXPORTER_OTLP_PROTOCOL: Latch sends traces over OTLP/HTTP (http/json or http/protobuf), not ${protocol}`);
  }
  const resourceAttributes: Record<string, string> = {};
  for (const pair of (env.OTEL_RESOURCE_ATTRIBUTES ?? '').split(',')) {
    const equals = pair.indexOf('=');
    if (equals <= 0) continue;
    try {
      resourceAttributes[pair.slice(0, equals).trim()] = decodeURIComponent(pair.slice(equals + 1).trim());
    } catch {
      problems.push(`OTEL_RESOURCE_ATTRIBUTES: the value of ${pair.slice(0, equals).trim()} is not percent-encoded correctly`);
    }
  }
  const sampler = (env.OTEL_TRACES_SAMPLER || 'parentbased_always_on').toLowerCase() as TraceSampler;
  if (!TRACE_SAMPLERS.includes(sampler)) problems.push(`OTEL_TRACES_SAMPLER must be one of ${TRACE_SAMPLERS.join(', ')} (got "${env.OTEL_TRACES_SAMPLER}")`);
  const ratioText = sampler.endsWith('traceidratio') ? env.OTEL_TRACES_SAMPLER_ARG : undefined;
  const samplerRatio = ratioText === undefined || ratioText === '' ? 1 : Number(ratioText);
  if (!(samplerRatio >= 0 && samplerRatio <= 1)) problems.push(`OTEL_TRACES_SAMPLER_ARG must be a number from 0 to 1 (got "${ratioText}")`);
  return {
    tracesEndpoint: endpoint,
    serviceName: env.OTEL_SERVICE_NAME || resourceAttributes['service.name'] || 'latch',
    resourceAttributes,
    sampler,
    samplerRatio,
  };
}

function parseSmtpUrl(raw: string | undefined, problems: string[]): string | null {
  if (raw === undefined || raw === '') return null;
  try {
    const url = new URL(raw);
    if (url.protocol !== 'smtp:' && url.protocol !== 'smtps:') problems.push('LATCH_SMTP_URL must start with smtp:// or smtps://');
  } catch {
    problems.push('LATCH_SMTP_URL must be a URL like smtps://user:password@smtp.example.com:465');
  }
  return raw;
}

/** The brand name as a mail display name: quoted (RFC 5322 §3.2.4) when it has anything but letters, digits and spaces. */
function mailDisplayName(name: string): string {
  return /^[\p{L}\p{N} ]+$/u.test(name) ? name : `"${name.replace(/["\\]/g, (c) => `\\${c}`)}"`;
}

function hostOf(issuer: string): string {
  try {
    return new URL(issuer).hostname || 'localhost';
  } catch {
    return 'localhost';
  }
}

/** True when the issuer is on this machine (localhost or a loopback address): development-only pages may be shown. */
export function issuerIsLocal(issuer: string): boolean {
  const host = hostOf(issuer);
  return host === 'localhost' || host === '[::1]' || /^127(\.\d{1,3}){3}$/.test(host);
}

function resolveSecret(fromEnv: string | undefined, databaseUrl: string, problems: string[]): string {
  if (fromEnv) {
    if (fromEnv.length < 32) problems.push('LATCH_SECRET must be at least 32 characters long');
    return fromEnv;
  }
  const path = sqlitePath(databaseUrl);
  if (path === null) {
    problems.push('LATCH_SECRET is required with PostgreSQL: every process must share the same secret');
    return '';
  }
  if (path === ':memory:') return randomBytes(32).toString('base64url');
  // Embedded default: generate one secret, once, beside the database, readable only by this user.
  const secretFile = resolve(dirname(path), 'secret');
  if (existsSync(secretFile)) return readFileSync(secretFile, 'utf8').trim();
  mkdirSync(dirname(secretFile), { recursive: true });
  const secret = randomBytes(32).toString('base64url');
  try {
    writeFileSync(secretFile, `${secret}\n`, { mode: 0o600, flag: 'wx' });
    return secret;
  } catch (error) {
    // Another process started at the same moment and wrote it first: use theirs.
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return readFileSync(secretFile, 'utf8').trim();
    throw error;
  }
}
