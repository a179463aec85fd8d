/**
 * Whether an error says the PostgreSQL server cannot be reached or is going away, rather than that a statement
 * failed: the pool retries connecting on these (postgres-pool.ts), and requests are answered 503 with Retry-After
 * (database-unavailable.ts). Apart from the pool, so that a process on SQLite does not load PostgreSQL's driver
 * for this check.
 */

/** Socket-level failures and the SQLSTATEs of a server that is going away or not yet accepting (class 08, 57P0x, 53300). */
const CONNECTION_ERROR_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENOTFOUND', 'EAI_AGAIN']);
const CONNECTION_SQLSTATES = new Set(['57P01', '57P02', '57P03', '53300']);
const CONNECTION_MESSAGES = [
  /connection terminated/i,
  /connection ended/i,
  /client has encountered a connection error/i,
  // pg-pool's connectionTimeoutMillis: a new connection that did not open in time, a request that waited in the
  // pool's queue that long; and a client whose connection already failed.
  /connection timeout/i,
  /timeout exceeded when trying to connect/i,
  /not queryable/i,
];

export function isConnectionError(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && (CONNECTION_ERROR_CODES.has(code) || CONNECTION_SQLSTATES.has(code) || code.startsWith('08'))) return true;
  return CONNECTION_MESSAGES.some((pattern) => pattern.test(error.message));
}
