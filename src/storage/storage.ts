/**
 * The storage interface the rest of Latch depends on: one repository per aggregate, record types in domain
 * form (Dates, booleans, arrays), never SQL. Implemented over Kysely in repositories/*.ts for both dialects.
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
}
export interface NewUser {
  email: string;
  emailVerified: boolean;
  name: string;
  avatarUrl: string | null;
  passwordHash: string;
}
export type UserPatch = Partial<Pick<User, 'email' | 'emailVerified' | 'name' | 'avatarUrl' | 'passwordHash'>>;

export interface UserRepository {
  findById(id: number): Promise<User | null>;
  /** Case-insensitive. */
  findByEmail(email: string): Promise<User | null>;
  /** Returns null when the email is already taken (case-insensitively). */
  insert(user: NewUser, now: Date): Promise<User | null>;
  update(id: number, patch: UserPatch, now: Date): Promise<void>;
  list(): Promise<User[]>;
}

export interface Client {
  clientId: string;
  name: string;
  secretHash: string;
  previousSecretHash: string | null;
  previousSecretExpiresAt: Date | null;
  redirectUris: string[];
  ownerUserId: number | null;
  homepageUrl: string | null;
  logoUrl: string | null;
  /** The JWS alg of this client's id_tokens (OIDC Registration `id_token_signed_response_alg`), RS256 by default. */
  idTokenSignedResponseAlg: SigningAlgorithm;
  createdAt: Date;
  updatedAt: Date;
}
export type NewClient = Omit<Client, 'createdAt' | 'updatedAt' | 'idTokenSignedResponseAlg'> & { idTokenSignedResponseAlg?: SigningAlgorithm };
export type ClientPatch = Partial<
  Pick<
    Client,
    'name' | 'secretHash' | 'previousSecretHash' | 'previousSecretExpiresAt' | 'redirectUris' | 'homepageUrl' | 'logoUrl' | 'idTokenSignedResponseAlg'
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
}

export interface AuthorizationCode {
  codeHash: string;
  clientId: string;
  userId: number;
  redirectUri: string;
  scope: string[];
  nonce: string | null;
  codeChallenge: string | null;
  authTime: Date;
  createdAt: Date;
  expiresAt: Date;
  consumedAt: Date | null;
}
export type NewAuthorizationCode = Omit<AuthorizationCode, 'consumedAt'>;

export interface ConsumeConditions {
  codeHash: string;
  clientId: string;
  /** Undefined: the token request left redirect_uri out (spec 4.2 B), so it is not compared. */
  redirectUri: string | undefined;
  /** The S256 of the code_verifier sent, or null when none was sent. */
  codeChallenge: string | null;
}

/** The access token a redeemed code turns into; client, user and scope come from the code. */
export type RedeemedAccessToken = Pick<AccessToken, 'tokenHash' | 'createdAt' | 'expiresAt'>;

export interface AuthorizationCodeRepository {
  /** Stores the code's hash, never the code. */
  insert(code: NewAuthorizationCode): Promise<void>;
  /**
   * Atomically marks an unexpired, unused code as used and returns it, to the first caller only
   * (one conditional update, so that racing exchanges cannot both win, also across processes).
   * Every binding is a condition of the same update, so a request that fails any of them consumes nothing:
   * the code must belong to `clientId`, match `redirectUri` when given, and carry exactly `codeChallenge`
   * (null: the code must have been issued without one).
   */
  consume(conditions: ConsumeConditions, now: Date): Promise<AuthorizationCode | null>;
  /**
   * The token endpoint's write: consumes the code as `consume` does and, in the same transaction, stores the
   * access token issued from it (for the code's client, user and scope). Returns the code and its user, or
   * null when the code could not be consumed, in which case nothing was written.
   */
  redeem(conditions: ConsumeConditions, token: RedeemedAccessToken, now: Date): Promise<{ code: AuthorizationCode; user: User } | null>;
  /** Any code by hash, used or not, for telling "reused" from "unknown" and "expired". */
  findByHash(codeHash: string): Promise<AuthorizationCode | null>;
  deleteExpired(before: Date): Promise<number>;
}

