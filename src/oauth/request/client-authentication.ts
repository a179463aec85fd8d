/**
 * Client authentication at the token, revocation and introspection endpoints (RFC 6749 §2.3.1, RFC 7009 §2.1,
 * RFC 7662 §2.1; docs/protocol-decisions.md "Client authentication"): `client_secret_basic` or
 * `client_secret_post`, never both (RFC 6749 §2.3), or `none` for a public client: `client_id` alone in the body
 * (RFC 6749 §3.2.1, §4.1.3; docs/protocol-decisions.md "Public clients and services"). Basic credentials are percent-decoded after Base64 (RFC 6749
 * §2.3.1); ids and secrets use only unreserved characters, so clients that skip the encoding work as well. Secrets
 * are compared as SHA-256 hashes in constant time.
 */
import type { FastifyRequest } from 'fastify';
import { hashesEqual, hashSecret } from '../../crypto/secrets.js';
import { InvalidClient, InvalidRequest } from '../../errors.js';
import type { Client, Storage } from '../../storage/storage.js';
import { decodeFormEncoded, splitBasicCredentials } from '../../http/basic-credentials.js';
import { readFormParams, type RawParams } from '../../http/form-body.js';
import { findDuplicatedParam, readParam } from './params.js';
import { unknownClientDescription } from './unknown-client.js';

/** RFC 8707 §2: resource alone may repeat (a token request answers more than one with invalid_target: request/resource.ts). */
const REPEATABLE = ['resource'] as const;

type PresentedCredentials =
  | { clientId: string; clientSecret: string; method: 'client_secret_basic' | 'client_secret_post' }
  | { clientId: string; method: 'none' };

function decodeCredential(value: string): string {
  const decoded = decodeFormEncoded(value);
  if (decoded === null) throw new InvalidClient('The Basic credentials are not valid percent-encoding', true);
  // Raw after Base64 or as %00: no client id or secret has one, and PostgreSQL cannot look one up (http/percent-encoding.ts nulCharacter).
  if (decoded.includes('\u0000')) throw new InvalidClient('The Basic credentials hold a NUL character, which no client id or secret has', true);
  return decoded;
}

function readBasicCredentials(header: string): { clientId: string; clientSecret: string } {
  const parts = splitBasicCredentials(header);
  if ('problem' in parts) {
    throw new InvalidClient(
      parts.problem === 'no colon' ? 'The Basic credentials must be client_id:client_secret' : 'The Authorization header must be Basic base64(client_id:client_secret)',
      true,
    );
  }
  return { clientId: decodeCredential(parts.id), clientSecret: decodeCredential(parts.secret) };
}

/**
 * Credentials put in the URL's query string, where Latch never reads them (RFC 6749 §2.3.1: "MUST NOT be
 * included in the request URI"; they end up in access logs and proxies): a sentence to add to the error, so
 * that the caller learns they were seen and ignored, and where they go instead. Never the values themselves.
 */
function credentialsInQueryNote(request: FastifyRequest): string {
  const query = (request.query ?? {}) as Record<string, unknown>;
  const sent = ['client_secret', 'client_id'].filter((name) => query[name] !== undefined);
  if (sent.length === 0) return '';
  return `. ${sent.join(' and ')} ${sent.length > 1 ? 'were' : 'was'} sent in the URL's query string, where Latch ignores ${sent.length > 1 ? 'them' : 'it'} (RFC 6749 §2.3.1: credentials never go in the URL): send them as HTTP Basic credentials or in the application/x-www-form-urlencoded POST body`;
}

