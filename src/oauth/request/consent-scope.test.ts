/**
 * The scope a consent records (consent-scope.ts): Latch's scopes by name, an API's scope qualified by the API,
 * one row per rule.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { consentScope } from './consent-scope.js';
import { includesAll } from './scope.js';

const NOTES = { identifier: 'https://notes.example.com/', scope: ['read', 'notes:write'] };
const CALENDAR = { identifier: 'https://calendar.example.com/api', scope: ['read'] };

describe('consentScope', () => {
  const rows: { rule: string; scope: string[]; resources: (typeof NOTES)[]; recorded: string[] }[] = [
    { rule: "Latch's own scopes are recorded by name", scope: ['openid', 'profile', 'offline_access'], resources: [], recorded: ['openid', 'profile', 'offline_access'] },
    { rule: "an API's scope is recorded with the API's identifier", scope: ['openid', 'notes:write'], resources: [NOTES], recorded: ['openid', 'https://notes.example.com/"notes:write'] },
    { rule: 'a name two requested APIs define is recorded once for each', scope: ['read'], resources: [NOTES, CALENDAR], recorded: ['https://notes.example.com/"read', 'https://calendar.example.com/api"read'] },
    { rule: 'a name only one requested API defines is recorded for that one', scope: ['notes:write'], resources: [NOTES, CALENDAR], recorded: ['https://notes.example.com/"notes:write'] },
    { rule: "Latch's own scope stays Latch's, whatever an API registered", scope: ['email'], resources: [{ identifier: 'https://x.example/', scope: ['email'] }], recorded: ['email'] },
  ];
  for (const row of rows) {
    test(row.rule, () => assert.deepEqual(consentScope(row.scope, row.resources), row.recorded));
  }

  test("a consent to one API's read does not cover another API's read; the same API's does", () => {
    const allowed = consentScope(['openid', 'read'], [NOTES]);
    assert.equal(includesAll(allowed, consentScope(['openid', 'read'], [CALENDAR])), false);
    assert.equal(includesAll(allowed, consentScope(['read'], [NOTES])), true);
  });

  test('a consent stored by bare API scope names (before this rule) covers no request for an API', () => {
    assert.equal(includesAll(['openid', 'read'], consentScope(['openid', 'read'], [NOTES])), false);
    assert.equal(includesAll(['openid', 'read'], consentScope(['openid'], [NOTES])), true);
  });
});