export interface AccessToken {
  tokenHash: string;
  clientId: string;
  userId: number;
  scope: string[];
  authorizationCodeHash: string | null;
  createdAt: Date;
  expiresAt: Date;
  revokedAt: Date | null;
}
export type NewAccessToken = Omit<AccessToken, 'revokedAt'>;

export interface AccessTokenRepository {
  insert(token: NewAccessToken): Promise<void>;
  /** The token and its user in one read, when it exists, is unexpired and unrevoked: the userinfo hot path. */
  findActiveWithUser(tokenHash: string, now: Date): Promise<{ token: AccessToken; user: User } | null>;
  findByHash(tokenHash: string): Promise<AccessToken | null>;
  /** Revokes every token issued from one code (code replay, RFC 6749 §4.1.2). Returns how many. */
  revokeByAuthorizationCode(codeHash: string, now: Date): Promise<number>;
  /** Revokes every token one user granted one client (consent withdrawn). */
  revokeByUserAndClient(userId: number, clientId: string, now: Date): Promise<number>;
  deleteExpired(before: Date): Promise<number>;
}

export interface Consent {
  userId: number;
  clientId: string;
  scope: string[];
  createdAt: Date;
  updatedAt: Date;
}

export interface ConsentRepository {
  find(userId: number, clientId: string): Promise<Consent | null>;
  listByUser(userId: number): Promise<Consent[]>;
  /** Records the union of what was granted before and `scope`. */
  grant(userId: number, clientId: string, scope: string[], now: Date): Promise<void>;
  revoke(userId: number, clientId: string): Promise<boolean>;
}

export interface BrowserSession {
  sessionHash: string;
  userId: number;
  authTime: Date;
  createdAt: Date;
  lastSeenAt: Date;
  expiresAt: Date;
  userAgent: string | null;
  ipAddress: string | null;
}

export interface BrowserSessionRepository {
  insert(session: BrowserSession): Promise<void>;
  /** The session when it exists and has not expired. */
  findActive(sessionHash: string, now: Date): Promise<BrowserSession | null>;
  listByUser(userId: number, now: Date): Promise<BrowserSession[]>;
  touch(sessionHash: string, now: Date): Promise<void>;
  delete(sessionHash: string): Promise<void>;
  /** Ends every session of a user, except optionally one (the one changing the password). */
  deleteByUser(userId: number, exceptSessionHash?: string): Promise<number>;
  deleteExpired(before: Date): Promise<number>;
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
  deleteBefore(before: Date): Promise<number>;
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
  deleteExpired(before: Date): Promise<number>;
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
  deleteBefore(before: Date): Promise<number>;
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
   * Ends every key of `alg` that has no end yet (rotation, run in one transaction with the successor's insert):
   * it stops signing at `deactivatesAt` and leaves the JWKS at `retiresAt`. Returns the kids it ended.
   */
  endOpenKeys(alg: SigningAlgorithm, deactivatesAt: Date, retiresAt: Date): Promise<string[]>;
  /** Ends one key now (compromise): stops signing and leaves the JWKS at once. False when no such key. */
  retireNow(kid: string, now: Date): Promise<boolean>;
  /** Deletes keys retired before `before`, with their encrypted private parts. */
  deleteRetired(before: Date): Promise<number>;
}

export interface Storage {
  readonly dialect: 'sqlite' | 'postgres';
  users: UserRepository;
  clients: ClientRepository;
  authorizationCodes: AuthorizationCodeRepository;
  accessTokens: AccessTokenRepository;
  consents: ConsentRepository;
  browserSessions: BrowserSessionRepository;
  clientEvents: ClientEventRepository;
  emailLinks: EmailLinkRepository;
  outbox: OutboxRepository;
  avatarImages: AvatarImageRepository;
  signingKeys: SigningKeyRepository;
  /** Runs fn with repositories bound to one transaction. Keep it short: SQLite has one writer. */
  transaction<T>(fn: (storage: Storage) => Promise<T>): Promise<T>;
  /** True when the database answers. */
  ping(): Promise<boolean>;
  /** True when every migration this code knows has been applied (readiness, `latch serve --no-migrate`). */
  migrationsAreCurrent(): Promise<boolean>;
  close(): Promise<void>;
}
