import assert from 'node:assert/strict';
import { test } from 'node:test';
import { InvalidScope } from '../../errors.js';
import { grantServiceScope } from './client-credentials.js';

test('grantServiceScope: all registered scopes by default, a subset on request, nothing beyond', () => {
  const registered = ['api:read', 'api:write'];
  assert.deepEqual(grantServiceScope(registered, undefined), ['api:read', 'api:write']);
  assert.deepEqual(grantServiceScope(registered, ''), ['api:read', 'api:write']);
  assert.deepEqual(grantServiceScope(registered, 'api:write api:read'), ['api:read', 'api:write']);
  assert.deepEqual(grantServiceScope(registered, 'api:write'), ['api:write']);
  assert.deepEqual(grantServiceScope([], undefined), []);
  assert.throws(() => grantServiceScope(registered, 'api:read api:admin'), (e: unknown) => e instanceof InvalidScope && /api:admin/.test(e.message));
  assert.throws(() => grantServiceScope(registered, 'openid'), InvalidScope);
  assert.throws(() => grantServiceScope([], 'api:read'), (e: unknown) => e instanceof InvalidScope && /without scopes/.test(e.message));
});
