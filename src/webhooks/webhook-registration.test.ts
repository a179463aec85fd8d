/**
 * Webhook URLs and secrets (webhook-url-policy.ts, webhook-secret.ts): the URL rules, one row each, and the
 * secret's encryption bound to its webhook.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { KeyDecryptionError } from '../crypto/key-encryption.js';
import { generateWebhookSecret, webhookSecretEncryption } from './webhook-secret.js';
import { checkWebhookUrl } from './webhook-url-policy.js';

const PRODUCTION = { developmentMode: false };
const DEVELOPMENT = { developmentMode: true };

describe('checkWebhookUrl', () => {
  const rows: Array<{ rule: string; url: string; options?: { developmentMode: boolean }; problem: RegExp | null }> = [
    { rule: 'an https URL is accepted', url: 'https://hooks.example.com/latch', problem: null },
    { rule: 'with a query (the receiver’s own token) too', url: 'https://hooks.example.com/latch?token=abc', problem: null },
    { rule: 'http to a loopback address in development mode', url: 'http://127.0.0.1:8080/hook', options: DEVELOPMENT, problem: null },
    { rule: 'http to localhost in development mode', url: 'http://localhost:8080/hook', options: DEVELOPMENT, problem: null },
    { rule: 'http to a loopback address outside development mode', url: 'http://127.0.0.1:8080/hook', problem: /uses http; use https:\/\/.*LATCH_DEV_MODE=1/ },
    { rule: 'http to another host, even in development mode', url: 'http://hooks.example.com/x', options: DEVELOPMENT, problem: /must start with https:\/\// },
    { rule: 'another scheme', url: 'com.example.app:/hook', problem: /must start with https:\/\// },
    { rule: 'a fragment', url: 'https://hooks.example.com/x#y', problem: /^Webhook URL .* must not contain a fragment/ },
    { rule: 'a user name and password', url: 'https://u:p@hooks.example.com/x', problem: /must not contain a user name or password/ },
    { rule: 'not absolute', url: '/hook', problem: /is not an absolute URL/ },
    { rule: 'empty', url: '', problem: /must not be empty/ },
  ];
  for (const row of rows) {
    test(row.rule, () => {
      const problem = checkWebhookUrl(row.url, row.options ?? PRODUCTION);
      if (row.problem === null) assert.equal(problem, null);
      else assert.match(problem ?? '', row.problem);
    });
  }
});

describe('webhook secrets', () => {
  test('256 random bits behind whsec_, never twice the same', () => {
    const secret = generateWebhookSecret();
    assert.match(secret, /^whsec_[A-Za-z0-9_-]{43}$/);
    assert.notEqual(generateWebhookSecret(), secret);
  });

  test('encrypted under LATCH_SECRET for one webhook: another webhook’s row, another LATCH_SECRET or the signing keys’ key cannot read it', async () => {
    const secret = generateWebhookSecret();
    const stored = webhookSecretEncryption('latch secret one').encrypt(secret, 'wh_a');
    assert.ok(!stored.includes(secret.slice(6)));
    assert.equal(webhookSecretEncryption('latch secret one').decrypt(stored, 'wh_a'), secret);
    assert.throws(() => webhookSecretEncryption('latch secret one').decrypt(stored, 'wh_b'), KeyDecryptionError);
    assert.throws(() => webhookSecretEncryption('latch secret two').decrypt(stored, 'wh_a'), KeyDecryptionError);
    const { createKeyEncryption } = await import('../crypto/key-encryption.js');
    assert.throws(() => createKeyEncryption('latch secret one').decrypt(stored, 'wh_a'), KeyDecryptionError, 'its own HKDF info');
  });
});
