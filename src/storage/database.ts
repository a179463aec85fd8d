/**
 * The Kysely `Database` interface: one table interface per table, in the portable column types of
 * docs/protocol-decisions.md, "Storage conventions" (text, integer, bigint; times as epoch seconds; booleans as
 * 0/1; lists as JSON text).
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
  /** 1 for an administrator (the admin console), else 0. */
  is_admin: Generated<number>;
  /** When an administrator disabled the account, or null. */
  disabled_at: number | null;
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
  /** JSON array of exact post-logout redirect URIs (OIDC RP-Initiated Logout 1.0 §3.1). */
  post_logout_redirect_uris: Generated<string>;
  /** Where logout tokens are posted (OIDC Back-Channel Logout 1.0 §2.2), or null. */
  backchannel_logout_uri: string | null;
  /** `client_secret_basic` (confidential; Basic or post) or `none` (public client, RFC 7591 §2). */
  token_endpoint_auth_method: Generated<string>;
  /** JSON array of the grant types the client may use (RFC 7591 §2). */
  grant_types: Generated<string>;
  /** Space-separated scopes a service was registered for (its client_credentials ceiling); empty by default. */
  scope: Generated<string>;
  /** Hash of the RFC 7592 registration access token of a dynamically registered client; null otherwise. */
  registration_access_token_hash: string | null;
  /** Refresh-token lifetimes of this client in seconds (idle, absolute); null: the deployment's. */
  refresh_token_idle_seconds: number | null;
  refresh_token_max_seconds: number | null;
  /** 1: every user of this client needs a second factor (acr https://refeds.org/profile/mfa at least). */
  require_mfa: Generated<number>;
  /** 1 when the client registered itself (RFC 7591), 0 when a person or the CLI registered it. */
  registered_dynamically: Generated<number>;
  /** A self-registered client's first successful token exchange; null until then (unused ones are removed). */
  first_used_at: number | null;
  /** A client from a Client ID Metadata Document: when the document is to be fetched again; null for every other client. */
  metadata_document_expires_at: number | null;
  /** The client's privacy policy and terms of service (its metadata document's policy_uri and tos_uri), or null. */
  policy_url: string | null;
  terms_url: string | null;
}

export interface AuthorizationCodesTable {
  code_hash: string;
  /** The grant this code starts (storage.ts AuthorizationCode.grantId). */
  grant_id: string;
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
  /** The browser session (its public sid) the code was approved in; null for codes from before sids. */
  sid: string | null;
  /** The session's RFC 8176 methods (space-separated; empty: unknown) and the acr chosen for the request. */
  amr: Generated<string>;
  acr: string | null;
}

export interface AccessTokensTable {
  token_hash: string;
  client_id: string;
  user_id: number;
  scope: string;
  /** The grant it was issued in, so that a replayed code revokes it (RFC 6749 §4.1.2). */
  grant_id: string;
  created_at: number;
  expires_at: number;
  revoked_at: number | null;
}

/** Access tokens of the client_credentials grant (RFC 6749 §4.4): a client's own, with no user. */
export interface ServiceTokensTable {
  token_hash: string;
  client_id: string;
  scope: string;
  created_at: number;
  expires_at: number;
  revoked_at: number | null;
}

export interface RefreshTokensTable {
  token_hash: string;
  grant_id: string;
  client_id: string;
  user_id: number;
  /** Space-separated scope granted with the code; a refresh may narrow the access token's, never this. */
  scope: string;
  auth_time: number;
  created_at: number;
  expires_at: number;
  grant_expires_at: number;
  rotated_at: number | null;
  successor_encrypted: string | null;
  revoked_at: number | null;
  /** The browser session (its public sid) the grant was approved in: id_tokens from every refresh carry it. */
  sid: string | null;
  /** The grant's sign-in methods and acr (from its code): id_tokens from every refresh carry them. */
  amr: Generated<string>;
  acr: string | null;
}

export interface ConsentsTable {
  user_id: number;
  client_id: string;
  /** Space-separated granted scopes. */
  scope: string;
  created_at: number;
  updated_at: number;
  /** The app last received tokens under this consent (to the minute); null until then. */
  last_used_at: number | null;
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
  /** The session's public id (OIDC `sid`): random, unrelated to the cookie value and its hash. */
  sid: string;
  /** RFC 8176 methods of its sign-in, space-separated (`pwd otp mfa`); empty for sessions from before they were kept. */
  amr: Generated<string>;
}

