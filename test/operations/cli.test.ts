/**
 * The `latch` command (docs/protocol-decisions.md "Command line"; issue 2 items 3 and 4), against the same database
 * as a running Latch: client create/list/show/add-redirect-uri/remove-redirect-uri/rotate-secret, user create with
 * --password-stdin, and redirect URIs that can never be safe rejected with a clear message.
 *
 * Most commands run in this process (helpers/cli.ts: the same runCli with its own environment and output). Those
 * marked `asProcess` run `bin/latch.js` as an operator does: the compiled bundle, its exit code, a real standard
 * input. The bundle is brought up to date from the current sources first (latch-process.ts ensureBuilt: one build
 * at a time across test files), so the test never runs a stale dist/ and never races another build.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { hashTimeOrderedSecret } from '../../src/crypto/secrets.js';
import { basicAuthorization, exchangeIssuedCode, issueCode, postToken } from '../helpers/code-fixtures.js';
import { findRows, snapshotState } from '../helpers/database-snapshot.js';
import { runCommandInProcess, type CliResult } from '../helpers/cli.js';
import { ensureBuilt, runLatchProcess } from '../helpers/latch-process.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';
import { postIntrospect } from '../helpers/token-management.js';

describe('latch CLI', () => {
  let server: TestServer;

  before(async () => {
    await ensureBuilt();
    server = await startTestServer();
  });
  after(async () => {
    await server?.stop();
  });

  /**
   * Runs `latch …` against the test server's database, with optional standard input: in this process, or with
   * `asProcess` as a child process running bin/latch.js.
   */
  function latch(args: string[], options: { stdin?: string; env?: Record<string, string>; asProcess?: boolean } = {}): Promise<CliResult> {
    const env: Record<string, string> = {
      PATH: process.env.PATH ?? '',
      LATCH_DATABASE_URL: server.config.databaseUrl,
      LATCH_SECRET: server.config.secret,
      LATCH_LOG_LEVEL: 'silent',
      ...(server.config.databaseSchema ? { LATCH_DATABASE_SCHEMA: server.config.databaseSchema } : {}),
      ...options.env,
    };
    if (!options.asProcess) return runCommandInProcess(args, env, options.stdin ?? '');
    return runLatchProcess(args, { env, input: options.stdin ?? '' });
  }

  function assertCleanFailure(result: CliResult, message: RegExp): void {
    assert.equal(result.code, 2, `exit code 2: ${result.stdout}${result.stderr}`);
    assert.match(result.stderr, /^latch: /);
    assert.match(result.stderr, message);
    assert.doesNotMatch(result.stderr, /\n\s+at /, 'no stack trace');
  }

  const sha256 = (value: string) => createHash('sha256').update(value).digest('base64url');

  describe('client', () => {
    test('client create --json prints id, secret (once), name and redirect URIs; only the hash is stored', async () => {
      const result = await latch(['client', 'create', '--name', 'CLI App', '--redirect-uri', 'https://cli.example.com/cb', '--redirect-uri', 'http://127.0.0.1:8080/cb', '--json'], { asProcess: true });
      assert.equal(result.code, 0, result.stderr);
      const created = JSON.parse(result.stdout);
      // These four names are the interface (docs/protocol-decisions.md "Command line"); OIDC may add fields
      // beside them.
      for (const key of ['client_id', 'client_secret', 'name', 'redirect_uris']) assert.ok(key in created, `prints ${key}`);
      assert.equal(created.name, 'CLI App');
      assert.deepEqual(created.redirect_uris, ['https://cli.example.com/cb', 'http://127.0.0.1:8080/cb']);
      assert.match(created.client_id, /^[A-Za-z0-9_-]+$/);
      assert.match(created.client_secret, /^latch_cs_[A-Za-z0-9_-]{43}$/);
      const [row] = await findRows(server, 'clients', { client_id: created.client_id });
      assert.equal(row?.secret_hash, sha256(created.client_secret));
      assert.ok(!JSON.stringify(await snapshotState(server)).includes(created.client_secret), 'the secret itself is stored nowhere');
    });

    test('client create without --json prints fields and warns that the secret is shown once', async () => {
      const result = await latch(['client', 'create', '--name', 'Human App', '--redirect-uri', 'https://human.example.com/cb']);
      assert.equal(result.code, 0, result.stderr);
      assert.match(result.stdout, /client_id\s+\S+/);
      assert.match(result.stdout, /client_secret\s+latch_cs_/);
      assert.match(result.stderr, /shown only now/);
    });

    test('a client created by the CLI works at once on the running server (same database)', async () => {
      const created = JSON.parse((await latch(['client', 'create', '--name', 'Live App', '--redirect-uri', 'https://live.example.com/cb', '--json'])).stdout);
      const { user, password } = await server.createUser();
      const client = { clientId: created.client_id, clientSecret: created.client_secret, redirectUris: created.redirect_uris };
      const issued = await issueCode(server, client, { email: user.email, password });
      const response = await postToken(server.baseUrl, {
        headers: { authorization: basicAuthorization(client.clientId, client.clientSecret) },
        form: { grant_type: 'authorization_code', code: issued.code, code_verifier: issued.verifier! },
      });
      assert.equal(response.status, 200, response.text);
      assert.equal(response.body.user.client, 'Live App');
    });

    test('client list and client show never print a secret', async () => {
      const created = JSON.parse((await latch(['client', 'create', '--name', 'Listed App', '--redirect-uri', 'https://listed.example.com/cb', '--json'])).stdout);
      const list = await latch(['client', 'list', '--json']);
      assert.equal(list.code, 0, list.stderr);
      const listed = JSON.parse(list.stdout) as Array<Record<string, unknown>>;
      const entry = listed.find((c) => c.client_id === created.client_id);
      assert.ok(entry);
      assert.equal(entry.name, 'Listed App');
      assert.deepEqual(entry.redirect_uris, ['https://listed.example.com/cb']);
      const show = await latch(['client', 'show', created.client_id, '--json']);
      assert.equal(show.code, 0, show.stderr);
      assert.equal(JSON.parse(show.stdout).client_id, created.client_id);
      const plain = await latch(['client', 'list']);
      assert.match(plain.stdout, new RegExp(`${created.client_id}\\s+Listed App`));
      for (const output of [list.stdout, show.stdout, plain.stdout]) {
        assert.ok(!output.includes(created.client_secret));
        assert.ok(!output.includes('latch_cs_'));
        assert.ok(!output.includes('secret_hash'));
      }
    });

    test('client show of an unknown id fails cleanly', async () => {
      assertCleanFailure(await latch(['client', 'show', 'no-such-client']), /No client with id no-such-client/);
    });

    test('add-redirect-uri and remove-redirect-uri change what /authorize accepts', async () => {
      const created = JSON.parse((await latch(['client', 'create', '--name', 'Moving App', '--redirect-uri', 'https://old.example.com/cb', '--json'])).stdout);
      const authorize = (uri: string) =>
        fetch(`${server.baseUrl}/oauth2/authorize?response_type=code&client_id=${created.client_id}&redirect_uri=${encodeURIComponent(uri)}`, { redirect: 'manual' });
      assert.equal((await authorize('https://new.example.com/cb')).status, 400);

      const added = await latch(['client', 'add-redirect-uri', created.client_id, 'https://new.example.com/cb']);
      assert.equal(added.code, 0, added.stderr);
      assert.match(added.stdout, /https:\/\/new\.example\.com\/cb/);
      assert.equal((await authorize('https://new.example.com/cb')).status, 302);

      const removed = await latch(['client', 'remove-redirect-uri', created.client_id, 'https://old.example.com/cb']);
      assert.equal(removed.code, 0, removed.stderr);
      assert.equal((await authorize('https://old.example.com/cb')).status, 400);
      const show = JSON.parse((await latch(['client', 'show', created.client_id, '--json'])).stdout);
      assert.deepEqual(show.redirect_uris, ['https://new.example.com/cb']);

      assertCleanFailure(await latch(['client', 'remove-redirect-uri', created.client_id, 'https://new.example.com/cb']), /at least one redirect URI/);
      assertCleanFailure(await latch(['client', 'remove-redirect-uri', created.client_id, 'https://never.example.com/cb']), /is not registered/);
      assertCleanFailure(await latch(['client', 'add-redirect-uri', created.client_id, 'https://new.example.com/cb#x']), /fragment/);
    });

    test('rotate-secret: the new secret works, the old one stops at once', async () => {
      const created = JSON.parse((await latch(['client', 'create', '--name', 'Rotating App', '--redirect-uri', 'https://rot.example.com/cb', '--json'])).stdout);
      const rotated = await latch(['client', 'rotate-secret', created.client_id, '--json']);
      assert.equal(rotated.code, 0, rotated.stderr);
      const { client_secret: newSecret, previous_secret_valid_until: validUntil } = JSON.parse(rotated.stdout);
      assert.match(newSecret, /^latch_cs_/);
      assert.notEqual(newSecret, created.client_secret);
      assert.equal(validUntil, null);
      const tryAuth = (secret: string) =>
        postToken(server.baseUrl, { headers: { authorization: basicAuthorization(created.client_id, secret) }, form: { grant_type: 'authorization_code', code: 'latch_ac_x' } });
      assert.equal((await tryAuth(created.client_secret)).body.error, 'invalid_client');
      assert.equal((await tryAuth(newSecret)).body.error, 'invalid_grant', 'authenticated; only the code is wrong');
    });

    test('rotate-secret --grace-seconds keeps the old secret working for a while', async () => {
      const created = JSON.parse((await latch(['client', 'create', '--name', 'Graceful App', '--redirect-uri', 'https://grace.example.com/cb', '--json'])).stdout);
      const rotated = JSON.parse((await latch(['client', 'rotate-secret', created.client_id, '--grace-seconds', '600', '--json'])).stdout);
      assert.ok(new Date(rotated.previous_secret_valid_until).getTime() > Date.now() + 500_000);
      const tryAuth = (secret: string) =>
        postToken(server.baseUrl, { form: { grant_type: 'authorization_code', code: 'latch_ac_x', client_id: created.client_id, client_secret: secret } });
      assert.equal((await tryAuth(created.client_secret)).body.error, 'invalid_grant');
      assert.equal((await tryAuth(rotated.client_secret)).body.error, 'invalid_grant');
      assertCleanFailure(await latch(['client', 'rotate-secret', created.client_id, '--grace-seconds', 'soon']), /--grace-seconds/);
    });

    describe('redirect URIs that can never be safe are rejected with a clear message', () => {
      const rejected: Array<[string, RegExp]> = [
        ['https://app.example.com/cb#section', /must not contain a fragment/],
        ['javascript:alert(1)', /can never be safe/],
        ['data:text/html,hi', /can never be safe/],
        ['file:///etc/passwd', /can never be safe/],
        ['http://app.example.com/cb', /uses http to a non-loopback host; use https:\/\//],
        ['myapp:/callback', /private-use scheme named after a domain/],
        ['/callback', /not an absolute URL/],
        ['https://*.example.com/cb', /wildcards/],
        ['https://user:pass@app.example.com/cb', /user name or password/],
        ['https://app.example.com/a b', /spaces/],
      ];
      for (const [uri, message] of rejected) {
        test(uri, async () => {
          const before = await snapshotState(server);
          assertCleanFailure(await latch(['client', 'create', '--name', 'Bad', '--redirect-uri', uri]), message);
          assert.deepEqual(await snapshotState(server), before, 'nothing was registered');
        });
      }

      const accepted = ['https://app.example.com/cb?tenant=a', 'http://localhost:3001/cb', 'http://127.0.0.1/cb', 'http://[::1]:8080/cb', 'com.example.app:/oauth/callback'];
      test(`accepts https, http to loopback hosts and private-use schemes: ${accepted.join(' ')}`, async () => {
        const result = await latch(['client', 'create', '--name', 'Good', ...accepted.flatMap((uri) => ['--redirect-uri', uri]), '--json']);
        assert.equal(result.code, 0, result.stderr);
        assert.deepEqual(JSON.parse(result.stdout).redirect_uris, accepted);
      });

      test('http to a non-loopback host is allowed in development mode (LATCH_DEV_MODE=1)', async () => {
        const result = await latch(['client', 'create', '--name', 'Dev', '--redirect-uri', 'http://devbox.local:8080/cb', '--json'], { env: { LATCH_DEV_MODE: '1' } });
        assert.equal(result.code, 0, result.stderr);
      });

      test('every problem is named at once', async () => {
        const result = await latch(['client', 'create', '--name', 'Bad', '--redirect-uri', 'http://a.example.com/', '--redirect-uri', 'https://b.example.com/#x']);
        assertCleanFailure(result, /non-loopback host.*; .*fragment/);
      });
    });

    describe('logout URIs (OIDC RP-Initiated Logout 1.0 §3.1, Back-Channel Logout 1.0 §2.2)', () => {
      test('client create --post-logout-redirect-uri … --backchannel-logout-uri prints and stores them, and the logout endpoint follows the registered URI', async () => {
        const result = await latch([
          'client', 'create', '--name', 'Logout CLI', '--redirect-uri', 'https://cli.example.com/cb',
          '--post-logout-redirect-uri', 'https://cli.example.com/bye', '--post-logout-redirect-uri', 'http://127.0.0.1:8080/bye',
          '--backchannel-logout-uri', 'https://cli.example.com/backchannel-logout', '--json',
        ]);
        assert.equal(result.code, 0, result.stderr);
        const created = JSON.parse(result.stdout);
        assert.deepEqual(created.post_logout_redirect_uris, ['https://cli.example.com/bye', 'http://127.0.0.1:8080/bye']);
        assert.equal(created.backchannel_logout_uri, 'https://cli.example.com/backchannel-logout');
        const show = JSON.parse((await latch(['client', 'show', created.client_id, '--json'])).stdout);
        assert.deepEqual(show.post_logout_redirect_uris, created.post_logout_redirect_uris);
        assert.equal(show.backchannel_logout_uri, created.backchannel_logout_uri);
        const logout = await fetch(
          `${server.baseUrl}/oauth2/logout?${new URLSearchParams({ client_id: created.client_id, post_logout_redirect_uri: 'https://cli.example.com/bye', state: 'x' })}`,
          { redirect: 'manual' },
        );
        assert.equal(logout.status, 303);
        assert.equal(logout.headers.get('location'), 'https://cli.example.com/bye?state=x');
      });

      test('without the flags a client has none: an empty list and null', async () => {
        const created = JSON.parse((await latch(['client', 'create', '--name', 'No Logout', '--redirect-uri', 'https://none.example.com/cb', '--json'])).stdout);
        assert.deepEqual(created.post_logout_redirect_uris, []);
        assert.equal(created.backchannel_logout_uri, null);
      });

      const rejected: Array<[string[], RegExp, Record<string, string>?]> = [
        [['--post-logout-redirect-uri', 'https://app.example.com/bye#x'], /Post-logout redirect URI .* must not contain a fragment/],
        [['--post-logout-redirect-uri', 'http://app.example.com/bye'], /Post-logout redirect URI .* uses http to a non-loopback host/],
        [['--backchannel-logout-uri', 'http://127.0.0.1:3000/logout'], /Back-channel logout URI .* uses http; use https:\/\/ .*LATCH_DEV_MODE=1/],
        [['--backchannel-logout-uri', 'http://devbox.local/logout'], /Back-channel logout URI .* must start with https:\/\//, { LATCH_DEV_MODE: '1' }],
        [['--backchannel-logout-uri', 'https://app.example.com/logout#x'], /Back-channel logout URI .* must not contain a fragment/],
      ];
      for (const [flags, message, env] of rejected) {
        test(`${flags.join(' ')}${env ? ' (development mode)' : ''} is refused, and nothing is registered`, async () => {
          const before = await snapshotState(server);
          assertCleanFailure(await latch(['client', 'create', '--name', 'Bad', '--redirect-uri', 'https://ok.example.com/cb', ...flags], env ? { env } : {}), message);
          assert.deepEqual(await snapshotState(server), before, 'nothing was registered');
        });
      }

      test('http to localhost is a valid back-channel logout URI in development mode (LATCH_DEV_MODE=1)', async () => {
        const result = await latch(['client', 'create', '--name', 'Dev Logout', '--redirect-uri', 'http://localhost:3000/cb', '--backchannel-logout-uri', 'http://localhost:3000/logout', '--json'], {
          env: { LATCH_DEV_MODE: '1' },
        });
        assert.equal(result.code, 0, result.stderr);
        assert.equal(JSON.parse(result.stdout).backchannel_logout_uri, 'http://localhost:3000/logout');
      });
    });

    describe('kinds of client: --public, --grant-type, --scope (issue 18)', () => {
      test('client create --public prints no secret, stores the client as public, and the token endpoint takes its client_id alone', async () => {
        const result = await latch(['client', 'create', '--name', 'SPA CLI', '--redirect-uri', 'http://127.0.0.1:5173/callback', '--public', '--json']);
        assert.equal(result.code, 0, result.stderr);
        const created = JSON.parse(result.stdout);
        assert.ok(!('client_secret' in created), 'no secret for a public client');
        assert.equal(created.token_endpoint_auth_method, 'none');
        assert.deepEqual(created.grant_types, ['authorization_code', 'refresh_token']);
        const show = JSON.parse((await latch(['client', 'show', created.client_id, '--json'])).stdout);
        assert.equal(show.token_endpoint_auth_method, 'none');
        const text = await latch(['client', 'create', '--name', 'SPA CLI 2', '--redirect-uri', 'http://127.0.0.1:5173/callback', '--public']);
        assert.doesNotMatch(text.stdout, /client_secret/);
        assert.match(text.stderr, /no secret.*PKCE/);

        const user = await server.createUser();
        const client = { clientId: created.client_id, clientSecret: '', redirectUris: created.redirect_uris };
        const issued = await issueCode(server, client, { email: user.user.email, password: user.password });
        const response = await postToken(server.baseUrl, {
          form: { grant_type: 'authorization_code', code: issued.code, code_verifier: issued.verifier!, client_id: created.client_id },
        });
        assert.equal(response.status, 200, response.text);
        assertCleanFailure(await latch(['client', 'rotate-secret', created.client_id]), /public client.*no secret to rotate/);
      });

      test('client create --grant-type client_credentials --scope registers a service without redirect URIs, which gets tokens', async () => {
        const result = await latch(['client', 'create', '--name', 'Billing', '--grant-type', 'client_credentials', '--scope', 'invoices:read invoices:write', '--json']);
        assert.equal(result.code, 0, result.stderr);
        const created = JSON.parse(result.stdout);
        assert.deepEqual(created.grant_types, ['client_credentials']);
        assert.equal(created.scope, 'invoices:read invoices:write');
        assert.deepEqual(created.redirect_uris, []);
        assert.equal(created.token_endpoint_auth_method, 'client_secret_basic');
        const response = await postToken(server.baseUrl, {
          headers: { authorization: basicAuthorization(created.client_id, created.client_secret) },
          form: { grant_type: 'client_credentials', scope: 'invoices:read' },
        });
        assert.equal(response.status, 200, response.text);
        assert.equal(response.body.scope, 'invoices:read');
      });

      const refused: Array<[string[], RegExp]> = [
        [['--public', '--grant-type', 'client_credentials'], /client_credentials needs a confidential client/],
        [['--grant-type', 'password'], /--grant-type password is not a grant Latch supports/],
        [['--grant-type', 'refresh_token', '--redirect-uri', 'https://ok.example.com/cb'], /refresh_token needs authorization_code/],
        [['--grant-type', 'client_credentials', '--scope', 'openid'], /Scope openid is about a user/],
        [['--scope', 'api:read', '--redirect-uri', 'https://ok.example.com/cb'], /Registered scopes are for services/],
        [['--public'], /needs at least one --redirect-uri/],
      ];
      for (const [flags, message] of refused) {
        test(`${flags.join(' ')} is refused in words, and nothing is registered`, async () => {
          const before = await snapshotState(server);
          assertCleanFailure(await latch(['client', 'create', '--name', 'Bad Kind', ...flags]), message);
          assert.deepEqual(await snapshotState(server), before, 'nothing was registered');
        });
      }
    });

    test('client create --require-mfa, then set-require-mfa off: stored, printed, and refused in words when unclear', async () => {
      const created = await latch(['client', 'create', '--name', 'Bank', '--redirect-uri', 'https://bank.example.com/cb', '--require-mfa', '--json']);
      assert.equal(created.code, 0, created.stderr);
      const { client_id: clientId, require_mfa: requireMfa } = JSON.parse(created.stdout);
      assert.equal(requireMfa, true);
      assert.equal((await server.storage.clients.findById(clientId))?.requireMfa, true);
      const off = await latch(['client', 'set-require-mfa', clientId, 'off', '--json']);
      assert.equal(off.code, 0, off.stderr);
      assert.deepEqual(JSON.parse(off.stdout), { client_id: clientId, require_mfa: false });
      assert.equal(JSON.parse((await latch(['client', 'show', clientId, '--json'])).stdout).require_mfa, false);
      assertCleanFailure(await latch(['client', 'set-require-mfa', clientId, 'maybe']), /needs CLIENT_ID on\|off/);
      assertCleanFailure(await latch(['client', 'set-require-mfa', 'no-such-client', 'on']), /No client with id no-such-client/);
    });

    describe('refresh-token lifetimes per client (issue 14 item 2)', () => {
      const seconds = (date: Date) => date.getTime() / 1000;
      const near = (actual: number, expected: number, what: string) => assert.ok(Math.abs(actual - expected) <= 5, `${what}: ${actual} is about ${expected}`);

      test('client create --refresh-token-idle-seconds/--refresh-token-max-seconds bound the tokens it gets; set-refresh-lifetimes changes what is issued next', async () => {
        const result = await latch(['client', 'create', '--name', 'Short Lived', '--redirect-uri', 'https://short.example.com/cb', '--refresh-token-idle-seconds', '600', '--refresh-token-max-seconds', '3600', '--json']);
        assert.equal(result.code, 0, result.stderr);
        const created = JSON.parse(result.stdout);
        assert.equal(created.refresh_token_idle_seconds, 600);
        assert.equal(created.refresh_token_max_seconds, 3600);
        const client = { clientId: created.client_id, clientSecret: created.client_secret, redirectUris: created.redirect_uris };
        const { user, password } = await server.createUser();
        const issued = await issueCode(server, client, { email: user.email, password }, { scope: 'openid offline_access' });
        const exchanged = await exchangeIssuedCode(server, client, issued);
        assert.equal(exchanged.status, 200, exchanged.text);
        const start = Date.now() / 1000;
        const first = await server.storage.tokens.findRefreshByHash(hashTimeOrderedSecret(exchanged.body.refresh_token));
        assert.ok(first);
        near(seconds(first.expiresAt), start + 600, 'idle expiry: the client’s 600 s, not the deployment’s 30 days');
        near(seconds(first.grantExpiresAt), start + 3600, 'absolute expiry: the client’s 3600 s');
        const introspected = await postIntrospect(server.baseUrl, {
          headers: { authorization: basicAuthorization(client.clientId, client.clientSecret) },
          form: { token: exchanged.body.refresh_token },
        });
        assert.equal(introspected.body.active, true, introspected.text);
        near(introspected.body.exp, start + 600, 'introspection reports the client’s idle expiry');

        // Back to the deployment's idle lifetime (30 days): the next rotation's token is bounded by the grant's 3600 s.
        const set = await latch(['client', 'set-refresh-lifetimes', created.client_id, '--refresh-token-idle-seconds', 'default', '--json']);
        assert.equal(set.code, 0, set.stderr);
        assert.deepEqual(JSON.parse(set.stdout), { client_id: created.client_id, refresh_token_idle_seconds: null, refresh_token_max_seconds: 3600 });
        const shown = JSON.parse((await latch(['client', 'show', created.client_id, '--json'])).stdout);
        assert.equal(shown.refresh_token_idle_seconds, null);
        assert.equal(shown.refresh_token_max_seconds, 3600);
        const refreshed = await postToken(server.baseUrl, {
          headers: { authorization: basicAuthorization(client.clientId, client.clientSecret) },
          form: { grant_type: 'refresh_token', refresh_token: exchanged.body.refresh_token },
        });
        assert.equal(refreshed.status, 200, refreshed.text);
        const successor = await server.storage.tokens.findRefreshByHash(hashTimeOrderedSecret(refreshed.body.refresh_token));
        assert.ok(successor);
        near(seconds(successor.expiresAt), seconds(first.grantExpiresAt), 'the idle expiry never passes the grant’s absolute one');
      });

      const refused: Array<[string[], RegExp]> = [
        [['--refresh-token-idle-seconds', '7200', '--refresh-token-max-seconds', '3600'], /idle lifetime \(7200 s\) must not be longer than its absolute lifetime/],
        [['--refresh-token-idle-seconds', '30'], /idle lifetime must be a whole number of seconds from 60/],
        [['--refresh-token-max-seconds', 'a week'], /--refresh-token-max-seconds must be a whole number of seconds/],
      ];
      for (const [flags, message] of refused) {
        test(`client create ${flags.join(' ')} is refused in words, and nothing is registered`, async () => {
          const before = await snapshotState(server);
          assertCleanFailure(await latch(['client', 'create', '--name', 'Bad Lifetime', '--redirect-uri', 'https://bad.example.com/cb', ...flags]), message);
          assert.deepEqual(await snapshotState(server), before, 'nothing was registered');
        });
      }

      test('set-refresh-lifetimes refuses what cannot apply, and changes nothing', async () => {
        const created = JSON.parse((await latch(['client', 'create', '--name', 'Lifetimes', '--redirect-uri', 'https://l.example.com/cb', '--refresh-token-max-seconds', '3600', '--json'])).stdout);
        const before = await snapshotState(server);
        assertCleanFailure(await latch(['client', 'set-refresh-lifetimes', created.client_id, '--refresh-token-idle-seconds', '7200']), /must not be longer than its absolute lifetime/);
        assertCleanFailure(await latch(['client', 'set-refresh-lifetimes', created.client_id]), /needs --refresh-token-idle-seconds and\/or --refresh-token-max-seconds/);
        assertCleanFailure(await latch(['client', 'set-refresh-lifetimes', 'no-such-client', '--refresh-token-max-seconds', '60']), /No client with id no-such-client/);
        assert.deepEqual(await snapshotState(server), before, 'nothing changed');
      });
    });

    test('missing arguments and unknown commands fail with usage, not a stack trace', async () => {
      assertCleanFailure(await latch(['client', 'create', '--name', 'No URIs']), /needs at least one --redirect-uri/);
      assertCleanFailure(await latch(['client', 'create', '--redirect-uri', 'https://x.example.com/']), /needs --name/);
      assertCleanFailure(await latch(['client', 'frobnicate']), /Unknown command: latch client frobnicate/);
      assertCleanFailure(await latch(['client', 'create', '--nme', 'typo']), /Unknown option '--nme'/);
      assertCleanFailure(await latch(['nonsense']), /Unknown command: nonsense/);
    });

    test('--help or -h after a command prints that command\'s usage, exit 0, and changes nothing', async () => {
      const before = await snapshotState(server);
      const client = await latch(['client', 'create', '--help']);
      assert.equal(client.code, 0, client.stderr);
      assert.match(client.stdout, /^latch client create --name NAME --redirect-uri URI/);
      assert.match(client.stdout, /\nlatch client delete CLIENT_ID\n$/);
      assert.equal(client.stderr, '');
      const user = await latch(['user', '-h']);
      assert.equal(user.code, 0);
      assert.match(user.stdout, /^latch user create --email E/);
      const keys = await latch(['keys', 'retire', '--help']);
      assert.equal(keys.code, 0);
      assert.match(keys.stdout, /^latch keys list/);
      assert.deepEqual(await snapshotState(server), before, 'nothing changed');
      // After `--`, -h is an operand: a KID here, which no key has.
      assertCleanFailure(await latch(['keys', 'retire', '--', '-h']), /No signing key with kid -h$/m);
      assertCleanFailure(await latch(['nonsense', '--help']), /Unknown command: nonsense/);
    });

    test('bin/latch.js exits with the command\'s status: 2 for a usage error, 1 with the usage for no command, 0 for help', async () => {
      assertCleanFailure(await latch(['client', 'create', '--nme', 'typo'], { asProcess: true }), /Unknown option '--nme'/);
      const bare = await latch([], { asProcess: true });
      assert.equal(bare.code, 1);
      assert.match(bare.stdout, /^Usage:\n/);
      const help = await latch(['--help'], { asProcess: true });
      assert.equal(help.code, 0);
      assert.equal(help.stdout, bare.stdout);
    });
  });

  describe('user', () => {
    test('user create --password-stdin --json prints id, email and name; the user can sign in', async () => {
      const email = `cli-${Date.now()}@example.com`;
      const result = await latch(['user', 'create', '--email', email, '--name', 'Cli User', '--avatar-url', 'https://img.example.com/a.png', '--password-stdin', '--json'], {
        stdin: 'a long enough passphrase\n',
        asProcess: true,
      });
      assert.equal(result.code, 0, result.stderr);
      const created = JSON.parse(result.stdout);
      assert.deepEqual(Object.keys(created).sort(), ['email', 'id', 'name']);
      assert.equal(typeof created.id, 'number');
      assert.equal(created.email, email);
      assert.equal(created.name, 'Cli User');

      const [row] = await findRows(server, 'users', { id: created.id });
      assert.match(String(row?.password_hash), /^\$argon2id\$/);
      assert.ok(!JSON.stringify(row).includes('a long enough passphrase'));

      // the trailing newline a shell adds is not part of the password
      const client = await server.createClient();
      const issued = await issueCode(server, client, { email, password: 'a long enough passphrase' });
      assert.ok(issued.code);
    });

    test('the password is never taken from the command line', async () => {
      assertCleanFailure(await latch(['user', 'create', '--email', 'x@example.com', '--name', 'X']), /--password-stdin/);
      assertCleanFailure(await latch(['user', 'create', '--email', 'x@example.com', '--name', 'X', '--password', 'secret123456']), /Unknown option '--password'/);
    });

    test('bad input is refused with a message: duplicate email (any case), weak password, bad email', async () => {
      const email = `dup-${Date.now()}@example.com`;
      assert.equal((await latch(['user', 'create', '--email', email, '--name', 'D', '--password-stdin'], { stdin: 'a long enough passphrase' })).code, 0);
      assertCleanFailure(
        await latch(['user', 'create', '--email', email.toUpperCase(), '--name', 'D', '--password-stdin'], { stdin: 'a long enough passphrase' }),
        /already exists/,
      );
      assertCleanFailure(await latch(['user', 'create', '--email', 'w@example.com', '--name', 'W', '--password-stdin'], { stdin: 'short' }), /at least 10 characters/);
      assertCleanFailure(await latch(['user', 'create', '--email', 'not-an-email', '--name', 'W', '--password-stdin'], { stdin: 'a long enough passphrase' }), /email address/);
    });

    test('user list shows the users without password hashes', async () => {
      const result = await latch(['user', 'list', '--json']);
      assert.equal(result.code, 0, result.stderr);
      const users = JSON.parse(result.stdout) as Array<Record<string, unknown>>;
      assert.ok(users.length > 0);
      assert.ok(!result.stdout.includes('argon2'));
    });
  });
});
