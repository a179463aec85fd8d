/**
 * The storage interface the rest of Latch depends on: one repository per aggregate, record types in domain
 * form (Dates, booleans, arrays), never SQL. Implemented over Kysely in repositories/*.ts for both dialects,
 * run by an executor (query-executor.ts): Kysely's, or the SQLite engine's (sqlite/).
 *
 * Some reads are cached per process (cached-storage.ts): a user, a client, an active access token with its
 * user, a browser session, a consent. They stay truthful across processes because every write method that
 * could change one of them is classified as such there, and signals every process after it commits. A new
 * write method must be classified there too; a test fails until it is.
 */
import type { SigningAlgorithm } from '../crypto/signing-algorithms.js';

export interface User {
  id: number;
  email: string;
  emailVerified: boolean;
  name: string;
  avatarUrl: string | null;
  passwordHash: string;
  createdAt: Date;
  updatedAt: Date;
  /** May open the admin console (/admin). */
  isAdmin: boolean;
  /** When an administrator disabled the account (it cannot sign in), or null. */
  disabledAt: Date | null;
}
export interface NewUser {
  email: string;
  emailVerified: boolean;
  name: string;
  avatarUrl: string | null;
  passwordHash: string;
}
export type UserPatch = Partial<Pick<User, 'email' | 'emailVerified' | 'name' | 'avatarUrl' | 'passwordHash' | 'isAdmin' | 'disabledAt'>>;

export interface UserRepository {
  findById(id: number): Promise<User | null>;
  /** Case-insensitive. */
  findByEmail(email: string): Promise<User | null>;
  /** Returns null when the email is already taken (case-insensitively). */
  insert(user: NewUser, now: Date): Promise<User | null>;
  update(id: number, patch: UserPatch, now: Date): Promise<void>;
  list(): Promise<User[]>;
  /**
   * Users whose email or name contains `text` (case-insensitively; every user when it is empty), by id, at most
   * `limit` (the admin console's search).
   */
  search(text: string, limit: number): Promise<User[]>;
  /** Deletes the account and, by cascade, its sessions, codes, tokens, consents and factors. False when none. */
  delete(id: number): Promise<boolean>;
}

/**
 * How a client authenticates at the token endpoint (RFC 7591 §2): with its secret (`client_secret_basic`
 * stands for both secret methods, RFC 6749 §2.3.1), or not at all (`none`: a public client, a single-page or
 * mobile app that cannot keep a secret; RFC 6749 §2.1).
 */
export type TokenEndpointAuthMethod = 'client_secret_basic' | 'none';
/** The grants a client may be registered for (RFC 7591 §2 `grant_types`). */
export type ClientGrantType = 'authorization_code' | 'refresh_token' | 'client_credentials' | typeof DEVICE_CODE_GRANT_TYPE;
/** The device authorization grant's grant_type (RFC 8628 §3.4). */
export const DEVICE_CODE_GRANT_TYPE = 'urn:ietf:params:oauth:grant-type:device_code';

export interface Client {
  clientId: string;
  name: string;
  /** A public client's is the hash of a secret never shown to anyone: it authenticates with none. */
  secretHash: string;
  previousSecretHash: string | null;
  previousSecretExpiresAt: Date | null;
  redirectUris: string[];
  ownerUserId: number | null;
  homepageUrl: string | null;
  logoUrl: string | null;
  /** The JWS alg of this client's id_tokens (OIDC Registration `id_token_signed_response_alg`), RS256 by default. */
  idTokenSignedResponseAlg: SigningAlgorithm;
  /** Where the logout endpoint may send the person afterwards, compared exactly (OIDC RP-Initiated Logout 1.0 §3.1). */
  postLogoutRedirectUris: string[];
  /** Where logout tokens are posted (OIDC Back-Channel Logout 1.0 §2.2), or null. */
  backchannelLogoutUri: string | null;
  tokenEndpointAuthMethod: TokenEndpointAuthMethod;
  grantTypes: ClientGrantType[];
  /** The scopes a service was registered for: the ceiling of its client_credentials tokens (RFC 6749 §4.4.2). */
  scope: string[];
  /** The hash of its RFC 7592 registration access token, for a client that registered itself; else null. */
  registrationAccessTokenHash: string | null;
  /** Registered itself at /oauth2/register (RFC 7591), rather than by a person or the CLI. */
  registeredDynamically: boolean;
  /** This client's refresh-token lifetimes in seconds, or null for the deployment's (clients/refresh-lifetimes.ts). */
  refreshTokenIdleSeconds: number | null;
  refreshTokenMaxSeconds: number | null;
  /** Every user of this client needs a second factor (issue 17 item 5; session/authentication-methods.ts). */
  requireMfa: boolean;
  /**
   * A client whose client_id is the URL of its metadata document (Client ID Metadata Documents; clients/metadata-document.ts):
   * when that document is to be fetched again. Null (or absent) for every other client.
   */
  metadataDocumentExpiresAt?: Date | null;
  /** Its privacy policy and terms of service (metadata `policy_uri`, `tos_uri`), shown on the consent page; null when unknown. */
  policyUrl?: string | null;
  termsUrl?: string | null;
  createdAt: Date;
  updatedAt: Date;
}
export type NewClient = Omit<
  Client,
  | 'createdAt'
  | 'updatedAt'
  | 'idTokenSignedResponseAlg'
  | 'postLogoutRedirectUris'
  | 'backchannelLogoutUri'
  | 'tokenEndpointAuthMethod'
  | 'grantTypes'
  | 'scope'
  | 'registrationAccessTokenHash'
  | 'registeredDynamically'
  | 'refreshTokenIdleSeconds'
  | 'refreshTokenMaxSeconds'
  | 'requireMfa'
