/**
 * The Kysely `Database` interface: one table interface per table, in the portable column types of
 * STYLE.md §5 (text, integer, bigint; times as epoch seconds; booleans as 0/1; lists as JSON text).
 * Row ↔ record conversion lives in each repository's mappers.
 */
import type { Generated, Insertable, Selectable } from 'kysely';

export interface UsersTable {
  id: Generated<number>;
  email: string;
  /** Lower-cased email: the unique key, so that sign-in and sign-up are case-insensitive. */
  email_normalized: string;
  email_verified: number;
  name: string;
  avatar_url: string | null;
  password_hash: string;
  created_at: number;
  updated_at: number;
}

export interface ClientsTable {
  client_id: string;
  name: string;
  secret_hash: string;
  /** The secret before the last rotation, accepted until `previous_secret_expires_at` (grace period). */
  previous_secret_hash: string | null;
  previous_secret_expires_at: number | null;
  /** JSON array of exact redirect URIs. */
  redirect_uris: string;
  owner_user_id: number | null;
  homepage_url: string | null;
  logo_url: string | null;
  created_at: number;
  updated_at: number;
  /** JWS alg of this client's id_tokens (RS256, ES256 or EdDSA); RS256 unless registered otherwise. */
  id_token_signed_response_alg: Generated<string>;
}

export interface AuthorizationCodesTable {
  code_hash: string;
  client_id: string;
  user_id: number;
  redirect_uri: string;
  scope: string;
  nonce: string | null;
  code_challenge: string | null;
  auth_time: number;
  created_at: number;
  expires_at: number;
  /** Set once by the one exchange that wins; kept (not deleted) so that reuse is detected (RFC 6749 §4.1.2). */
  consumed_at: number | null;
}

export interface AccessTokensTable {
  token_hash: string;
  client_id: string;
  user_id: number;
  scope: string;
  /** The code this token was issued from, so that a replayed code revokes it. */
  authorization_code_hash: string | null;
  created_at: number;
  expires_at: number;
  revoked_at: number | null;
}

export interface ConsentsTable {
  user_id: number;
  client_id: string;
  /** Space-separated granted scopes. */
  scope: string;
  created_at: number;
  updated_at: number;
}

export interface BrowserSessionsTable {
  session_hash: string;
  user_id: number;
  /** When the user last entered their password (OIDC auth_time). */
  auth_time: number;
  created_at: number;
  last_seen_at: number;
  expires_at: number;
  user_agent: string | null;
  ip_address: string | null;
}

export interface ClientEventsTable {
  id: Generated<number>;
  client_id: string;
  created_at: number;
  endpoint: string;
  error: string;
  description: string;
  request_id: string;
  /** JSON object with structured detail, e.g. the redirect_uri comparison. Never a secret or a code. */
  details: string | null;
}

export interface EmailLinksTable {
  token_hash: string;
  user_id: number;
  /** 'verify_email' or 'reset_password'. */
  purpose: string;
  /** The address the link was sent to: a verification only counts while the account still has it. */
  email: string;
  created_at: number;
  expires_at: number;
  /** Set once by the one request that uses the link (single use as a conditional update). */
  used_at: number | null;
}

export interface OutboxMessagesTable {
  id: Generated<number>;
  to_address: string;
  subject: string;
  text_body: string;
  created_at: number;
}

export interface AvatarImagesTable {
  id: string;
  user_id: number;
  content_type: string;
  data_base64: string;
  byte_length: number;
  created_at: number;
}

export interface SigningKeysTable {
  kid: string;
  alg: string;
  /** JSON public JWK. */
  public_jwk: string;
  /** Encrypted private JWK (crypto/key-encryption.ts); never stored in clear. */
  private_jwk_encrypted: string;
  created_at: number;
  activates_at: number;
  deactivates_at: number | null;
  retires_at: number | null;
}

export interface Database {
  users: UsersTable;
  clients: ClientsTable;
  authorization_codes: AuthorizationCodesTable;
  access_tokens: AccessTokensTable;
  consents: ConsentsTable;
  browser_sessions: BrowserSessionsTable;
  client_events: ClientEventsTable;
  email_links: EmailLinksTable;
  outbox_messages: OutboxMessagesTable;
  avatar_images: AvatarImagesTable;
  signing_keys: SigningKeysTable;
}

export type UserRow = Selectable<UsersTable>;
export type ClientRow = Selectable<ClientsTable>;
export type NewClientRow = Insertable<ClientsTable>;
export type AuthorizationCodeRow = Selectable<AuthorizationCodesTable>;
export type AccessTokenRow = Selectable<AccessTokensTable>;
export type BrowserSessionRow = Selectable<BrowserSessionsTable>;
export type ClientEventRow = Selectable<ClientEventsTable>;
export type SigningKeyRow = Selectable<SigningKeysTable>;
