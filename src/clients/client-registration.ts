/**
 * Registering and changing clients: shared by `latch client …` and the developer console.
 * Secrets are returned once, at creation or rotation, and only their hashes are stored.
 */
import { generateIdentifier, generateSecret, hashSecret, SECRET_PREFIX } from '../crypto/secrets.js';
import type { SigningAlgorithm } from '../crypto/signing-algorithms.js';
import { hasControlOrDirectionMark, showsAsNothing } from '../display-text.js';
import type { Client, ClientGrantType, Storage } from '../storage/storage.js';
import { checkClientKind, DEFAULT_CLIENT_GRANT_TYPES } from './client-kind-policy.js';
import { inEnglish, type CatalogueText } from '../i18n/translator.js';
import { backchannelLogoutUriProblem, postLogoutRedirectUriProblems } from './logout-uri-policy.js';
import { redirectUriProblem } from './redirect-uri-policy.js';
import { checkRefreshLifetimes, type RefreshLifetimeSettings } from './refresh-lifetimes.js';

/**
 * A registration or change refused. Its message is English (the CLI, the registration endpoint); the problems
 * of the rules the console shows come with it as messages of the catalogue, to tell in the page's language.
 */
export class ClientRegistrationError extends Error {
  constructor(
    message: string,
    readonly problems: readonly CatalogueText[] = [],
  ) {
    super(message);
  }

  /** The problems, in English one after the other ("…; …"), as the message. */
  static of(problems: readonly CatalogueText[]): ClientRegistrationError {
    return new ClientRegistrationError(problems.map(inEnglish).join('; '), problems);
  }
}

export interface RegistrationPolicy {
  developmentMode: boolean;
}

export interface NewClientRegistration {
  name: string;
  redirectUris: string[];
  ownerUserId?: number | null;
  homepageUrl?: string | null;
  logoUrl?: string | null;
  /** Its privacy policy and terms of service (OIDC Registration `policy_uri`, `tos_uri`), linked on the consent page. */
  policyUrl?: string | null;
  termsUrl?: string | null;
  /** id_token signing algorithm (OIDC Registration `id_token_signed_response_alg`); RS256 when left out. */
  idTokenSignedResponseAlg?: SigningAlgorithm;
  /** Where the logout endpoint may send people afterwards (OIDC RP-Initiated Logout 1.0 §3.1); none by default. */
  postLogoutRedirectUris?: string[];
  /** Where logout tokens are posted (OIDC Back-Channel Logout 1.0 §2.2); none by default. */
  backchannelLogoutUri?: string | null;
  /** A single-page or mobile app (token_endpoint_auth_method none): no secret is issued, PKCE is required. */
  isPublic?: boolean;
  /** authorization_code and refresh_token when left out; client_credentials for a service. */
  grantTypes?: ClientGrantType[];
  /** A service's scopes (the ceiling of its client_credentials tokens); none by default. */
  scope?: string[];
  /** A client that registers itself (RFC 7591): the hash of its registration access token (RFC 7592). */
  registrationAccessTokenHash?: string;
  /** Its own refresh-token lifetimes in seconds (refresh-lifetimes.ts); the deployment's when left out or null. */
  refreshTokenIdleSeconds?: number | null;
  refreshTokenMaxSeconds?: number | null;
  /** Every user needs a second factor (session/authentication-methods.ts); off when left out. */
  requireMfa?: boolean;
}

export const MAX_REDIRECT_URIS = 20;

const MAX_CLIENT_NAME_LENGTH = 100;

export function clientNameProblem(name: string): CatalogueText | null {
  // What people read on the consent page before they let an app in (display-text.ts).
  if (showsAsNothing(name)) return { key: 'rules.clientName.empty' };
  if (name.length > MAX_CLIENT_NAME_LENGTH) return { key: 'rules.clientName.tooLong', params: { max: String(MAX_CLIENT_NAME_LENGTH) } };
  if (hasControlOrDirectionMark(name)) return { key: 'rules.clientName.invisibleCharacters' };
  return null;
}

export function checkClientName(name: string): string | null {
  const problem = clientNameProblem(name);
  return problem && inEnglish(problem);
}

