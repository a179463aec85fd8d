/**
 * The token a client presents to the revocation (RFC 7009 §2.1) and introspection (RFC 7662 §2.1) endpoints:
 * `token`, required, and `token_type_hint`, optional. Latch finds a token by its stored hash only, in the table
 * the hint names first and then in the other: "If the server is unable to locate the token using the given hint,
 * it MUST extend its search across all of its supported token types" (RFC 7009 §2.1; RFC 7662 §2.1 likewise).
 * An unknown hint is ignored, as those clauses allow.
 */
import { decodeJwt } from 'jose';
import { hashTimeOrderedSecret, SECRET_PREFIX } from '../../crypto/secrets.js';
import { looksLikeJwt } from './access-token-jwt.js';
import { InvalidRequest } from '../../errors.js';
import type { RawParams } from '../../http/form-body.js';
import { readParam } from '../request/params.js';

/**
 * The token types Latch issues and can revoke and introspect (RFC 7009 §2.1.1 names the first two); a
 * `service_token` is a client_credentials access token, told apart by its prefix (crypto/secrets.ts).
 */
export type PresentedTokenType = 'access_token' | 'refresh_token' | 'service_token';

export interface PresentedToken {
  /** The stored form of the presented value (crypto/secrets.ts): the value itself is never looked up or kept. */
  tokenHash: string;
  /** Where to look, the hinted type first. */
  searchOrder: readonly PresentedTokenType[];
}

const ACCESS_FIRST: readonly PresentedTokenType[] = ['access_token', 'refresh_token'];
const REFRESH_FIRST: readonly PresentedTokenType[] = ['refresh_token', 'access_token'];
// Only service tokens carry this prefix, and they live in a table of their own: nowhere else to look.
const SERVICE_ONLY: readonly PresentedTokenType[] = ['service_token'];
// A JWT's row is an access token's, or a service token's for a client_credentials JWT.
const JWT_ROWS: readonly PresentedTokenType[] = ['access_token', 'service_token'];

/**
 * The form of a stored token hash (crypto/secrets.ts hashTimeOrderedSecret), which is what Latch puts in a jti. The
 * jti read here is unverified: anything else (a NUL, which PostgreSQL cannot compare, made revocation a 500 there;
 * kilobytes of text) is never looked up.
 */
const STORED_HASH = /^(?:[0-9a-f]{11}\.)?[A-Za-z0-9_-]{43}$/;

function jtiOf(token: string): string {
  try {
    const { jti } = decodeJwt(token);
    // Never a stored key when absent or not of that form: an empty hash matches no row.
    return typeof jti === 'string' && STORED_HASH.test(jti) ? jti : '';
  } catch {
    return '';
  }
}

/** Reads `token` and `token_type_hint`; every parameter must already have been checked to come at most once. */
export function readPresentedToken(params: RawParams, endpoint: 'revoke' | 'introspect'): PresentedToken {
  const token = readParam(params, 'token');
  if (token === undefined) throw new InvalidRequest(`token is required: send the access or refresh token to ${endpoint} as the token form parameter`);
  const hint = readParam(params, 'token_type_hint');
  // A JWT access token for a resource (RFC 9068; access-token-jwt.ts) is found by its jti, the stored hash of its
  // grant's bookkeeping row; unverified is enough here, since only that client's own row can match.
  if (looksLikeJwt(token)) return { tokenHash: jtiOf(token), searchOrder: JWT_ROWS };
  const searchOrder = token.startsWith(SECRET_PREFIX.serviceToken) ? SERVICE_ONLY : hint === 'refresh_token' ? REFRESH_FIRST : ACCESS_FIRST;
  return { tokenHash: hashTimeOrderedSecret(token), searchOrder };
}
