/**
 * Resource indicators (RFC 8707 §2; README "APIs (resource servers)"): what a request's `resource` may be, what an
 * API's identifier and scopes may be when registered, and the scope a token for an API carries; one clause per row.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { InvalidTarget } from '../../errors.js';
import { readResourceParams, resourceIdentifierProblem, resourceIndicatorProblem, resourceScopeProblem, scopeForResource } from './resource.js';
import { parseAuthorizationScope, parseScope } from './scope.js';

describe('resourceIndicatorProblem (a request\'s resource)', () => {
  const rows: Array<{ rule: string; value: string; problem: RegExp | null }> = [
    { rule: 'RFC 8707 §2: an absolute https URI is a resource indicator', value: 'https://api.example.com/v1', problem: null },
    { rule: 'RFC 8707 §2: any absolute URI, a URN too', value: 'urn:example:api', problem: null },
    { rule: 'RFC 8707 §2: a query is allowed (SHOULD NOT only), matched exactly against the registered ones', value: 'https://api.example.com/?v=1', problem: null },
    { rule: 'RFC 8707 §2: MUST NOT include a fragment', value: 'https://api.example.com/#x', problem: /fragment/ },
    { rule: 'RFC 8707 §2: an empty fragment is a fragment', value: 'https://api.example.com/#', problem: /fragment/ },
    { rule: 'RFC 3986 §4.3: a relative reference is not absolute', value: '/api', problem: /absolute URI/ },
    { rule: 'RFC 3986 §4.3: a host name alone has no scheme', value: 'api.example.com', problem: /absolute URI/ },
    { rule: 'RFC 3986 §3.1: a scheme starts with a letter', value: '1http://api.example.com/', problem: /absolute URI/ },
    { rule: 'RFC 3986: no spaces in a URI', value: 'https://api.example.com/a b', problem: /absolute URI/ },
    { rule: 'Latch: bounded length', value: `https://api.example.com/${'a'.repeat(2100)}`, problem: /longer than/ },
  ];
  for (const row of rows) {
    test(row.rule, () => {
      const problem = resourceIndicatorProblem(row.value);
      if (row.problem === null) assert.equal(problem, null);
      else assert.match(problem ?? '', row.problem);
    });
  }
});

describe('resourceIdentifierProblem (latch resource create --identifier)', () => {
  const rows: Array<{ rule: string; value: string; problem: RegExp | null }> = [
    { rule: 'an https URL with a path, in canonical form', value: 'https://api.example.com/mcp', problem: null },
    { rule: 'an https origin with its root path', value: 'https://api.example.com/', problem: null },
    { rule: 'http on loopback, for development and tests (MCP servers on localhost)', value: 'http://127.0.0.1:8080/mcp', problem: null },
    { rule: 'http on localhost', value: 'http://localhost:3000/', problem: null },
    { rule: 'http elsewhere is refused: tokens travel to it', value: 'http://api.example.com/', problem: /https/ },
    { rule: 'RFC 8707 §2: no query (SHOULD NOT), refused at registration', value: 'https://api.example.com/?a=1', problem: /query/ },
    { rule: 'URL parsing adds the root path: the form clients derive is the one registered', value: 'https://api.example.com', problem: /canonical form; register https:\/\/api\.example\.com\// },
    { rule: 'canonical form: a lower-case host', value: 'https://API.example.com/', problem: /canonical/ },
    { rule: 'canonical form: no default port', value: 'https://api.example.com:443/', problem: /canonical/ },
    { rule: 'http(s) only (a URN cannot be fetched for its metadata, RFC 9728)', value: 'urn:example:api', problem: /http or https/ },
    { rule: 'no user information', value: 'https://user@api.example.com/', problem: /user information/ },
    { rule: 'RFC 8707 §2: no fragment', value: 'https://api.example.com/#a', problem: /fragment/ },
  ];
  for (const row of rows) {
    test(row.rule, () => {
      const problem = resourceIdentifierProblem(row.value);
      if (row.problem === null) assert.equal(problem, null);
      else assert.match(problem ?? '', row.problem);
    });
  }
});

describe('resourceScopeProblem (latch resource create --scope)', () => {
  const rows: Array<{ rule: string; scope: string; ok: boolean }> = [
    { rule: 'RFC 6749 §3.3: a scope-token of visible characters', scope: 'notes:read', ok: true },
    { rule: 'RFC 6749 §3.3: URL-like scope tokens are fine', scope: 'https://api.example.com/read', ok: true },
    { rule: 'RFC 6749 §3.3: no double quote', scope: 'a"b', ok: false },
    { rule: 'RFC 6749 §3.3: no backslash', scope: 'a\\b', ok: false },
    { rule: 'RFC 6749 §3.3: not empty', scope: '', ok: false },
    { rule: "Latch: openid is Latch's own scope, not an API's", scope: 'openid', ok: false },
    { rule: "Latch: offline_access is Latch's own scope", scope: 'offline_access', ok: false },
  ];
  for (const row of rows) test(row.rule, () => assert.equal(resourceScopeProblem(row.scope) === null, row.ok));
});

describe('readResourceParams', () => {
  test('RFC 8707 §2.1: resource may repeat; repeats of one value count once', () => {
    assert.deepEqual(readResourceParams({ resource: ['https://a.example/', 'https://b.example/', 'https://a.example/'] }), ['https://a.example/', 'https://b.example/']);
  });
  test('RFC 6749 §3.1: left out or empty is no resource', () => {
    assert.deepEqual(readResourceParams({}), []);
    assert.deepEqual(readResourceParams({ resource: '' }), []);
  });
  test('RFC 8707 §2: a malformed one is invalid_target, naming it', () => {
    assert.throws(() => readResourceParams({ resource: ['https://a.example/', 'b#c'] }), (error: unknown) => error instanceof InvalidTarget && /b#c/.test(error.description));
  });
  test('Latch: at most 10 per request', () => {
    const many = Array.from({ length: 11 }, (_, i) => `https://a${i}.example/`);
    assert.throws(() => readResourceParams({ resource: many }), InvalidTarget);
  });
});

describe('scopes with resources', () => {
  const rows: Array<{ rule: string; raw: string; resourceScopes: string[]; scope: string[] | RegExp }> = [
    { rule: "README: a resource's scopes are known to a request naming it; Latch's own come first", raw: 'notes:read openid', resourceScopes: ['notes:read', 'notes:write'], scope: ['openid', 'notes:read'] },
    { rule: 'RFC 6749 §3.3: the order of the tokens does not matter; the API\'s in the order registered', raw: 'notes:write notes:read', resourceScopes: ['notes:read', 'notes:write'], scope: ['notes:read', 'notes:write'] },
    { rule: 'README: an API scope without its resource is invalid_scope', raw: 'profile notes:read', resourceScopes: [], scope: /Unsupported scope 'notes:read'/ },
    { rule: "README: another API's scope is invalid_scope, and the message names the known ones", raw: 'calendar:read', resourceScopes: ['notes:read'], scope: /resources \(notes:read\)/ },
  ];
  for (const row of rows) {
    test(row.rule, () => {
      if (Array.isArray(row.scope)) assert.deepEqual(parseScope(row.raw, row.resourceScopes), row.scope);
      else assert.throws(() => parseScope(row.raw, row.resourceScopes), (error: unknown) => error instanceof Error && (row.scope as RegExp).test(error.message));
    });
  }
  test("OIDC Core §3.1.2.1: in an OpenID request, a resource's scope is kept, not ignored; unknown ones still are", () => {
    assert.deepEqual(parseAuthorizationScope('openid notes:read address', ['notes:read']), { scope: ['openid', 'notes:read'], ignored: ['address'] });
    assert.deepEqual(parseAuthorizationScope('openid notes:read'), { scope: ['openid'], ignored: ['notes:read'] });
  });
  test('RFC 9068 §2.2.3: a token for an API carries the granted scopes it defines, and only those', () => {
    assert.deepEqual(scopeForResource(['openid', 'profile', 'notes:read', 'calendar:read'], { scope: ['notes:read', 'notes:write'] }), ['notes:read']);
    assert.deepEqual(scopeForResource(['openid'], { scope: ['notes:read'] }), []);
  });
});
