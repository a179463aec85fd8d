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

export interface Config {
  /**
   * Public base URL of this Latch (`LATCH_ISSUER`, default `http://localhost:3000`). Every URL Latch prints or
   * redirects to derives from it; it is the `iss` of RFC 9207 authorization responses and of id_tokens.
   * Kept byte-identical to what was configured, without a trailing slash (OIDC Discovery §3).
   */
  issuer: string;
  /** TCP port (`PORT`, default 3000). */
  port: number;
  /** Interface to bind (`HOST`, default `127.0.0.1`). */
  host: string;
  /** `LATCH_DATABASE_URL`, default `sqlite:data/latch.db`; `postgres://…` for PostgreSQL. */
  databaseUrl: string;
  /**
   * Master secret (`LATCH_SECRET`, at least 32 characters). Keys the CSRF tokens and encrypts signing keys at
   * rest. When unset on the embedded default, one is generated once into the data folder (`data/secret`).
   */
  secret: string;
  /** Access token lifetime (`LATCH_ACCESS_TOKEN_TTL_SECONDS`, default 3600 as in spec §8). */
  accessTokenTtlSeconds: number;
  /** id_token lifetime (`LATCH_ID_TOKEN_TTL_SECONDS`, default 3600; OIDC Core §2 `exp`). Also how long a retired signing key stays published. */
  idTokenTtlSeconds: number;
  /**
   * How long `latch keys rotate` publishes a new signing key before it signs (`LATCH_SIGNING_KEY_LEAD_SECONDS`,
   * default 3600). Keep it above the key refresh interval plus the JWKS cache lifetime (300 s), so that every
   * process and every client that caches the JWKS knows a key before it sees a token signed with it.
   */
  signingKeyLeadSeconds: number;
  /** How often each process reloads the signing keys from the database (`LATCH_SIGNING_KEY_REFRESH_SECONDS`, default 60). */
  signingKeyRefreshSeconds: number;
  /** Authorization code lifetime (`LATCH_AUTHORIZATION_CODE_TTL_SECONDS`, default 60; RFC 6749 §4.1.2 says ≤ 10 min). */
  authorizationCodeTtlSeconds: number;
  /** Browser session lifetime after sign-in (`LATCH_SESSION_TTL_SECONDS`, default 86400 = one day). */
  sessionTtlSeconds: number;
  /**
   * Development mode (`LATCH_DEV_MODE=1`, default off). Allows `http` redirect URIs to non-loopback hosts,
   * which RFC 9700 §2.6 forbids in production because codes would travel in clear text.
   */
  developmentMode: boolean;
  /** Failed sign-ins allowed per account per window before it is throttled (`LATCH_SIGNIN_MAX_FAILURES_PER_ACCOUNT`, default 5). */
  signInMaxFailuresPerAccount: number;
  /** Failed sign-ins allowed per client address per window (`LATCH_SIGNIN_MAX_FAILURES_PER_ADDRESS`, default 30). */
  signInMaxFailuresPerAddress: number;
  /** Length of the sign-in throttling window (`LATCH_SIGNIN_WINDOW_SECONDS`, default 900). */
  signInWindowSeconds: number;
  /** Trust `X-Forwarded-*` from a reverse proxy (`LATCH_TRUST_PROXY=1`, default off). */
  trustProxy: boolean;
  /** pino log level (`LATCH_LOG_LEVEL`, default `info`). */
  logLevel: string;
  /**
   * PostgreSQL connections per process (`LATCH_DATABASE_POOL_SIZE`, default 10). With N processes the server
   * sees up to N × this many connections: keep the sum under PostgreSQL's `max_connections` (default 100).
   */
  databasePoolSize: number;
  /**
   * PostgreSQL `statement_timeout` in milliseconds (`LATCH_DATABASE_STATEMENT_TIMEOUT_MS`, default 10000; 0 turns
   * it off). Bounds how long one request can hold a connection when the database is slow or a lock is stuck.
   */
  databaseStatementTimeoutMs: number;
  /**
   * PostgreSQL schema to use (`LATCH_DATABASE_SCHEMA`, default: the connection's own search_path, usually
   * `public`). Created by the migrations when missing. Lets several Latch installations share one database.
   */
  databaseSchema: string | null;
  /**
   * Redis URL (`LATCH_REDIS_URL`, default unset). When set, sign-in throttling counters live in Redis and are
   * shared by every process; when unset they are kept in memory, per process.
   */
  redisUrl: string | null;
  /** Prefix of every Redis key Latch writes (`LATCH_REDIS_KEY_PREFIX`, default `latch:`), so that installations can share one Redis. */
  redisKeyPrefix: string;
  /**
   * Longest wait for requests in flight at shutdown (`LATCH_SHUTDOWN_TIMEOUT_SECONDS`, default 10), after which
   * the process exits anyway. Keep it below the orchestrator's kill grace period (Kubernetes: 30 s).
   */
  shutdownTimeoutSeconds: number;
  /**
   * Whether anyone may create an account at /signup (`LATCH_SIGNUP_ENABLED`, default on). Turn it off for
   * invite-only deployments; accounts are then made with `latch user create`.
   */
  signupEnabled: boolean;
  /**
   * SMTP server for outgoing mail (`LATCH_SMTP_URL`, e.g. `smtps://user:pass@smtp.example.com:465`; default
   * unset). Unset: mails are kept in Latch's local outbox and printed to the log, and on a local issuer the
   * development page /dev/outbox shows them, so that sign-up and password reset work on one machine.
   */
  smtpUrl: string | null;
  /** Sender of Latch's mails (`LATCH_MAIL_FROM`, default `Latch <no-reply@HOST>` with the issuer's host). */
  mailFrom: string;
  /** How long an email verification link works (`LATCH_EMAIL_VERIFICATION_TTL_SECONDS`, default 86400). */
  emailVerificationTtlSeconds: number;
  /** How long a password reset link works (`LATCH_PASSWORD_RESET_TTL_SECONDS`, default 3600; OWASP Forgot Password Cheat Sheet). */
  passwordResetTtlSeconds: number;
  /**
   * How long a client's previous secret keeps working after a rotation in the developer console
   * (`LATCH_SECRET_ROTATION_GRACE_SECONDS`, default 86400), so that deployments can roll the new one out.
   */
  secretRotationGraceSeconds: number;
  /**
   * Longest time a request may take to arrive, headers and body (`LATCH_REQUEST_TIMEOUT_SECONDS`, default 60).
   * A client that stops sending half-way (slowloris, a body shorter than its Content-Length) is answered 408
   * and its connection closed, instead of holding it forever. Counted until the request has arrived, not while
   * Latch works on it.
   */
  requestTimeoutSeconds: number;
  /**
   * How long an idle keep-alive connection stays open (`LATCH_KEEP_ALIVE_TIMEOUT_SECONDS`, default 72). Keep it
   * above the idle timeout of any load balancer in front (AWS ALB and most others: 60 s): the balancer must
   * be the one that closes an idle connection, or it may send a request on one Latch is closing at that
   * instant and answer its client 502.
   */
  keepAliveTimeoutSeconds: number;
  /**
   * SQLite durability (`LATCH_SQLITE_SYNCHRONOUS`, `normal` or `full`, default `normal`). In WAL mode `normal`
   * survives a crash of the process (every acknowledged write is in the WAL); `full` also survives a power
   * loss or an OS crash, at the cost of an fsync per commit (BENCHMARKS.md).
   */
  sqliteSynchronous: 'normal' | 'full';
}

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

  const config: Config = {
    issuer,
    port: integer('PORT', 3000, 0, 65535),
    host: env.HOST || '127.0.0.1',
    databaseUrl,
    secret: '',
    accessTokenTtlSeconds: integer('LATCH_ACCESS_TOKEN_TTL_SECONDS', 3600, 1, 86400),
    idTokenTtlSeconds: integer('LATCH_ID_TOKEN_TTL_SECONDS', 3600, 60, 86400),
    signingKeyLeadSeconds: integer('LATCH_SIGNING_KEY_LEAD_SECONDS', 3600, 0, 30 * 86400),
    signingKeyRefreshSeconds: integer('LATCH_SIGNING_KEY_REFRESH_SECONDS', 60, 1, 3600),
    authorizationCodeTtlSeconds: integer('LATCH_AUTHORIZATION_CODE_TTL_SECONDS', 60, 1, 600),
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
    redisUrl,
    redisKeyPrefix: env.LATCH_REDIS_KEY_PREFIX || 'latch:',
    shutdownTimeoutSeconds: integer('LATCH_SHUTDOWN_TIMEOUT_SECONDS', 10, 1, 3600),
    signupEnabled: env.LATCH_SIGNUP_ENABLED === undefined || env.LATCH_SIGNUP_ENABLED === '' ? true : flag('LATCH_SIGNUP_ENABLED'),
    smtpUrl: parseSmtpUrl(env.LATCH_SMTP_URL, problems),
    mailFrom: env.LATCH_MAIL_FROM || `Latch <no-reply@${hostOf(issuer)}>`,
    emailVerificationTtlSeconds: integer('LATCH_EMAIL_VERIFICATION_TTL_SECONDS', 86400, 300, 30 * 86400),
    passwordResetTtlSeconds: integer('LATCH_PASSWORD_RESET_TTL_SECONDS', 3600, 300, 86400),
    secretRotationGraceSeconds: integer('LATCH_SECRET_ROTATION_GRACE_SECONDS', 86400, 0, 30 * 86400),
    requestTimeoutSeconds: integer('LATCH_REQUEST_TIMEOUT_SECONDS', 60, 1, 3600),
    keepAliveTimeoutSeconds: integer('LATCH_KEEP_ALIVE_TIMEOUT_SECONDS', 72, 1, 3600),
    sqliteSynchronous: sqliteSynchronous === 'full' ? 'full' : 'normal',
  };
  config.secret = resolveSecret(env.LATCH_SECRET, databaseUrl, problems);

  if (problems.length > 0) throw new ConfigError(problems);
  return config;
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

/** The SQLite file path of a `sqlite:` URL, or null for PostgreSQL. `sqlite::memory:` is an in-memory database. */
export function sqlitePath(databaseUrl: string): string | null {
  if (!databaseUrl.startsWith('sqlite:')) return null;
  return databaseUrl.slice('sqlite:'.length).replace(/^\/\//, '');
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
