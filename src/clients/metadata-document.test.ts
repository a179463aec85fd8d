/**
 * Client ID Metadata Documents (draft-ietf-oauth-client-id-metadata-document): the client_id URL rules, the
 * document rules and the cache lifetime, one clause per row.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  checkClientIdUrl,
  isMetadataDocumentClientId,
  METADATA_CACHE_CEILING_SECONDS,
  METADATA_CACHE_DEFAULT_SECONDS,
  METADATA_CACHE_FLOOR_SECONDS,
  MetadataDocumentError,
  metadataCacheSeconds,
  readMetadataDocument,
} from './metadata-document.js';

const PRODUCTION = { developmentMode: false };
const DEVELOPMENT = { developmentMode: true };

describe('checkClientIdUrl', () => {
  const rows: { rule: string; url: string; policy?: { developmentMode: boolean }; problem: RegExp | null }[] = [
    { rule: '§3: an https URL with a path is accepted', url: 'https://app.example.com/oauth/client.json', problem: null },
    { rule: '§3: a port MAY be used', url: 'https://app.example.com:8443/client', problem: null },
    { rule: '§3: a query is discouraged but not forbidden', url: 'https://app.example.com/client?v=2', problem: null },
    { rule: '§3: http is refused', url: 'http://app.example.com/client', problem: /must use https/ },
    { rule: 'Latch: http to loopback is accepted in development mode', url: 'http://127.0.0.1:8080/client.json', policy: DEVELOPMENT, problem: null },
    { rule: 'Latch: http to a non-loopback host is refused even in development mode', url: 'http://app.example.com/client', policy: DEVELOPMENT, problem: /http only to localhost/ },
    { rule: 'Latch: http to loopback is refused outside development mode', url: 'http://127.0.0.1:8080/client.json', problem: /must use https/ },
    { rule: '§3: the URL MUST contain a path component', url: 'https://app.example.com', problem: /must have a path/ },
    { rule: 'Latch: the root path alone is not a document path', url: 'https://app.example.com/', problem: /must have a path/ },
    { rule: '§3: no fragment', url: 'https://app.example.com/client#x', problem: /fragment/ },
    { rule: '§3: no user name or password', url: 'https://user:pw@app.example.com/client', problem: /user name or password/ },
    { rule: '§3: no . segment', url: 'https://app.example.com/a/./client', problem: /\. or \.\. path segments/ },
    { rule: '§3: no .. segment', url: 'https://app.example.com/a/../client', problem: /\. or \.\. path segments/ },
    { rule: '§3: no percent-encoded .. segment either', url: 'https://app.example.com/a/%2e%2e/client', problem: /\. or \.\. path segments/ },
    { rule: 'Latch: one document is one client: the URL in its normal form (lower-case host)', url: 'https://App.Example.com/client', problem: /normal form, https:\/\/app\.example\.com\/client/ },
    { rule: 'Latch: no default port written out', url: 'https://app.example.com:443/client', problem: /normal form/ },
    { rule: 'Latch: at most 256 characters (the authorization endpoint reads no longer client_id)', url: `https://app.example.com/${'a'.repeat(240)}`, problem: /at most 256/ },
  ];
  for (const row of rows) {
    test(row.rule, () => {
      const problem = checkClientIdUrl(row.url, row.policy ?? PRODUCTION);
      if (row.problem === null) assert.equal(problem, null);
      else assert.match(problem ?? '', row.problem);
    });
  }

  test("Latch's own client ids are never taken for URLs; URLs are", () => {
    assert.equal(isMetadataDocumentClientId('Xk3_9aZpQ2mN8rT1vB4cDw'), false);
    assert.equal(isMetadataDocumentClientId('https://app.example.com/client'), true);
    assert.equal(isMetadataDocumentClientId('http://127.0.0.1/client'), true);
  });
});

describe('readMetadataDocument', () => {
  const id = 'https://app.example.com/client.json';
  const valid = { client_id: id, client_name: 'Example Agent', redirect_uris: ['http://127.0.0.1:33418/callback', 'https://app.example.com/cb'] };

  test('a minimal document is a public client with the default grant, the name, and no links', () => {
    const client = readMetadataDocument(id, valid, PRODUCTION);
    assert.equal(client.name, 'Example Agent');
    assert.deepEqual(client.redirectUris, valid.redirect_uris);
    assert.deepEqual(client.grantTypes, ['authorization_code']);
    assert.equal(client.homepageUrl, null);
    assert.equal(client.policyUrl, null);
  });

  test('client_name, client_uri, logo_uri, policy_uri and tos_uri are kept; unknown fields are ignored', () => {
    const client = readMetadataDocument(
      id,
      {
        ...valid,
        client_uri: 'https://app.example.com/',
        logo_uri: 'https://app.example.com/logo.png',
        policy_uri: 'https://app.example.com/privacy',
        tos_uri: 'https://app.example.com/terms',
        grant_types: ['authorization_code', 'refresh_token'],
        token_endpoint_auth_method: 'none',
        software_id: 'ignored',
      },
      PRODUCTION,
    );
    assert.equal(client.homepageUrl, 'https://app.example.com/');
    assert.equal(client.logoUrl, 'https://app.example.com/logo.png');
    assert.equal(client.policyUrl, 'https://app.example.com/privacy');
    assert.equal(client.termsUrl, 'https://app.example.com/terms');
    assert.deepEqual(client.grantTypes, ['authorization_code', 'refresh_token']);
  });

  test('without client_name, the host that serves the document is the name', () => {
    assert.equal(readMetadataDocument(id, { client_id: id, redirect_uris: valid.redirect_uris }, PRODUCTION).name, 'app.example.com');
  });

  const refused: { rule: string; document: unknown; problem: RegExp }[] = [
    { rule: '§4: the document must be a JSON object', document: ['not', 'an', 'object'], problem: /JSON object/ },
    { rule: '§4: client_id must equal the URL (simple string comparison)', document: { ...valid, client_id: 'https://app.example.com/other.json' }, problem: /must be exactly the URL/ },
    { rule: '§4: client_id differing only in case is still a different string', document: { ...valid, client_id: 'https://APP.example.com/client.json' }, problem: /must be exactly the URL/ },
    { rule: '§4: client_id is required', document: { redirect_uris: valid.redirect_uris }, problem: /client_id must be the URL/ },
    { rule: 'Latch: redirect_uris is required', document: { client_id: id }, problem: /redirect_uris is required/ },
    { rule: 'Latch: redirect_uris follow the registration rules', document: { ...valid, redirect_uris: ['http://evil.example.com/cb'] }, problem: /non-loopback/ },
    { rule: '§4.1: no client_secret in a public document', document: { ...valid, client_secret: 'x' }, problem: /client_secret cannot be in a metadata document/ },
    { rule: '§4.1: no client_secret_expires_at', document: { ...valid, client_secret_expires_at: 0 }, problem: /client_secret_expires_at cannot/ },
    { rule: '§4.1: no shared-secret authentication (client_secret_basic)', document: { ...valid, token_endpoint_auth_method: 'client_secret_basic' }, problem: /needs a shared secret/ },
    { rule: '§4.1: no shared-secret authentication (client_secret_post)', document: { ...valid, token_endpoint_auth_method: 'client_secret_post' }, problem: /needs a shared secret/ },
    { rule: '§4.1: no shared-secret authentication (client_secret_jwt)', document: { ...valid, token_endpoint_auth_method: 'client_secret_jwt' }, problem: /needs a shared secret/ },
    { rule: 'Latch: private_key_jwt is out of scope', document: { ...valid, token_endpoint_auth_method: 'private_key_jwt' }, problem: /private_key_jwt is not supported/ },
    { rule: 'Latch: client_credentials is not for public clients', document: { ...valid, grant_types: ['client_credentials'] }, problem: /client_credentials is not available/ },
    { rule: 'Latch: grant_types must include authorization_code', document: { ...valid, grant_types: ['refresh_token'] }, problem: /must include authorization_code/ },
    { rule: 'Latch: response_types must be code', document: { ...valid, response_types: ['token'] }, problem: /response_types must be code only/ },
    { rule: 'Latch: links shown to people must be https', document: { ...valid, logo_uri: 'http://app.example.com/logo.png' }, problem: /logo_uri must start with https/ },
    { rule: 'Latch: a link that is not a URL is refused', document: { ...valid, policy_uri: 'not a url' }, problem: /policy_uri must be an absolute/ },
    { rule: 'Latch: a field of the wrong type is refused', document: { ...valid, client_name: 42 }, problem: /client_name must be a string/ },
    { rule: 'Latch: a name longer than 100 characters is refused', document: { ...valid, client_name: 'n'.repeat(101) }, problem: /at most 100/ },
  ];
  for (const row of refused) {
    test(row.rule, () => {
      assert.throws(() => readMetadataDocument(id, row.document, PRODUCTION), (error: unknown) => error instanceof MetadataDocumentError && row.problem.test(error.message));
    });
  }
});

describe('metadataCacheSeconds', () => {
  const now = new Date('2026-11-25T03:00:00Z');
  const rows: { rule: string; headers: Parameters<typeof metadataCacheSeconds>[0]; seconds: number }[] = [
    { rule: 'RFC 9111 §5.2.2.1: max-age is used', headers: { cacheControl: 'public, max-age=3600' }, seconds: 3600 },
    { rule: 'Latch: max-age below the floor is raised to it', headers: { cacheControl: 'max-age=10' }, seconds: METADATA_CACHE_FLOOR_SECONDS },
    { rule: 'Latch: max-age above the ceiling is lowered to it', headers: { cacheControl: 'max-age=31536000' }, seconds: METADATA_CACHE_CEILING_SECONDS },
    { rule: 'Latch: no-store gets the floor, never 0', headers: { cacheControl: 'no-store' }, seconds: METADATA_CACHE_FLOOR_SECONDS },
    { rule: 'Latch: no-cache gets the floor too', headers: { cacheControl: 'no-cache, max-age=3600' }, seconds: METADATA_CACHE_FLOOR_SECONDS },
    { rule: 'RFC 9111 §5.3: max-age wins over Expires', headers: { cacheControl: 'max-age=1200', expires: 'Wed, 25 Nov 2026 08:00:00 GMT' }, seconds: 1200 },
    { rule: 'RFC 9111 §4.2.1: Expires less Date', headers: { expires: 'Wed, 25 Nov 2026 05:00:00 GMT', date: 'Wed, 25 Nov 2026 03:00:00 GMT' }, seconds: 7200 },
    { rule: 'RFC 9111 §4.2.1: Expires less now without Date', headers: { expires: 'Wed, 25 Nov 2026 04:00:00 GMT' }, seconds: 3600 },
    { rule: 'RFC 9111 §5.3: an invalid Expires is already expired (the floor)', headers: { expires: '0' }, seconds: METADATA_CACHE_FLOOR_SECONDS },
    { rule: 'Latch: no caching headers at all: the default', headers: {}, seconds: METADATA_CACHE_DEFAULT_SECONDS },
  ];
  for (const row of rows) {
    test(row.rule, () => assert.equal(metadataCacheSeconds(row.headers, now), row.seconds));
  }
});
