/**
 * The operator's side of second factors: `latch user show EMAIL` says which factors an account has (never a
 * secret, a hash or a code), and `latch user reset-mfa EMAIL` removes them all for a locked-out person, after
 * which the password signs in alone. Run in the test's process (helpers/cli.ts) against a test server's
 * database (SQLite, or PostgreSQL with LATCH_TEST_DATABASE=postgres).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { TestBrowser } from '../helpers/browser.js';
import { runLatchCli } from '../helpers/cli.js';
import { signedInBrowser } from '../helpers/pages.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';
import { enrolAuthenticator, signInWithPassword } from '../helpers/two-step.js';

describe('latch user show and reset-mfa', () => {
  let server: TestServer;
  let env: Record<string, string>;
  before(async () => {
    server = await startTestServer();
    env = {
      LATCH_DATABASE_URL: server.config.databaseUrl,
      ...(server.config.databaseSchema && { LATCH_DATABASE_SCHEMA: server.config.databaseSchema }),
      LATCH_SECRET: server.config.secret,
      LATCH_ISSUER: server.config.issuer,
    };
  });
  after(async () => server.stop());

  test('show lists the factors with their times and never a secret; reset-mfa removes them and the password signs in alone', async () => {
    const { user, password } = await server.createUser();
    const { app, recoveryCodes } = await enrolAuthenticator(server, await signedInBrowser(server, user.email, password));
    await server.storage.passkeys.insert({ credentialId: `cli-${user.id}`, userId: user.id, publicKey: new Uint8Array([1]), counter: 0, transports: [], aaguid: 'a', backupEligible: true, backedUp: true, name: 'Phone', createdAt: new Date(), lastUsedAt: null });

    const shown = await runLatchCli(['user', 'show', user.email, '--json'], env);
    assert.equal(shown.code, 0, shown.stderr);
    const json = JSON.parse(shown.stdout) as Record<string, any>;
    assert.equal(json.two_step, true);
    assert.match(json.authenticator_app.added_at, /^\d{4}-\d\d-\d\dT/);
    assert.equal(json.recovery_codes_left, 10);
    assert.deepEqual(json.passkeys.map((passkey: { name: string; synced: boolean }) => [passkey.name, passkey.synced]), [['Phone', true]]);
    const stored = await server.storage.secondFactors.findTotp(user.id);
    const text = await runLatchCli(['user', 'show', user.email], env);
    assert.equal(text.code, 0, text.stderr);
    assert.match(text.stdout, /authenticator_app\s+on \(added /);
    for (const output of [shown.stdout, text.stdout]) {
      assert.ok(!output.includes(app.secret), 'never the secret');
      assert.ok(!output.includes(stored!.secretEncrypted), 'never the encrypted secret');
      assert.ok(!recoveryCodes.some((code) => output.includes(code)), 'never a recovery code');
    }

    const reset = await runLatchCli(['user', 'reset-mfa', user.email, '--json'], env);
    assert.equal(reset.code, 0, reset.stderr);
    assert.deepEqual(JSON.parse(reset.stdout), { id: user.id, email: user.email, authenticator_app_removed: true, recovery_codes_removed: 10, passkeys_removed: 1 });
    assert.equal(await server.storage.secondFactors.findTotp(user.id), null);
    assert.deepEqual(await server.storage.passkeys.listByUser(user.id), []);
    const signIn = await signInWithPassword(server, new TestBrowser(), user.email, password);
    assert.equal(signIn.headers.get('location'), '/', 'the password signs in alone');
    const after = JSON.parse((await runLatchCli(['user', 'show', user.email, '--json'], env)).stdout) as Record<string, unknown>;
    assert.equal(after.two_step, false);
    assert.equal(after.recovery_codes_left, 0);
  });

  test('an unknown email or a missing one is a usage error that says why', async () => {
    const unknown = await runLatchCli(['user', 'reset-mfa', 'nobody@example.com'], env);
    assert.notEqual(unknown.code, 0);
    assert.match(unknown.stderr, /No account has the email nobody@example\.com/);
    const missing = await runLatchCli(['user', 'show'], env);
    assert.notEqual(missing.code, 0);
    assert.match(missing.stderr, /needs the account's email/);
  });
});