> & {
  requireMfa?: boolean;
  refreshTokenIdleSeconds?: number | null;
  refreshTokenMaxSeconds?: number | null;
  registrationAccessTokenHash?: string | null;
  registeredDynamically?: boolean;
  idTokenSignedResponseAlg?: SigningAlgorithm;
  postLogoutRedirectUris?: string[];
  backchannelLogoutUri?: string | null;
  /** client_secret_basic, authorization_code + refresh_token and no scope when left out. */
  tokenEndpointAuthMethod?: TokenEndpointAuthMethod;
  grantTypes?: ClientGrantType[];
  scope?: string[];
};
export type ClientPatch = Partial<
  Pick<
    Client,
    | 'name'
    | 'secretHash'
    | 'previousSecretHash'
    | 'previousSecretExpiresAt'
    | 'redirectUris'
    | 'homepageUrl'
    | 'logoUrl'
    | 'idTokenSignedResponseAlg'
    | 'postLogoutRedirectUris'
    | 'backchannelLogoutUri'
    | 'grantTypes'
    | 'refreshTokenIdleSeconds'
    | 'refreshTokenMaxSeconds'
    | 'requireMfa'
    | 'metadataDocumentExpiresAt'
    | 'policyUrl'
    | 'termsUrl'
  >
>;

export interface ClientRepository {
  findById(clientId: string): Promise<Client | null>;
  list(): Promise<Client[]>;
  listByOwner(userId: number): Promise<Client[]>;
  insert(client: NewClient, now: Date): Promise<Client>;
  /** Returns false when no such client exists. */
  update(clientId: string, patch: ClientPatch, now: Date): Promise<boolean>;
  /** Deletes the client and, by cascade, its codes, tokens, consents and events. */
  delete(clientId: string): Promise<boolean>;
  /**
   * Deletes clients that registered themselves (RFC 7591) before `before` and never had a successful token
   * exchange (markUsed), at most `limit` (the oldest first) when given. Returns how many.
   */
  deleteUnusedRegistrations(before: Date, limit?: number): Promise<number>;
  /** How many self-registered clients have had no successful token exchange yet, counted up to `upTo`. */
  countUnusedRegistrations(upTo: number): Promise<number>;
  /**
   * Deletes clients from Client ID Metadata Documents whose document expired before `before` and that nobody has
   * allowed (no consent), at most `limit` (the longest expired first) when given. Returns how many.
   */
  deleteUnusedMetadataDocumentClients(before: Date, limit?: number): Promise<number>;
  /**
   * Marks a client that registered itself as used at its first successful token exchange; later calls change
   * nothing. Returns whether this call marked it.
   */
  markUsed(clientId: string, now: Date): Promise<boolean>;
}

export interface AuthorizationCode {
  codeHash: string;
  /**
   * The grant this code starts: every token issued from it carries the same id, so that one grant's tokens
   * are revoked together (code replay, RFC 6749 §4.1.2; later refresh rotation and logout).
   */
  grantId: string;
  clientId: string;
  userId: number;
  redirectUri: string;
  scope: string[];
  nonce: string | null;
  codeChallenge: string | null;
  authTime: Date;
  /**
   * The browser session the code was approved in (its public id, BrowserSession.sid): id_tokens of the grant
   * carry it (OIDC Back-Channel Logout 1.0 §2.3). Null for codes issued before sessions had one.
   */
  sid: string | null;
  /** RFC 8176 methods of the session's sign-in (empty: not known, for codes from before they were kept). */
  amr: string[];
  /** The acr chosen for the request (session/authentication-methods.ts); null when not known. */
  acr: string | null;
  createdAt: Date;
  expiresAt: Date;
  consumedAt: Date | null;
}
export type NewAuthorizationCode = Omit<AuthorizationCode, 'consumedAt' | 'sid' | 'amr' | 'acr'> & { sid?: string | null; amr?: string[]; acr?: string | null };

export interface ConsumeConditions {
  codeHash: string;
  clientId: string;
  /** Undefined: the token request left redirect_uri out (docs/protocol-decisions.md, "Token endpoint"), so it is not compared. */
  redirectUri: string | undefined;
  /** The S256 of the code_verifier sent, or null when none was sent. */
  codeChallenge: string | null;
}

/** The access token a redeemed code turns into; client, user, scope and grant come from the code. */
export type RedeemedAccessToken = Pick<AccessToken, 'tokenHash' | 'createdAt' | 'expiresAt'>;

export interface AuthorizationCodeRepository {
  /**
   * Stores the code's hash, never the code. With a sid, in the same write, records that the session signed in
   * to the code's client (browser_session_clients, once per session and client; nothing if the session has
   * ended meanwhile), so that a logout of that session knows which apps to tell.
   */
  insert(code: NewAuthorizationCode): Promise<void>;
  /**
   * Atomically marks an unexpired, unused code as used and returns it, to the first caller only
   * (one conditional update, so that racing exchanges cannot both win, also across processes).
   * Every binding is a condition of the same update, so a request that fails any of them consumes nothing:
   * the code must belong to `clientId`, match `redirectUri` when given, and carry exactly `codeChallenge`
   * (null: the code must have been issued without one).
   */
  consume(conditions: ConsumeConditions, now: Date): Promise<AuthorizationCode | null>;
  /** Any code by hash, used or not, for telling "reused" from "unknown" and "expired". */
  findByHash(codeHash: string): Promise<AuthorizationCode | null>;
  /** Deletes what expired before `before`; with `limit`, at most that many rows per table (call again while it returns `limit`). */
  deleteExpired(before: Date, limit?: number): Promise<number>;
}

