import assert from 'node:assert/strict';
import { test } from 'node:test';
import { changedFields } from './changed-fields.js';

test('changedFields names the fields whose value changed, in snake_case, and nothing else', () => {
  const before = { name: 'App', redirectUris: ['https://a.example/cb'], homepageUrl: null as string | null, backchannelLogoutUri: 'https://a.example/bc' };
  const cases: Array<{ patch: Partial<typeof before>; changed: string[] }> = [
    { patch: {}, changed: [] },
    { patch: { name: 'App' }, changed: [] },
    { patch: { name: 'Renamed' }, changed: ['name'] },
    { patch: { redirectUris: ['https://a.example/cb'] }, changed: [] },
    { patch: { redirectUris: ['https://a.example/cb', 'https://b.example/cb'] }, changed: ['redirect_uris'] },
    { patch: { homepageUrl: 'https://a.example' }, changed: ['homepage_url'] },
    { patch: { backchannelLogoutUri: null as unknown as string }, changed: ['backchannel_logout_uri'] },
    { patch: { name: undefined }, changed: [] },
  ];
  for (const { patch, changed } of cases) assert.deepEqual(changedFields(before, patch), changed, JSON.stringify(patch));
});