export function readClientCredentials(request: FastifyRequest, params: RawParams): PresentedCredentials {
  const header = request.headers.authorization;
  const bodyClientId = readParam(params, 'client_id', { maxLength: 256 });
  const bodySecret = readParam(params, 'client_secret', { maxLength: 512 });
  if (header !== undefined) {
    // The scheme is the first word: "Basic" alone, or followed by a tab, is Basic (malformed or not), not another scheme.
    if (!/^basic(?:[ \t]|$)/i.test(header)) throw new InvalidClient('Only Basic authentication is accepted in the Authorization header here', true);
    const basic = readBasicCredentials(header);
    if (bodySecret !== undefined) {
      throw new InvalidRequest('Client credentials were sent both in the Authorization header and in the body; use exactly one method');
    }
    if (bodyClientId !== undefined && bodyClientId !== basic.clientId) {
      throw new InvalidRequest('client_id in the body differs from the client id in the Basic credentials');
    }
    return { ...basic, method: 'client_secret_basic' };
  }
  if (bodyClientId === undefined) {
    throw new InvalidClient(`Client authentication is required: send client_id and client_secret in the body, or HTTP Basic credentials${credentialsInQueryNote(request)}`, false);
  }
  // Only a public client may send client_id alone; that is checked once the client is known.
  if (bodySecret === undefined) return { clientId: bodyClientId, method: 'none' };
  return { clientId: bodyClientId, clientSecret: bodySecret, method: 'client_secret_post' };
}

export function clientSecretMatches(client: Client, presentedSecret: string, now: Date): boolean {
  const presentedHash = hashSecret(presentedSecret);
  if (hashesEqual(presentedHash, client.secretHash)) return true;
  // During a rotation's grace period, the previous secret is still accepted.
  return (
    client.previousSecretHash !== null &&
    client.previousSecretExpiresAt !== null &&
    client.previousSecretExpiresAt > now &&
    hashesEqual(presentedHash, client.previousSecretHash)
  );
}

export async function authenticateClient(
  request: FastifyRequest,
  params: RawParams,
  storage: Storage,
  now: Date,
): Promise<Client> {
  const credentials = readClientCredentials(request, params);
  const triedBasic = credentials.method === 'client_secret_basic';
  const client = await storage.clients.findById(credentials.clientId);
  if (!client) throw new InvalidClient(`Client authentication failed: ${unknownClientDescription(credentials.clientId)}`, triedBasic);
  request.latchClient = client;
  if (client.tokenEndpointAuthMethod === 'none') {
    if (credentials.method === 'none') return client;
    // A secret from a public client means it is configured as confidential somewhere, or a secret leaked into
    // an app that cannot keep it: refused, so that the mistake is seen rather than silently ignored.
    throw new InvalidClient(
      'This client is public (a single-page or mobile app; token_endpoint_auth_method none): it has no secret, so send client_id alone in the body and no client_secret or Basic credentials',
      triedBasic,
    );
  }
  if (credentials.method === 'none') {
    throw new InvalidClient(`client_secret is required with client_id: this client is confidential (send the secret in the body or as HTTP Basic credentials)${credentialsInQueryNote(request)}`, false);
  }
  if (!clientSecretMatches(client, credentials.clientSecret, now)) {
    // No Latch secret starts or ends with whitespace: a secret pasted with a space or a line break is the most
    // common way a right secret fails. Saying so tells nothing about the secret itself.
    const padded = credentials.clientSecret !== credentials.clientSecret.trim();
    throw new InvalidClient(
      padded
        ? 'Client authentication failed: the client secret starts or ends with whitespace (a space or a line break), which no Latch secret has; send it without it'
        : 'Client authentication failed: the client secret is wrong (or was rotated and its grace period is over)',
      triedBasic,
    );
  }
  return client;
}

/**
 * The common start of the token, revocation and introspection endpoints (RFC 6749 §3.2, RFC 7009 §2.1, RFC 7662
 * §2.1): the form body, then the client, authenticated before anything else is read (its own parameters are
 * read strictly, once each), so that every later failure is recorded against it for its developer console;
 * then every other parameter at most once.
 */
export async function readClientRequest(request: FastifyRequest, storage: Storage, now: Date): Promise<{ params: RawParams; client: Client }> {
  const params = await readFormParams(request);
  const client = await authenticateClient(request, params, storage, now);
  const duplicated = findDuplicatedParam(params, REPEATABLE);
  if (duplicated) throw new InvalidRequest(`${duplicated} was sent more than once; send it exactly once`);
  return { params, client };
}