export interface AccessToken {
  tokenHash: string;
  clientId: string;
  userId: number;
  scope: string[];
  /** The grant it was issued in (AuthorizationCode.grantId). */
  grantId: string;
  createdAt: Date;
  expiresAt: Date;
  revokedAt: Date | null;
}
export type NewAccessToken = Omit<AccessToken, 'revokedAt'>;

/** A refresh token as stored (RFC 6749 §6): its hash, bound to client, user, grant and scope. */
export interface RefreshToken {
  tokenHash: string;
  grantId: string;
  clientId: string;
  userId: number;
  /** What the grant allowed; a refresh may narrow the access token's scope, never widen this. */
  scope: string[];
  /** The sign-in the grant started from (OIDC Core §12.2: id_tokens from a refresh keep it). */
  authTime: Date;
  createdAt: Date;
  /** Idle expiry. */
  expiresAt: Date;
  /** Absolute expiry of the grant's refreshes. */
  grantExpiresAt: Date;
  /** Set once, by the one refresh that rotated it. */
  rotatedAt: Date | null;
  /**
   * How to give the successor issued at rotation again, for a retry within the grace window: its time digits
   * (`d1.…`; the rest is derived from the token and LATCH_SECRET, oauth/tokens/refresh-successor.ts), or, for
   * tokens rotated before that scheme, the successor encrypted under LATCH_SECRET (`v1.…`). Never the successor itself.
   */
  successorEncrypted: string | null;
  revokedAt: Date | null;
  /** The browser session the grant was approved in (AuthorizationCode.sid), carried from token to token. */
  sid: string | null;
  /** The grant's sign-in methods and acr (AuthorizationCode.amr, .acr), carried from token to token. */
  amr: string[];
  acr: string | null;
}

/** A refresh token to issue: the rest comes from the code or the token it replaces. */
export interface IssuedRefreshToken {
  tokenHash: string;
  /** Idle expiry (capped at the grant's absolute expiry when rotated). */
  expiresAt: Date;
  /** For a new grant only: when its refreshes end. */
  grantExpiresAt: Date;
}

export interface RefreshRotation {
  /** The refresh token presented. */
  tokenHash: string;
  clientId: string;
  successor: { tokenHash: string; encrypted: string; idleSeconds: number };
  accessToken: RedeemedAccessToken;
  /**
   * The access token's scope from the grant's: may narrow it, or throw to refuse (nothing is written then). Left
   * out (the request named no scope): the whole granted scope.
   */
  narrowScope?: (granted: string[]) => string[];
}

/** An access token of the client_credentials grant (RFC 6749 §4.4): the client's own, no user, no grant. */
export interface ServiceToken {
  tokenHash: string;
  clientId: string;
  scope: string[];
  createdAt: Date;
  expiresAt: Date;
  revokedAt: Date | null;
}
export type NewServiceToken = Omit<ServiceToken, 'revokedAt'>;

/** Every token Latch issues is stored here, and only here. */
export interface TokenRepository {
  insert(token: NewAccessToken): Promise<void>;
  /** Stores a client_credentials access token (its hash). */
  insertServiceToken(token: NewServiceToken): Promise<void>;
  /** A client_credentials token when it exists, is unexpired and unrevoked. */
  findActiveServiceToken(tokenHash: string, now: Date): Promise<ServiceToken | null>;
  /** Revokes a client_credentials token, only if it is `clientId`'s and not revoked yet. True when it revoked it. */
  revokeServiceToken(tokenHash: string, clientId: string, now: Date): Promise<boolean>;
  /**
   * The token endpoint's write for the authorization_code grant: consumes the code exactly as
   * AuthorizationCodeRepository.consume does and, in the same transaction, stores the access token issued
   * from it (for the code's client, user, scope and grant). Returns the code, or null when it could not be
   * consumed, in which case nothing was written.
   */
  redeemCode(
    conditions: ConsumeConditions,
    token: RedeemedAccessToken,
    now: Date,
    /**
     * The refresh token to store with the code when its scope has offline_access. It may be called before that
     * is known (a batch of exchanges on PostgreSQL asks every exchange up front): the caller hands a refresh
     * token out only when the returned code's scope has offline_access.
     */
    refreshToken?: () => IssuedRefreshToken,
  ): Promise<AuthorizationCode | null>;
  /**
   * The refresh_token grant's write: marks an unrotated, unrevoked, unexpired refresh token of `clientId` as
   * rotated (one conditional update: of racing refreshes exactly one rotates, also across processes) and, in
   * the same transaction, stores its successor and the new access token. Returns the rotated token and the
   * access token's scope, or null when it could not be rotated, in which case nothing was written.
   */
  rotateRefreshToken(rotation: RefreshRotation, now: Date): Promise<{ rotated: RefreshToken; scope: string[] } | null>;
  /** Any refresh token by hash, rotated, revoked or expired too, for telling why a refresh failed. */
  findRefreshByHash(tokenHash: string): Promise<RefreshToken | null>;
  /** Drops the encrypted successors of tokens rotated before `before` (the grace window is over). */
  forgetSuccessors(before: Date): Promise<number>;
  /** The token and its user in one read, when it exists, is unexpired and unrevoked: the userinfo hot path. */
  findActiveWithUser(tokenHash: string, now: Date): Promise<{ token: AccessToken; user: User } | null>;
  findByHash(tokenHash: string): Promise<AccessToken | null>;
  /**
   * Revokes one access token, only if it was issued to `clientId` and is not revoked yet (one conditional
   * update: RFC 7009 §2.1, a client revokes only its own tokens). True when it revoked it.
   */
  revokeAccessToken(tokenHash: string, clientId: string, now: Date): Promise<boolean>;
  /** Revokes every access and refresh token of one grant (code replay, RFC 6749 §4.1.2; refresh reuse). Returns how many. */
  revokeByGrant(grantId: string, now: Date): Promise<number>;
  /** Revokes every access and refresh token one user granted one client (consent withdrawn). */
  revokeByUserAndClient(userId: number, clientId: string, now: Date): Promise<number>;
  /**
   * Revokes every access and refresh token of one user, for every client, and makes their unused codes expire
   * (an administrator disabled the account or signed it out everywhere). Returns how many tokens.
   */
  revokeByUser(userId: number, now: Date): Promise<number>;
  /** How many grants of `clientId` are live: with an unexpired, unrevoked access token or a usable refresh token. */
  countLiveGrants(clientId: string, now: Date): Promise<number>;
  /** Deletes what expired before `before`; with `limit`, at most that many rows per table (call again while it returns `limit`). */
  deleteExpired(before: Date, limit?: number): Promise<number>;
}

