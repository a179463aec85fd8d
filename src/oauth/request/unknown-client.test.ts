/** unknownClientDescription: never the value sent, and the swapped-credentials mistake named. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { unknownClientDescription } from './unknown-client.js';

const rows: { rule: string; sent: string; says: RegExp }[] = [
  { rule: 'a client secret sent as client_id is named as such, with the advice to rotate it', sent: 'latch_cs_9f8e7d6c5b4a39281706f5e4d3c2b1a0', says: /is a client secret.*rotate/ },
  { rule: 'an access token sent as client_id is named as a token', sent: 'latch_at_0193a1b2c3d_abcdefghijklmnopqrstuvwxyz0123456789ABCDEFG', says: /is a Latch token/ },
  { rule: 'a refresh token sent as client_id is named as a token', sent: 'latch_rt_0193a1b2c3d_abcdefghijklmnopqrstuvwxyz0123456789ABCDEFG', says: /is a Latch token/ },
  { rule: 'any other unknown value: not registered, check the console', sent: 'my-app-id-typo', says: /not a registered client.*developer console/ },
];
for (const row of rows) {
  test(row.rule, () => {
    const description = unknownClientDescription(row.sent);
    assert.match(description, row.says);
    assert.ok(!description.includes(row.sent), 'the value sent is never repeated');
    assert.ok(!description.includes(row.sent.slice(9, 20)), 'nor a part of it');
  });
}
