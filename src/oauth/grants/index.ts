/**
 * The grants the token endpoint knows, by `grant_type` (RFC 6749 §4, §5): the endpoint authenticates the
 * client, dispatches here, and builds the response from what the grant issued (tokens/token-response.ts).
 * A new grant is a file in this folder, a row in GRANTS, and the storage its tokens need.
 */
import type { AuditLog, AuditSource } from '../../audit/audit-log.js';
import type { AuditEventType } from '../../audit/event-types.js';
import type { Config } from '../../config.js';
import type { RawParams } from '../../http/form-body.js';
import { DEVICE_CODE_GRANT_TYPE, type Client, type Storage, type User } from '../../storage/storage.js';
import { authorizationCodeGrant } from './authorization-code.js';
import { clientCredentialsGrant } from './client-credentials.js';
import { deviceCodeGrant } from './device-code.js';
import { refreshTokenGrant } from './refresh-token.js';

export interface GrantRequest {
  storage: Storage;
  config: Config;
  /** Already authenticated (request/client-authentication.ts). */
  client: Client;
  params: RawParams;
  now: Date;
  /** Where reuse of a code or refresh token is recorded (audit/audit-log.ts), from this request. */
  audit: AuditLog;
  source: AuditSource;
}

/** What a grant issued, for the token response. */
export interface IssuedGrant {
  accessToken: string;
  expiresInSeconds: number;
  /** When the grant includes offline access (RFC 6749 §6): the new refresh token. */
  refreshToken?: string;
  scope: string[];
  /** Null for a service's own token (client_credentials): no user, no id_token, no user object. */
  user: User | null;
  /** The sign-in behind the grant, for an id_token (OIDC Core §3.1.3.3); null when none is issued. */
  /** sid: the browser session the grant was approved in (OIDC Back-Channel Logout 1.0 §2.3), null for older grants. */
  /** For the id_token: the grant's sign-in (amr, acr: session/authentication-methods.ts; empty and null when not known). */
  authentication: { nonce: string | null; authTime: Date; sid: string | null; amr: string[]; acr: string | null } | null;
  /**
   * RFC 8707: the API the access token is for (grants/resource-target.ts) and the scopes it carries; then the
   * access token handed out is a JWT for it (RFC 9068) in place of `accessToken`, whose hash is its jti.
   */
  resource?: { identifier: string; scope: string[] };
}

export interface Grant {
  /** The audit event of a successful issue (audit/event-types.ts), recorded by the token endpoint. */
  readonly issuedEvent: AuditEventType;
  /**
   * Validates the grant's own parameters and issues its tokens, atomically: a request that fails changes
   * nothing (beyond what the failure itself calls for, such as revoking the tokens of a replayed code).
   */
  issue(request: GrantRequest): Promise<IssuedGrant>;
}

export const GRANTS: ReadonlyMap<string, Grant> = new Map([
  ['authorization_code', authorizationCodeGrant],
  ['refresh_token', refreshTokenGrant],
  ['client_credentials', clientCredentialsGrant],
  [DEVICE_CODE_GRANT_TYPE, deviceCodeGrant],
]);