export interface Consent {
  userId: number;
  clientId: string;
  scope: string[];
  createdAt: Date;
  updatedAt: Date;
  /** When the app last received tokens under this consent (a code exchange or a refresh), to the minute. */
  lastUsedAt: Date | null;
}

export interface ConsentRepository {
  find(userId: number, clientId: string): Promise<Consent | null>;
  listByUser(userId: number): Promise<Consent[]>;
  /** Records the union of what was granted before and `scope`. */
  grant(userId: number, clientId: string, scope: string[], now: Date): Promise<void>;
  /** Records that the app received tokens under the consent now; skipped when the last record is under a minute old. */
  markUsed(userId: number, clientId: string, now: Date): Promise<void>;
  revoke(userId: number, clientId: string): Promise<boolean>;
}

export interface BrowserSession {
  sessionHash: string;
  /**
   * The session's public id: `sid` in id_tokens and logout tokens (OIDC Back-Channel Logout 1.0 §2.3). Random and
   * unrelated to the cookie value and its hash, so that an app that sees it can do nothing with it but compare.
   */
  sid: string;
  userId: number;
  authTime: Date;
  createdAt: Date;
  lastSeenAt: Date;
  expiresAt: Date;
  userAgent: string | null;
  ipAddress: string | null;
  /** RFC 8176 methods of the sign-in (session/authentication-methods.ts); empty for sessions from before they were kept. */
  amr: string[];
}

/** Which of a user's sessions end: one by its hash, or all of them but optionally one. */
export type SessionsToEnd = { sessionHash: string } | { allExcept: string | null };

/** An ended session: its public id and the clients a code was issued to in it, each once. */
export interface EndedBrowserSession {
  sid: string;
  clientIds: string[];
}

export interface BrowserSessionRepository {
  insert(session: Omit<BrowserSession, 'amr'> & { amr?: string[] }): Promise<void>;
  /** The session when it exists and has not expired. */
  findActive(sessionHash: string, now: Date): Promise<BrowserSession | null>;
  listByUser(userId: number, now: Date): Promise<BrowserSession[]>;
  touch(sessionHash: string, now: Date): Promise<void>;
  /**
   * A new cookie for the same session (a sign-in again by the person already signed in: no session fixation,
   * RFC 6265bis; OWASP Session Management): the row keeps its sid and the clients signed in to in it, so that
   * apps holding id_tokens with that sid keep matching it. Returns false when `oldSessionHash` is gone.
   */
  renew(
    oldSessionHash: string,
    renewed: Pick<BrowserSession, 'sessionHash' | 'authTime' | 'lastSeenAt' | 'expiresAt' | 'userAgent' | 'ipAddress'> & { amr?: string[] },
  ): Promise<boolean>;
  /**
   * Ends sessions of one user, returning for each its sid and the clients a code was issued to in it, read
   * before the rows go. The only way sessions end other than expiry: call it through
   * session/session-endings.ts endBrowserSessions, inside a transaction (storage.transaction), so that the
   * read and the delete agree.
   */
  end(userId: number, which: SessionsToEnd): Promise<EndedBrowserSession[]>;
  /** Deletes what expired before `before`; with `limit`, at most that many rows per table (call again while it returns `limit`). */
  deleteExpired(before: Date, limit?: number): Promise<number>;
}

/** A failed authorization or token request of a known client, kept for the developer console. */
export interface ClientEvent {
  id: number;
  clientId: string;
  createdAt: Date;
  endpoint: string;
  error: string;
  description: string;
  requestId: string;
  details: Record<string, unknown> | null;
}
export type NewClientEvent = Omit<ClientEvent, 'id'>;

export interface ClientEventRepository {
  insert(event: NewClientEvent): Promise<void>;
  listRecent(clientId: string, limit: number): Promise<ClientEvent[]>;
  /** With `limit`, at most that many rows (call again while it returns `limit`). */
  deleteBefore(before: Date, limit?: number): Promise<number>;
}

/**
 * A back-channel logout to deliver (OIDC Back-Channel Logout 1.0 §2.5): one ended session, one client. No
 * token is kept: every attempt signs a fresh one.
 */
