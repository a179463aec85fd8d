/**
 * Resolving a client_id that is the URL of a Client ID Metadata Document (draft-ietf-oauth-client-id-metadata-document;
 * issue 18 item 4; docs/protocol-decisions.md "Client ID Metadata Documents"), at the authorization request.
 *
 * The document is fetched through http/outbound-request.ts (addresses checked and pinned, no redirects followed, a
 * short deadline, at most 5 KiB), read by clients/metadata-document.ts, and kept as a row of the clients table, so
 * that codes, tokens, consents, the token endpoint's public-client authentication and logout find the client
 * through storage.clients.findById like any other. The row says when the document is to be fetched again
 * (`metadataDocumentExpiresAt`); the next authorization request after that fetches it again and updates the row.
 *
 * Against abuse, beside the per-address limit on authorization requests: concurrent requests for one URL share one
 * fetch, a failure is remembered for METADATA_FAILURE_CACHE_SECONDS, in this process, so that a bad URL cannot
 * make Latch fetch in a loop, and at most MAX_CONCURRENT_FETCHES documents are fetched at once.
 */
import { generateSecret, hashSecret, SECRET_PREFIX } from '../../crypto/secrets.js';
import {
  checkClientIdUrl,
  METADATA_DOCUMENT_MAX_BYTES,
  METADATA_DOCUMENT_TIMEOUT_MS,
  METADATA_FAILURE_CACHE_SECONDS,
  MetadataDocumentError,
  metadataCacheSeconds,
  readMetadataDocument,
  type MetadataDocumentClient,
} from '../../clients/metadata-document.js';
import { InvalidRequest } from '../../errors.js';
import { getDocument, OutboundRequestError, type Resolver } from '../../http/outbound-request.js';
import type { Client, ClientPatch, Storage } from '../../storage/storage.js';

export interface MetadataDocumentSettings {
  /** LATCH_DEV_MODE: http client_id URLs to loopback hosts, and http links in documents. */
  developmentMode: boolean;
  /** LATCH_DEV_MODE or LATCH_OUTBOUND_ALLOW_PRIVATE: fetches may reach loopback and private addresses. */
  allowPrivateAddresses: boolean;
  timeoutMs?: number;
  resolve?: Resolver;
  /** Documents fetched at once in this process at most (default MAX_CONCURRENT_FETCHES); tests set fewer. */
  maxConcurrentFetches?: number;
}

/** Remembered failures, at most this many (the oldest forgotten first), so that the memory they take is bounded. */
const MAX_REMEMBERED_FAILURES = 1000;
/**
 * Fetches of different URLs at once, at most: each URL's fetches are shared, but anyone can make up URLs, and each
 * fetch holds a socket for up to the deadline. A fetch beyond this waits for a free slot, for at most the deadline.
 */
const MAX_CONCURRENT_FETCHES = 16;

/** A failure to show the person (never redirected: the client is not verified, RFC 6749 §4.1.2.1). */
function unusable(reason: string): InvalidRequest {
  return new InvalidRequest(`client_id is the address of a client metadata document that could not be used: ${reason}`, { redirectable: false });
}

function describeFetchFailure(error: OutboundRequestError): string {
  switch (error.failure.kind) {
    case 'too_large':
      return `the document is larger than ${error.failure.limitBytes} bytes`;
    case 'timeout':
      return `the document did not arrive within ${error.failure.timeoutMs / 1000} s`;
    default:
      return error.message;
  }
}

function clientFields(document: MetadataDocumentClient, expiresAt: Date): Required<Pick<ClientPatch, 'name' | 'redirectUris' | 'grantTypes' | 'homepageUrl' | 'logoUrl' | 'policyUrl' | 'termsUrl' | 'postLogoutRedirectUris' | 'backchannelLogoutUri' | 'metadataDocumentExpiresAt'>> &
  Pick<ClientPatch, 'idTokenSignedResponseAlg'> {
  return {
    name: document.name,
    redirectUris: document.redirectUris,
    grantTypes: document.grantTypes,
    homepageUrl: document.homepageUrl,
    logoUrl: document.logoUrl,
    policyUrl: document.policyUrl,
    termsUrl: document.termsUrl,
    postLogoutRedirectUris: document.postLogoutRedirectUris,
    backchannelLogoutUri: document.backchannelLogoutUri,
    metadataDocumentExpiresAt: expiresAt,
    ...(document.idTokenSignedResponseAlg !== null && { idTokenSignedResponseAlg: document.idTokenSignedResponseAlg }),
  };
}

export interface MetadataDocumentResolver {
  /**
   * The client of a client_id URL: its row while the document is fresh, else the document fetched, checked and
   * stored. Throws InvalidRequest (not redirectable) with the reason when it cannot be used.
   */
  resolve(clientId: string, now: Date, onCreated?: (client: Client) => void): Promise<Client>;
}

