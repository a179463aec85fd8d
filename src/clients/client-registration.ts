/**
 * Registering and changing clients: shared by `latch client …` and the developer console.
 * Secrets are returned once, at creation or rotation, and only their hashes are stored.
 */
import { generateIdentifier, generateSecret, hashSecret, SECRET_PREFIX } from '../crypto/secrets.js';
import type { SigningAlgorithm } from '../crypto/signing-algorithms.js';
import type { Client, Storage } from '../storage/storage.js';
import { checkRedirectUri } from './redirect-uri-policy.js';

export class ClientRegistrationError extends Error {}

export interface RegistrationPolicy {
  developmentMode: boolean;
}

export interface NewClientRegistration {
  name: string;
  redirectUris: string[];
  ownerUserId?: number | null;
  homepageUrl?: string | null;
  logoUrl?: string | null;
  /** id_token signing algorithm (OIDC Registration `id_token_signed_response_alg`); RS256 when left out. */
  idTokenSignedResponseAlg?: SigningAlgorithm;
}

export const MAX_REDIRECT_URIS = 20;

export function checkClientName(name: string): string | null {
  if (name.trim().length === 0) return 'Client name must not be empty';
  if (name.length > 100) return 'Client name must be at most 100 characters';
  return null;
}

/** Throws ClientRegistrationError with every problem in the list of URIs. */
export function checkRedirectUris(uris: readonly string[], policy: RegistrationPolicy): string[] {
  const problems = uris.map((uri) => checkRedirectUri(uri, policy)).filter((p): p is string => p !== null);
  if (uris.length === 0) problems.push('Register at least one redirect URI');
  if (uris.length > MAX_REDIRECT_URIS) problems.push(`At most ${MAX_REDIRECT_URIS} redirect URIs per client`);
  if (problems.length > 0) throw new ClientRegistrationError(problems.join('; '));
  return [...new Set(uris)];
}

export async function registerClient(
  storage: Storage,
  registration: NewClientRegistration,
  policy: RegistrationPolicy,
  now = new Date(),
): Promise<{ client: Client; clientSecret: string }> {
  const nameProblem = checkClientName(registration.name);
  if (nameProblem) throw new ClientRegistrationError(nameProblem);
  const redirectUris = checkRedirectUris(registration.redirectUris, policy);
  const clientSecret = generateSecret(SECRET_PREFIX.clientSecret);
  const client = await storage.clients.insert(
    {
      clientId: generateIdentifier(16),
      name: registration.name.trim(),
      secretHash: hashSecret(clientSecret),
      previousSecretHash: null,
      previousSecretExpiresAt: null,
      redirectUris,
      ownerUserId: registration.ownerUserId ?? null,
      homepageUrl: registration.homepageUrl ?? null,
      logoUrl: registration.logoUrl ?? null,
      ...(registration.idTokenSignedResponseAlg !== undefined && { idTokenSignedResponseAlg: registration.idTokenSignedResponseAlg }),
    },
    now,
  );
  return { client, clientSecret };
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
  const clientSecret = generateSecret(SECRET_PREFIX.clientSecret);
  const patch = {
    secretHash: hashSecret(clientSecret),
    previousSecretHash: gracePeriodSeconds > 0 ? client.secretHash : null,
    previousSecretExpiresAt: gracePeriodSeconds > 0 ? new Date(now.getTime() + gracePeriodSeconds * 1000) : null,
  };
  await storage.clients.update(clientId, patch, now);
  return { client: { ...client, ...patch }, clientSecret };
}