export interface BackchannelLogoutDelivery {
  id: number;
  clientId: string;
  /** The logout token's sub and sid: the person, and the ended session's public id. */
  sub: string;
  sid: string;
  /** Attempts made so far. */
  attempts: number;
  nextAttemptAt: Date;
  createdAt: Date;
}
export type NewBackchannelLogoutDelivery = Pick<BackchannelLogoutDelivery, 'clientId' | 'sub' | 'sid' | 'nextAttemptAt' | 'createdAt'>;

/** A delivery claimed by one process: only the holder of `claimToken` may reschedule or delete it. */
export interface ClaimedBackchannelLogoutDelivery extends BackchannelLogoutDelivery {
  claimToken: string;
}

export interface BackchannelLogoutDeliveryRepository {
  /** Queues deliveries; returns their ids. */
  insert(deliveries: NewBackchannelLogoutDelivery[]): Promise<number[]>;
  /**
   * Claims up to `limit` deliveries due at `now` that no process holds (or whose holder's claim ran out) until
   * `claimedUntil`, with one conditional update: of processes claiming at once, each row goes to one.
   */
  claimDue(now: Date, claimedUntil: Date, claimToken: string, limit: number): Promise<ClaimedBackchannelLogoutDelivery[]>;
  /** Releases a claimed delivery for a later attempt. False when the claim was lost (another process holds it). */
  reschedule(id: number, claimToken: string, attempts: number, nextAttemptAt: Date): Promise<boolean>;
  /** Removes a claimed delivery: delivered, or given up. False when the claim was lost. */
  delete(id: number, claimToken: string): Promise<boolean>;
}

export type EmailLinkPurpose = 'verify_email' | 'reset_password';

/** A single-use link sent by mail (email verification, password reset); only the token's hash is stored. */
export interface EmailLink {
  tokenHash: string;
  userId: number;
  purpose: EmailLinkPurpose;
  email: string;
  createdAt: Date;
  expiresAt: Date;
  usedAt: Date | null;
}
export type NewEmailLink = Omit<EmailLink, 'usedAt'>;

export interface EmailLinkRepository {
  insert(link: NewEmailLink): Promise<void>;
  /** The link when it exists, has this purpose, is unexpired and unused (to show the form it leads to). */
  findUsable(tokenHash: string, purpose: EmailLinkPurpose, now: Date): Promise<EmailLink | null>;
  /** Atomically marks an unexpired, unused link of this purpose as used; returns it to the first caller only. */
  consume(tokenHash: string, purpose: EmailLinkPurpose, now: Date): Promise<EmailLink | null>;
  /** Marks every unused link of a user and purpose as used (a newer password makes older reset links void). */
  invalidateByUser(userId: number, purpose: EmailLinkPurpose, now: Date): Promise<number>;
  /** Deletes what expired before `before`; with `limit`, at most that many rows per table (call again while it returns `limit`). */
  deleteExpired(before: Date, limit?: number): Promise<number>;
}

/** A mail kept by Latch instead of being sent, when no SMTP server is configured. */
export interface OutboxMessage {
  id: number;
  to: string;
  subject: string;
  text: string;
  createdAt: Date;
}

export interface OutboxRepository {
  insert(message: Omit<OutboxMessage, 'id'>): Promise<void>;
  listRecent(limit: number): Promise<OutboxMessage[]>;
  /** With `limit`, at most that many rows (call again while it returns `limit`). */
  deleteBefore(before: Date, limit?: number): Promise<number>;
}

/** An avatar image uploaded to Latch and served from its own origin. */
export interface AvatarImage {
  id: string;
  userId: number;
  contentType: string;
  data: Buffer;
  createdAt: Date;
}

export interface AvatarImageRepository {
  insert(image: AvatarImage): Promise<void>;
  findById(id: string): Promise<AvatarImage | null>;
  /** Deletes a user's images other than `keepId` (the one now in use). */
  deleteByUserExcept(userId: number, keepId: string | null): Promise<number>;
}

/** An id_token signing key as stored: the private part only in encrypted form. State derives from the times. */
export interface SigningKeyRecord {
  kid: string;
  alg: SigningAlgorithm;
  publicJwk: Record<string, unknown>;
  privateJwkEncrypted: string;
  createdAt: Date;
  /** Published from creation; signs from this moment. */
  activatesAt: Date;
  /** Stops signing here; null while it is the newest key of its algorithm. */
  deactivatesAt: Date | null;
  /** Leaves the JWKS here; null while it may still sign. */
  retiresAt: Date | null;
}

export interface SigningKeyRepository {
  /** Every key not retired at `now` (published in the JWKS), oldest activation first. */
  listPublished(now: Date): Promise<SigningKeyRecord[]>;
  listAll(): Promise<SigningKeyRecord[]>;
  insert(key: SigningKeyRecord): Promise<void>;
  /**
   * Serializes the creation of first keys across processes (keys/signing-keys.ts ensureSigningKeys): the first
   * statement of a storage.transaction, held until it ends, so that its check for a key and its insert cannot
   * interleave with another process's.
   */
  lockForCreation(): Promise<void>;
  /**
   * Ends every key of `alg` that has no end yet (rotation, run in one transaction with the successor's insert):
   * it stops signing at `deactivatesAt` and leaves the JWKS at `retiresAt`. Returns the kids it ended.
   */
  endOpenKeys(alg: SigningAlgorithm, deactivatesAt: Date, retiresAt: Date): Promise<string[]>;
  /** Ends one key now (compromise): stops signing and leaves the JWKS at once. False when no such key. */
  retireNow(kid: string, now: Date): Promise<boolean>;
  /** Deletes keys retired before `before`, with their encrypted private parts. */
  deleteRetired(before: Date): Promise<number>;
}