/** Throws ClientRegistrationError with every problem in the list of URIs. */
export function checkRedirectUris(uris: readonly string[], policy: RegistrationPolicy): string[] {
  const problems = uris.map((uri) => redirectUriProblem(uri, policy)).filter((p): p is CatalogueText => p !== null);
  if (uris.length === 0) problems.push({ key: 'rules.redirectUris.none' });
  if (uris.length > MAX_REDIRECT_URIS) problems.push({ key: 'rules.redirectUris.tooMany', params: { max: String(MAX_REDIRECT_URIS) } });
  if (problems.length > 0) throw ClientRegistrationError.of(problems);
  return [...new Set(uris)];
}

/** The logout settings of a client, checked: throws ClientRegistrationError with every problem. */
export function checkLogoutSettings(
  settings: { postLogoutRedirectUris: readonly string[]; backchannelLogoutUri: string | null },
  policy: RegistrationPolicy,
): { postLogoutRedirectUris: string[]; backchannelLogoutUri: string | null } {
  const { problems, uris } = postLogoutRedirectUriProblems(settings.postLogoutRedirectUris, policy);
  const backchannelProblem = settings.backchannelLogoutUri === null ? null : backchannelLogoutUriProblem(settings.backchannelLogoutUri, policy);
  if (backchannelProblem) problems.push(backchannelProblem);
  if (problems.length > 0) throw ClientRegistrationError.of(problems);
  return { postLogoutRedirectUris: uris, backchannelLogoutUri: settings.backchannelLogoutUri };
}

/** A confidential client (its secret, shown once); for a public one, registerClientOfAnyKind. */
export async function registerClient(
  storage: Storage,
  registration: NewClientRegistration & { isPublic?: false },
  policy: RegistrationPolicy,
  now = new Date(),
): Promise<{ client: Client; clientSecret: string }> {
  const { client, clientSecret } = await registerClientOfAnyKind(storage, { ...registration, isPublic: false }, policy, now);
  return { client, clientSecret: clientSecret! };
}

/** Any kind of client: the secret to show once, or null for a public client, which has none. */
export async function registerClientOfAnyKind(
  storage: Storage,
  registration: NewClientRegistration,
  policy: RegistrationPolicy,
  now = new Date(),
): Promise<{ client: Client; clientSecret: string | null }> {
  const nameProblem = clientNameProblem(registration.name);
  if (nameProblem) throw ClientRegistrationError.of([nameProblem]);
  const isPublic = registration.isPublic ?? false;
  const grantTypes = [...new Set(registration.grantTypes ?? DEFAULT_CLIENT_GRANT_TYPES)];
  const scope = [...new Set(registration.scope ?? [])];
  const kindProblems = checkClientKind({ isPublic, grantTypes, scope });
  if (kindProblems.length > 0) throw new ClientRegistrationError(kindProblems.join('; '));
  // A service that only uses client_credentials never sends anyone anywhere: redirect URIs are optional for it.
  const redirectUris =
    grantTypes.includes('authorization_code') || registration.redirectUris.length > 0 ? checkRedirectUris(registration.redirectUris, policy) : [];
  const logout = checkLogoutSettings(
    { postLogoutRedirectUris: registration.postLogoutRedirectUris ?? [], backchannelLogoutUri: registration.backchannelLogoutUri ?? null },
    policy,
  );
  const lifetimes = { refreshTokenIdleSeconds: registration.refreshTokenIdleSeconds ?? null, refreshTokenMaxSeconds: registration.refreshTokenMaxSeconds ?? null };
  const lifetimeProblems = checkRefreshLifetimes(lifetimes);
  if (lifetimeProblems.length > 0) throw new ClientRegistrationError(lifetimeProblems.join('; '));
  // A public client gets no secret (RFC 6749 §2.1: it could not keep one). The column still holds the hash of
  // a random value nobody ever sees, and client authentication refuses secrets for public clients anyway.
  const clientSecret = generateSecret(SECRET_PREFIX.clientSecret);
  const client = await storage.clients.insert(
    {
      clientId: generateIdentifier(16),
      name: registration.name.trim(),
      secretHash: hashSecret(clientSecret),
      tokenEndpointAuthMethod: isPublic ? 'none' : 'client_secret_basic',
      grantTypes,
      scope,
      ...(registration.registrationAccessTokenHash !== undefined && {
        registrationAccessTokenHash: registration.registrationAccessTokenHash,
        registeredDynamically: true,
      }),
      previousSecretHash: null,
      previousSecretExpiresAt: null,
      redirectUris,
      ownerUserId: registration.ownerUserId ?? null,
      homepageUrl: registration.homepageUrl ?? null,
      logoUrl: registration.logoUrl ?? null,
      policyUrl: registration.policyUrl ?? null,
      termsUrl: registration.termsUrl ?? null,
      ...(registration.idTokenSignedResponseAlg !== undefined && { idTokenSignedResponseAlg: registration.idTokenSignedResponseAlg }),
      ...logout,
      ...lifetimes,
      requireMfa: registration.requireMfa ?? false,
    },
    now,
  );
  return { client, clientSecret: isPublic ? null : clientSecret };
}

