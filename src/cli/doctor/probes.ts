/**
 * What `latch doctor` reads from outside its own configuration: the secret file, the SMTP server and Redis.
 * Each only looks: the secret file is read (never created, unlike config.ts at a first start), the SMTP server
 * is greeted and logged in to (nodemailer's verify: no mail is sent), Redis is PINGed. Errors come back as
 * reasons in words, without credentials.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { Redis } from 'ioredis';
import nodemailer from 'nodemailer';
import { sqlitePath } from '../../storage/database-url.js';
import type { Reachability } from './deployment-checks.js';
import type { SecretSource } from './secret-checks.js';

/** How long a service may take to answer before it counts as unreachable. */
const PROBE_TIMEOUT_MS = 3000;

/** The secret as config.ts would use it, found without writing anything. */
export function readSecretSource(env: NodeJS.ProcessEnv, databaseUrl: string): SecretSource {
  if (env.LATCH_SECRET) return { kind: 'environment', secret: env.LATCH_SECRET };
  const path = sqlitePath(databaseUrl);
  if (path === null) return { kind: 'missing', path: null };
  if (path === ':memory:') return { kind: 'memory' };
  // Where config.ts generates it: beside the database.
  const secretFile = resolve(dirname(path), 'secret');
  let mode: number;
  try {
    mode = statSync(secretFile).mode;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { kind: 'missing', path: secretFile, databaseExists: existsSync(path) };
    return { kind: 'unreadable-file', path: secretFile, reason: (error as NodeJS.ErrnoException).code ?? 'unreadable' };
  }
  try {
    return { kind: 'file', path: secretFile, secret: readFileSync(secretFile, 'utf8').trim(), mode };
  } catch (error) {
    return { kind: 'unreadable-file', path: secretFile, reason: (error as NodeJS.ErrnoException).code ?? 'unreadable' };
  }
}

/** host:port of a service URL, for findings: never its user name or password. */
export function serviceAddress(url: string, defaultPort: number): string {
  try {
    const parsed = new URL(url);
    return `${parsed.hostname}:${parsed.port || defaultPort}`;
  } catch {
    return '(an unparseable URL)';
  }
}

/** How a database is named in findings: the file, or PostgreSQL's host, port, database and schema, never the password. */
export function databaseLabel(databaseUrl: string, schema: string | null): string {
  const path = sqlitePath(databaseUrl);
  if (path !== null) return `sqlite:${path}`;
  try {
    const url = new URL(databaseUrl);
    return `postgres://${url.hostname}:${url.port || 5432}${url.pathname}${schema ? ` (schema ${schema})` : ''}`;
  } catch {
    return 'postgres://(an unparseable URL)';
  }
}

/** An error as a short reason: its code and message, with anything URL-like that could carry credentials removed. */
export function reasonOf(error: unknown): string {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  const text = typeof message === 'string' && message ? message.split('\n')[0]! : String(error);
  const cleaned = text.replace(/[a-z][a-z0-9+.-]*:\/\/[^\s]*/gi, (url) => url.replace(/\/\/[^@/\s]*@/, '//'));
  return typeof code === 'string' && !cleaned.includes(code) ? `${code}: ${cleaned}` : cleaned;
}

/** Greets the SMTP server and logs in when the URL has credentials (nodemailer's verify); sends nothing. */
export async function probeSmtp(smtpUrl: string): Promise<Reachability> {
  const transport = nodemailer.createTransport({
    url: smtpUrl,
    connectionTimeout: PROBE_TIMEOUT_MS,
    greetingTimeout: PROBE_TIMEOUT_MS,
    socketTimeout: PROBE_TIMEOUT_MS,
  } as Parameters<typeof nodemailer.createTransport>[0]);
  try {
    await transport.verify();
    return { reachable: true };
  } catch (error) {
    return { reachable: false, reason: reasonOf(error), refusedLogin: (error as { code?: unknown }).code === 'EAUTH' };
  } finally {
    transport.close();
  }
}

export async function probeRedis(redisUrl: string): Promise<Reachability> {
  const redis = new Redis(redisUrl, {
    lazyConnect: true,
    connectTimeout: PROBE_TIMEOUT_MS,
    commandTimeout: PROBE_TIMEOUT_MS,
    maxRetriesPerRequest: 0,
    enableOfflineQueue: false,
    retryStrategy: () => null,
  });
  // The socket's own error (ECONNREFUSED …) says more than the "Connection is closed." that connect() rejects with.
  let socketError: unknown;
  redis.on('error', (error: unknown) => (socketError ??= error));
  try {
    await redis.connect();
    await redis.ping();
    return { reachable: true };
  } catch (error) {
    return { reachable: false, reason: reasonOf(socketError ?? error) };
  } finally {
    redis.disconnect();
  }
}