/** One event of the audit trail (src/audit/): what happened, to whom, through which client, from where. */
export interface AuditEvent {
  id: number;
  createdAt: Date;
  /** A name of src/audit/event-types.ts (a string here: storage knows no event vocabulary). */
  type: string;
  userId: number | null;
  /** Who did it, when not the user it happened to (an administrator). */
  actorUserId: number | null;
  clientId: string | null;
  ipAddress: string | null;
  userAgent: string | null;
  requestId: string | null;
  details: Record<string, unknown> | null;
}
export type NewAuditEvent = Omit<AuditEvent, 'id'>;

/** An event as listed: with the email its user has now (joined; null when there is no user or it is gone). */
export type ListedAuditEvent = AuditEvent & { userEmail: string | null };

/** Which events to list; every given condition must hold. */
export interface AuditEventFilter {
  userId?: number;
  clientId?: string;
  /** Any of these types exactly. */
  types?: readonly string[];
  /** Types starting with this, e.g. `user.` for every user event. */
  typePrefix?: string;
  /** At or after this time. */
  since?: Date;
  /** Only events that come after this one in the list (older): the next page, from the last event of the previous. */
  after?: { createdAt: Date; id: number };
  limit: number;
}

/** Webhooks to queue a delivery to for one event of a batch (AuditEventRepository.insertMany). */
export type WebhookIdsByEvent = ReadonlyMap<NewAuditEvent, readonly string[]>;

export interface AuditEventRepository {
  /**
   * Appends events, in one statement per few hundred (audit/audit-log.ts batches them). With `webhooks`, the
   * events it names also get a pending delivery to each of their webhooks that still exists and is enabled, in
   * the same write: an event is never stored without its deliveries, nor a delivery without its event.
   */
  insertMany(events: readonly NewAuditEvent[], webhooks?: WebhookIdsByEvent): Promise<void>;
  /** Newest first. */
  list(filter: AuditEventFilter): Promise<ListedAuditEvent[]>;
  /** Deletes events from before `before` (retention); with `limit`, at most that many rows (call again while it returns `limit`). */
  deleteBefore(before: Date, limit?: number): Promise<number>;
}

/**
 * An endpoint subscribed to audit event types (src/webhooks/; docs/protocol-decisions.md "Webhooks"). Its
 * signing secret is kept encrypted (Latch needs it back to sign every delivery).
 */
export interface Webhook {
  /** `wh_…`, random: it is also the associated data of the encrypted secret. */
  id: string;
  url: string;
  /** Audit event type names (src/audit/event-types.ts; a string here: storage knows no event vocabulary). */
  eventTypes: string[];
  /** crypto/key-encryption.ts form; never the secret in clear. */
  secretEncrypted: string;
  createdAt: Date;
  disabled: boolean;
}

/** What the audit log needs to queue deliveries: an enabled webhook's id and the types it wants. */
export type WebhookSubscription = Pick<Webhook, 'id' | 'eventTypes'>;

/** Where a delivery stands: waiting for an attempt (the first or a retry), delivered, or given up. */
export type WebhookDeliveryState = 'pending' | 'delivered' | 'given_up';

/** One audit event to one webhook: a row of the delivery log, and of the queue while pending. */
export interface WebhookDelivery {
  id: number;
  webhookId: string;
  auditEventId: number;
  eventType: string;
  createdAt: Date;
  /** Attempts made so far. */
  attempts: number;
  state: WebhookDeliveryState;
  /** While pending: when the next attempt is due. */
  nextAttemptAt: Date | null;
  lastAttemptAt: Date | null;
  /** The HTTP status of the last answer (null when none came: a timeout, a refused address). */
  lastStatus: number | null;
  /** Why the last attempt failed, in words; null after a success. */
  lastError: string | null;
  /** When it was delivered or given up. */
  finishedAt: Date | null;
}

/** A pending delivery claimed by one process, with the audit event to send (null when the event is gone). */
export interface ClaimedWebhookDelivery extends WebhookDelivery {
  claimToken: string;
  event: AuditEvent | null;
}

/** What one attempt came to, as the claim's holder records it. */
export type WebhookAttemptRecord =
  | { outcome: 'delivered'; at: Date; status: number }
  | { outcome: 'retry'; at: Date; status: number | null; error: string; nextAttemptAt: Date }
  | { outcome: 'given_up'; at: Date; status: number | null; error: string }
  /** Not an attempt (Latch's own fault, e.g. the secret cannot be decrypted yet): released for later, attempts unchanged. */
  | { outcome: 'postponed'; nextAttemptAt: Date };

export interface WebhookRepository {
  insert(webhook: Webhook): Promise<void>;
  findById(id: string): Promise<Webhook | null>;
  /** Oldest first. */
  list(): Promise<Webhook[]>;
  /** Enabled webhooks and the event types each wants (audit/audit-log.ts reads it before queueing). */
  listSubscriptions(): Promise<WebhookSubscription[]>;
  /** Deletes the webhook and its delivery log; false when there was none. */
  delete(id: string): Promise<boolean>;
}