async function requireClient(storage: Storage, clientId: string): Promise<Client> {
  const client = await storage.clients.findById(clientId);
  if (!client) throw new ClientRegistrationError(`No client with id ${clientId}`);
  return client;
}

export async function addRedirectUri(storage: Storage, clientId: string, uri: string, policy: RegistrationPolicy, now = new Date()): Promise<Client> {
  const client = await requireClient(storage, clientId);
  const redirectUris = checkRedirectUris([...client.redirectUris, uri], policy);
  await storage.clients.update(clientId, { redirectUris }, now);
  return { ...client, redirectUris };
}

export async function removeRedirectUri(storage: Storage, clientId: string, uri: string, now = new Date()): Promise<Client> {
  const client = await requireClient(storage, clientId);
  if (!client.redirectUris.includes(uri)) throw new ClientRegistrationError(`${uri} is not registered for client ${clientId}`);
  const redirectUris = client.redirectUris.filter((u) => u !== uri);
  if (redirectUris.length === 0) throw new ClientRegistrationError('A client must keep at least one redirect URI; add the new one first');
  await storage.clients.update(clientId, { redirectUris }, now);
  return { ...client, redirectUris };
}

/**
 * Issues a new secret. The old one keeps working for `gracePeriodSeconds` (0: stops at once), so that a
 * deployment can roll the new secret out without downtime.
 */
export async function rotateClientSecret(
  storage: Storage,
  clientId: string,
  gracePeriodSeconds: number,
  now = new Date(),
): Promise<{ client: Client; clientSecret: string }> {
  const client = await requireClient(storage, clientId);
  if (client.tokenEndpointAuthMethod === 'none') {
    throw new ClientRegistrationError(`Client ${clientId} is a public client (a single-page or mobile app): it has no secret to rotate`);
  }
  const clientSecret = generateSecret(SECRET_PREFIX.clientSecret);
  const patch = {
    secretHash: hashSecret(clientSecret),
    previousSecretHash: gracePeriodSeconds > 0 ? client.secretHash : null,
    previousSecretExpiresAt: gracePeriodSeconds > 0 ? new Date(now.getTime() + gracePeriodSeconds * 1000) : null,
  };
  await storage.clients.update(clientId, patch, now);
  return { client: { ...client, ...patch }, clientSecret };
}

/**
 * Sets a client's own refresh-token lifetimes (null: back to the deployment's). They apply to what is issued from
 * now on: a grant's absolute expiry is fixed when its first refresh token is issued, a token's idle expiry when
 * it is issued or rotated. Tokens already out keep theirs; revoke them to cut them short.
 */
export async function setRefreshLifetimes(storage: Storage, clientId: string, settings: Partial<RefreshLifetimeSettings>, now = new Date()): Promise<Client> {
  const client = await requireClient(storage, clientId);
  const next: RefreshLifetimeSettings = {
    refreshTokenIdleSeconds: settings.refreshTokenIdleSeconds === undefined ? client.refreshTokenIdleSeconds : settings.refreshTokenIdleSeconds,
    refreshTokenMaxSeconds: settings.refreshTokenMaxSeconds === undefined ? client.refreshTokenMaxSeconds : settings.refreshTokenMaxSeconds,
  };
  const problems = checkRefreshLifetimes(next);
  if (problems.length > 0) throw new ClientRegistrationError(problems.join('; '));
  await storage.clients.update(clientId, next, now);
  return { ...client, ...next };
}