/** The clients a code was issued to in a browser session, each once: whom a logout of that session concerns. */
export interface BrowserSessionClientsTable {
  sid: string;
  client_id: string;
  created_at: number;
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

/** Back-channel logout deliveries waiting for an attempt (migration 2026_11_24_0300). */
export interface BackchannelLogoutDeliveriesTable {
  id: Generated<number>;
  client_id: string;
  sub: string;
  sid: string;
  attempts: number;
  next_attempt_at: number;
  claimed_until: number | null;
  claim_token: string | null;
  created_at: number;
}

/**
 * The audit trail (migration 2026_11_24_0500): one row per security-relevant event, append-only. No foreign
 * keys: an event outlives the client or account it names (a deleted client's `client.deleted` stays).
 */
export interface AuditEventsTable {
  id: Generated<number>;
  created_at: number;
  /** A name of src/audit/event-types.ts. */
  type: string;
  user_id: number | null;
  /** Who did it, when not the user it happened to (an administrator); null otherwise. */
  actor_user_id: number | null;
  client_id: string | null;
  ip_address: string | null;
  user_agent: string | null;
  request_id: string | null;
  /** JSON object, small; never a secret. */
  details: string | null;
}

/** Endpoints subscribed to audit event types (migration 2026_11_25_0200). */
/** Initial access tokens for dynamic client registration (RFC 7591 §3): only their hash. */
export interface RegistrationTokensTable {
  id: string;
  token_hash: string;
  note: string;
  created_at: number;
  expires_at: number | null;
  revoked_at: number | null;
}

/** Resource servers (RFC 8707; migration 2026_11_25_0700). */
export interface ResourceServersTable {
  identifier: string;
  name: string;
  /** Space-separated. */
  scope: string;
  created_at: number;
}

/** The resources a grant's authorization request named (RFC 8707 §2.1; migration 2026_11_25_0700). */
export interface GrantResourcesTable {
  grant_id: string;
  resource: string;
  created_at: number;
}

/** WebAuthn challenges already tried (migration 2026_11_28_0000): hashes only, kept until their cookie expired. */
export interface UsedWebauthnChallengesTable {
  /** hashSecret of the challenge (base64url, as the library made it). */
  challenge_hash: string;
  expires_at: number;
}

/** Device authorization requests (RFC 8628; migration 2026_11_25_0500): hashes of the codes only. */
export interface DeviceAuthorizationsTable {
  /** hashTimeOrderedSecret of the device_code. */
  device_code_hash: string;
  /** Keyed hash of the normalized user_code (oauth/device/user-code.ts). */
  user_code_hash: string;
  client_id: string;
  scope: string;
  interval_seconds: number;
  last_polled_at_ms: number | null;
  status: string;
  user_id: number | null;
  decided_at: number | null;
  created_at: number;
  expires_at: number;
  /** The APIs the request named with `resource` (RFC 8707), space-separated; '' for none. */
  resources: Generated<string>;
}

export interface WebhooksTable {
  id: string;
  url: string;
  /** JSON array of audit event type names. */
  event_types: string;
  /** crypto/key-encryption.ts form, under its own HKDF info, the id as associated data; never stored in clear. */
  secret_encrypted: string;
  created_at: number;
  disabled: number;
}

/** One audit event to one webhook: the queue and the delivery log (migration 2026_11_25_0200). */
export interface WebhookDeliveriesTable {
  id: Generated<number>;
  webhook_id: string;
  audit_event_id: number;
  event_type: string;
  created_at: number;
  attempts: Generated<number>;
  /** Null once delivered or given up. */
  next_attempt_at: number | null;
  claimed_until: number | null;
  claim_token: string | null;
  last_attempt_at: number | null;
  last_status: number | null;
  last_error: string | null;
  delivered_at: number | null;
  gave_up_at: number | null;
}

/** An account's authenticator app (migration 2026_11_24_0700); the secret only encrypted. */
export interface TotpAuthenticatorsTable {
  user_id: number;
  /** crypto/key-encryption.ts form, under its own HKDF info; never stored in clear. */
  secret_encrypted: string;
  /** RFC 6238 time step of the last accepted code (replay protection). */
  last_used_step: number | null;
  created_at: number;
  last_used_at: number | null;
}

/** A registered passkey (migration 2026_11_24_0710): a WebAuthn credential's public key, never a secret. */
export interface PasskeysTable {
  credential_id: string;
  user_id: number;
  /** COSE public key, base64url. */
  public_key: string;
  counter: number;
  /** JSON array of the transports the browser reported. */
  transports: string;
  aaguid: string;
  backup_eligible: number;
  backed_up: number;
  name: string;
  created_at: number;
  last_used_at: number | null;
}

/** An account's single-use recovery codes (migration 2026_11_24_0700), as keyed hashes only. */
export interface RecoveryCodesTable {
  user_id: number;
  code_hash: string;
  created_at: number;
  used_at: number | null;
}

export interface Database {
  users: UsersTable;
  clients: ClientsTable;
  authorization_codes: AuthorizationCodesTable;
  access_tokens: AccessTokensTable;
  service_tokens: ServiceTokensTable;
  refresh_tokens: RefreshTokensTable;
  consents: ConsentsTable;
  browser_sessions: BrowserSessionsTable;
  browser_session_clients: BrowserSessionClientsTable;
  client_events: ClientEventsTable;
  email_links: EmailLinksTable;
  outbox_messages: OutboxMessagesTable;
  avatar_images: AvatarImagesTable;
  signing_keys: SigningKeysTable;
  backchannel_logout_deliveries: BackchannelLogoutDeliveriesTable;
  audit_events: AuditEventsTable;
  totp_authenticators: TotpAuthenticatorsTable;
  recovery_codes: RecoveryCodesTable;
  passkeys: PasskeysTable;
  webhooks: WebhooksTable;
  registration_tokens: RegistrationTokensTable;
  device_authorizations: DeviceAuthorizationsTable;
  used_webauthn_challenges: UsedWebauthnChallengesTable;
  resource_servers: ResourceServersTable;
  grant_resources: GrantResourcesTable;
  webhook_deliveries: WebhookDeliveriesTable;
}

export type UserRow = Selectable<UsersTable>;
export type ClientRow = Selectable<ClientsTable>;
export type NewClientRow = Insertable<ClientsTable>;
export type AuthorizationCodeRow = Selectable<AuthorizationCodesTable>;
export type AccessTokenRow = Selectable<AccessTokensTable>;
export type ServiceTokenRow = Selectable<ServiceTokensTable>;
export type RefreshTokenRow = Selectable<RefreshTokensTable>;
export type BrowserSessionRow = Selectable<BrowserSessionsTable>;
export type ClientEventRow = Selectable<ClientEventsTable>;
export type SigningKeyRow = Selectable<SigningKeysTable>;
export type AuditEventRow = Selectable<AuditEventsTable>;