export interface WebhookDeliveryRepository {
  /**
   * Claims up to `limit` pending deliveries due at `now` that no process holds (or whose holder's claim ran out)
   * until `claimedUntil`, with one conditional update: of processes claiming at once, each row goes to one.
   */
  claimDue(now: Date, claimedUntil: Date, claimToken: string, limit: number): Promise<ClaimedWebhookDelivery[]>;
  /** Records an attempt of a claimed delivery and releases it. False when the claim was lost (another process holds it). */
  recordAttempt(id: number, claimToken: string, record: WebhookAttemptRecord): Promise<boolean>;
  /** One webhook's delivery log, newest first. */
  listByWebhook(webhookId: string, limit: number): Promise<WebhookDelivery[]>;
  /** Deletes delivered and given-up rows finished before `before`; with `limit`, at most that many rows. */
  deleteFinishedBefore(before: Date, limit?: number): Promise<number>;
}

/** An account's confirmed authenticator app (TOTP, RFC 6238). */
export interface TotpAuthenticator {
  userId: number;
  /** Encrypted under LATCH_SECRET (accounts/second-factor/totp.ts); never in clear. */
  secretEncrypted: string;
  /** RFC 6238 time step of the last code accepted; null before the first. */
  lastUsedStep: number | null;
  createdAt: Date;
  lastUsedAt: Date | null;
}

/** One recovery code as stored: its keyed hash. */
export interface RecoveryCode {
  codeHash: string;
  createdAt: Date;
  usedAt: Date | null;
}

/** A registered passkey (WebAuthn credential): its public key, counter, backup flags and the person's name for it. */
export interface Passkey {
  /** base64url, as the authenticator made it. */
  credentialId: string;
  userId: number;
  /** COSE-encoded public key. */
  publicKey: Uint8Array;
  /** Signature counter; 0 forever on synced passkeys. */
  counter: number;
  transports: string[];
  aaguid: string;
  /** BE flag: may be synced to other devices. */
  backupEligible: boolean;
  /** BS flag: is synced now. */
  backedUp: boolean;
  name: string;
  createdAt: Date;
  lastUsedAt: Date | null;
}

export interface PasskeyRepository {
  /** False when that credential id is registered already (to any account); nothing changed then. */
  insert(passkey: Passkey): Promise<boolean>;
  findByCredentialId(credentialId: string): Promise<Passkey | null>;
  /** Oldest first. */
  listByUser(userId: number): Promise<Passkey[]>;
  /**
   * After a verified sign-in: the new counter, backup state and time, only if the counter is still
   * `previousCounter` (false when another sign-in moved it meanwhile).
   */
  recordUse(credentialId: string, previousCounter: number, use: { counter: number; backedUp: boolean; at: Date }): Promise<boolean>;
  /** Only the account's own passkey; false when there was none. */
  delete(userId: number, credentialId: string): Promise<boolean>;
}

/**
 * The WebAuthn challenges already tried, by hash: each serves one ceremony only (WebAuthn Level 2 §13.4.3), in every
 * process, though the challenge itself lives in the browser's sealed cookie (accounts/second-factor/passkeys.ts).
 */
export interface WebauthnChallengeRepository {
  /**
   * Records the challenge with this hash as used, kept until `expiresAt` (when its cookie expires): true for the
   * first use, false when it was used already. One insert that does nothing on conflict, so of two concurrent
   * uses, even in two processes, exactly one is told true.
   */
  markUsed(challengeHash: string, expiresAt: Date): Promise<boolean>;
  /** Deletes what expired before `before`; with `limit`, at most that many rows (call again while it returns `limit`). */
  deleteExpired(before: Date, limit?: number): Promise<number>;
}

/** Authenticator apps and recovery codes (issue 17). */
export interface SecondFactorRepository {
  findTotp(userId: number): Promise<TotpAuthenticator | null>;
  /** Adds the account's app; false when it already has one (nothing changed). */
  insertTotp(authenticator: TotpAuthenticator): Promise<boolean>;
  /**
   * Accepts time step `step` once (RFC 6238 §5.2): true only when it is later than the last accepted step,
   * decided by one conditional update, so that two requests with the same code cannot both pass.
   */
  useTotpStep(userId: number, step: number, now: Date): Promise<boolean>;
  /** Removes the app; false when there was none. */
  deleteTotp(userId: number): Promise<boolean>;
  listRecoveryCodes(userId: number): Promise<RecoveryCode[]>;
  /** Replaces every code of the account with these hashes (the old set stops working). */
  replaceRecoveryCodes(userId: number, codeHashes: readonly string[], now: Date): Promise<void>;
  /** Marks one unused code used; false when it was already used or is not the account's. */
  useRecoveryCode(userId: number, codeHash: string, now: Date): Promise<boolean>;
  deleteRecoveryCodes(userId: number): Promise<number>;
}

/** An initial access token for dynamic client registration (RFC 7591 §3), made by `latch registration-token create`. */
export interface RegistrationToken {
  id: string;
  /** SHA-256 of the token (hashSecret): the token itself is shown once and never stored. */
  tokenHash: string;
  /** Whom or what it was made for, for the operator. */
  note: string;
  createdAt: Date;
  expiresAt: Date | null;
  revokedAt: Date | null;
}

export interface RegistrationTokenRepository {
  insert(token: Omit<RegistrationToken, 'revokedAt'>): Promise<void>;
  /** The token with this hash when it is neither expired nor revoked at `now`; null otherwise. */
  findUsable(tokenHash: string, now: Date): Promise<RegistrationToken | null>;
  /** Every token, newest first, without their hashes' use: for `latch registration-token list`. */
  list(): Promise<RegistrationToken[]>;
  /** Marks it revoked; false when no such token is live. */
  revoke(id: string, now: Date): Promise<boolean>;
}

/** Where a device authorization request stands (RFC 8628 §3.3): waiting for the person, or decided. */
export type DeviceAuthorizationStatus = 'pending' | 'approved' | 'denied';