export function createMetadataDocumentResolver(storage: Storage, settings: MetadataDocumentSettings): MetadataDocumentResolver {
  const failures = new Map<string, { until: number; reason: string }>();
  const inFlight = new Map<string, Promise<Client>>();
  const timeoutMs = settings.timeoutMs ?? METADATA_DOCUMENT_TIMEOUT_MS;
  const maxConcurrent = settings.maxConcurrentFetches ?? MAX_CONCURRENT_FETCHES;
  let fetching = 0;
  const waiting: Array<() => void> = [];

  /** A slot among the concurrent fetches, or false when none came free within the deadline. */
  function acquireSlot(): Promise<boolean> {
    if (fetching < maxConcurrent) {
      fetching += 1;
      return Promise.resolve(true);
    }
    return new Promise((resolve) => {
      const take = () => {
        clearTimeout(timer);
        resolve(true);
      };
      const timer = setTimeout(() => {
        waiting.splice(waiting.indexOf(take), 1);
        resolve(false);
      }, timeoutMs);
      waiting.push(take);
    });
  }
  function releaseSlot() {
    const next = waiting.shift();
    // The slot passes to the next waiter as it is: the count stays.
    if (next) next();
    else fetching -= 1;
  }

  function remember(clientId: string, reason: string, now: Date) {
    failures.delete(clientId);
    failures.set(clientId, { until: now.getTime() + METADATA_FAILURE_CACHE_SECONDS * 1000, reason });
    while (failures.size > MAX_REMEMBERED_FAILURES) failures.delete(failures.keys().next().value!);
  }

  async function fetchDocument(clientId: string, now: Date): Promise<{ document: MetadataDocumentClient; expiresAt: Date }> {
    if (!(await acquireSlot())) {
      // Not this URL's fault: nothing is remembered against it.
      throw new InvalidRequest('Latch is fetching many client metadata documents at the moment; try again in a few seconds', { redirectable: false });
    }
    let response;
    try {
      response = await getDocument(clientId, 'application/json', {
        allowPrivateAddresses: settings.allowPrivateAddresses,
        timeoutMs,
        maxResponseBytes: METADATA_DOCUMENT_MAX_BYTES,
        ...(settings.resolve && { resolve: settings.resolve }),
      });
    } catch (error) {
      if (error instanceof OutboundRequestError) throw new MetadataDocumentError(describeFetchFailure(error));
      throw error;
    } finally {
      releaseSlot();
    }
    // Draft §4: redirects are not followed, and only a 200 carries a document.
    if (response.status !== 200) {
      const redirect = response.status >= 300 && response.status < 400 ? ' (redirects are not followed: serve the document at the client_id URL itself)' : '';
      throw new MetadataDocumentError(`fetching it answered HTTP ${response.status}, not 200${redirect}`);
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(response.body.toString('utf8'));
    } catch {
      throw new MetadataDocumentError('the document is not JSON');
    }
    const document = readMetadataDocument(clientId, parsed, { developmentMode: settings.developmentMode });
    const header = (name: string) => {
      const value = response.headers[name];
      return Array.isArray(value) ? value.join(', ') : value;
    };
    const seconds = metadataCacheSeconds({ cacheControl: header('cache-control'), expires: header('expires'), date: header('date') }, now);
    return { document, expiresAt: new Date(now.getTime() + seconds * 1000) };
  }

  async function store(clientId: string, stored: Client | null, fetched: { document: MetadataDocumentClient; expiresAt: Date }, now: Date): Promise<Client> {
    const fields = clientFields(fetched.document, fetched.expiresAt);
    if (stored === null) {
      try {
        // Public: the secret column holds the hash of a value nobody ever sees (as for other public clients).
        return await storage.clients.insert(
          {
            clientId,
            secretHash: hashSecret(generateSecret(SECRET_PREFIX.clientSecret)),
            previousSecretHash: null,
            previousSecretExpiresAt: null,
            ownerUserId: null,
            tokenEndpointAuthMethod: 'none',
            ...fields,
          },
          now,
        );
      } catch (error) {
        // Another process stored it meanwhile (the same URL asked for at once): update that row instead.
        if ((await storage.clients.findById(clientId)) === null) throw error;
      }
    }
    await storage.clients.update(clientId, fields, now);
    const updated = await storage.clients.findById(clientId);
    if (updated === null) throw new MetadataDocumentError('the client was removed while its document was read');
    return updated;
  }

  async function refresh(clientId: string, stored: Client | null, now: Date, onCreated?: (client: Client) => void): Promise<Client> {
    try {
      const client = await store(clientId, stored, await fetchDocument(clientId, now), now);
      if (stored === null) onCreated?.(client);
      return client;
    } catch (error) {
      if (!(error instanceof MetadataDocumentError)) throw error;
      remember(clientId, error.message, now);
      throw unusable(error.message);
    }
  }

  return {
    async resolve(clientId, now, onCreated) {
      const problem = checkClientIdUrl(clientId, { developmentMode: settings.developmentMode });
      if (problem !== null) throw unusable(problem);
      const failure = failures.get(clientId);
      if (failure !== undefined) {
        if (failure.until > now.getTime()) throw unusable(`${failure.reason} (Latch tries again ${METADATA_FAILURE_CACHE_SECONDS} s after a failure)`);
        failures.delete(clientId);
      }
      const stored = await storage.clients.findById(clientId);
      // A row Latch did not make from a document (none can have a URL as client_id today) is used as it is.
      if (stored !== null && !stored.metadataDocumentExpiresAt) return stored;
      if (stored !== null && stored.metadataDocumentExpiresAt!.getTime() > now.getTime()) return stored;
      const pending = inFlight.get(clientId);
      if (pending) return pending;
      const fetching = refresh(clientId, stored, now, onCreated).finally(() => inFlight.delete(clientId));
      inFlight.set(clientId, fetching);
      return fetching;
    },
  };
}