/**
 * A device authorization request (RFC 8628 §3.1–3.2): only the hashes of its device_code and user_code. Once
 * approved, an authorization code whose hash is the device code's carries the grant (user, sign-in, scope) to
 * the token endpoint (oauth/grants/device-code.ts).
 */
export interface DeviceAuthorization {
  deviceCodeHash: string;
  userCodeHash: string;
  clientId: string;
  scope: string[];
  /** The polling interval now in force: the initial one, plus 5 s per slow_down (RFC 8628 §3.5). */
  intervalSeconds: number;
  lastPolledAt: Date | null;
  status: DeviceAuthorizationStatus;
  /** Who decided; null while pending. */
  userId: number | null;
  decidedAt: Date | null;
  createdAt: Date;
  expiresAt: Date;
  /** The registered APIs the request named with `resource` (RFC 8707 §2), in the order named; empty for most. */
  resources: string[];
}
export type NewDeviceAuthorization = Omit<DeviceAuthorization, 'lastPolledAt' | 'status' | 'userId' | 'decidedAt'>;

/** What a poll of a pending request came to (RFC 8628 §3.5). */
export type DevicePoll = 'pending' | 'slow_down';

export interface DeviceAuthorizationRepository {
  /** False when the user code's hash is taken already (a collision: the caller draws another code); nothing stored then. */
  insert(authorization: NewDeviceAuthorization): Promise<boolean>;
  findByDeviceCodeHash(deviceCodeHash: string): Promise<DeviceAuthorization | null>;
  findByUserCodeHash(userCodeHash: string): Promise<DeviceAuthorization | null>;
  /**
   * A poll of a pending, unexpired request (one conditional update each, so that racing polls are counted
   * each): 'pending' when it came at least `intervalSeconds` (less `toleranceMs`) after the last one;
   * otherwise 'slow_down', and the interval grows by `slowDownSeconds` for this and every later poll. Null when
   * the request is no longer pending and unexpired (decided meanwhile): the caller reads it again.
   */
  poll(deviceCodeHash: string, now: Date, options: { toleranceMs: number; slowDownSeconds: number }): Promise<DevicePoll | null>;
  /**
   * Records the person's decision on a pending, unexpired request, once (one conditional update: a second
   * decision, or one after expiry, changes nothing and returns false).
   */
  decide(deviceCodeHash: string, decision: { status: 'approved' | 'denied'; userId: number }, now: Date): Promise<boolean>;
  /** Deletes what expired before `before`; with `limit`, at most that many rows (call again while it returns `limit`). */
  deleteExpired(before: Date, limit?: number): Promise<number>;
}

/** An API that access tokens may be issued for (RFC 8707; `latch resource create`). */
export interface ResourceServer {
  /** The resource indicator: an absolute URI without fragment, compared exactly (RFC 8707 §2). */
  identifier: string;
  name: string;
  /** The scopes the API defines, in the order registered. */
  scope: string[];
  createdAt: Date;
}

export interface ResourceServerRepository {
  /** False when a resource server with this identifier exists already. */
  insert(resource: ResourceServer): Promise<boolean>;
  list(): Promise<ResourceServer[]>;
  /** The registered ones among `identifiers`, in no particular order. */
  findMany(identifiers: readonly string[]): Promise<ResourceServer[]>;
  /** False when there was none. Grants that named it keep their rows; tokens for it are refused from now on. */
  delete(identifier: string): Promise<boolean>;
  /** Records the resources a grant's authorization request named (RFC 8707 §2.1). */
  recordGrantResources(grantId: string, resources: readonly string[], now: Date): Promise<void>;
  /** The resources a grant's authorization request named. */
  listGrantResources(grantId: string): Promise<string[]>;
  /**
   * Forgets the resources of grants recorded before `before` (older than any unexchanged code) that have no refresh
   * token live at `now`: no token request can name them any more. In batches of `limit` grants (the cleanup).
   */
  deleteEndedGrantResources(before: Date, now: Date, limit?: number): Promise<number>;
}

export interface Storage {
  readonly dialect: 'sqlite' | 'postgres';
  users: UserRepository;
  clients: ClientRepository;
  authorizationCodes: AuthorizationCodeRepository;
  tokens: TokenRepository;
  consents: ConsentRepository;
  browserSessions: BrowserSessionRepository;
  clientEvents: ClientEventRepository;
  emailLinks: EmailLinkRepository;
  outbox: OutboxRepository;
  avatarImages: AvatarImageRepository;
  signingKeys: SigningKeyRepository;
  backchannelLogoutDeliveries: BackchannelLogoutDeliveryRepository;
  auditEvents: AuditEventRepository;
  secondFactors: SecondFactorRepository;
  passkeys: PasskeyRepository;
  webauthnChallenges: WebauthnChallengeRepository;
  webhooks: WebhookRepository;
  webhookDeliveries: WebhookDeliveryRepository;
  registrationTokens: RegistrationTokenRepository;
  deviceAuthorizations: DeviceAuthorizationRepository;
  resourceServers: ResourceServerRepository;
  /** Runs fn with repositories bound to one transaction. Keep it short: SQLite has one writer. */
  transaction<T>(fn: (storage: Storage) => Promise<T>): Promise<T>;
  /** True when the database answers. */
  ping(): Promise<boolean>;
  /** True when every migration this code knows has been applied (readiness, `latch serve --no-migrate`). */
  migrationsAreCurrent(): Promise<boolean>;
  close(): Promise<void>;
}
