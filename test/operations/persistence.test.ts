/**
 * Everything lives in the database, so a restart on the same data changes nothing a client or a user can
 * see (issue 2 item 11: tokens survive a restart): access tokens, unexchanged codes, browser sessions,
 * remembered consent, client secrets, forms loaded before the restart, and the revocation of a reused code.
 */
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { inputValue, TestBrowser } from '../helpers/browser.js';
import { basicAuthorization, callUserinfo, exchangeIssuedCode, issueCode, postToken } from '../helpers/code-fixtures.js';
import { authorizeUrl } from '../helpers/oauth-flow.js';
import { runAdminSql } from '../helpers/postgres.js';
import { startTestServer, type TestServer, type TestServerOptions } from '../helpers/test-server.js';

/** Options that start a new Latch on the data (and at the address) of a stopped one. */
function sameData(server: TestServer): TestServerOptions {
  const port = String(new URL(server.baseUrl).port);
  return server.config.databaseSchema
    ? { database: 'postgres', postgresSchema: server.config.databaseSchema, env: { PORT: port } }
    : { dataDir: server.dataDir, env: { PORT: port } };
}

describe('after a restart on the same data', () => {
  let restarted: TestServer | undefined;
  let schemaToDrop: string | null = null;
  after(async () => {
    await restarted?.stop();
    if (schemaToDrop) await runAdminSql(`drop schema if exists ${schemaToDrop} cascade`);
  });

  test('tokens, codes, sessions, consent, secrets and forms in flight all still work', async () => {
    const first = await startTestServer();
    schemaToDrop = first.config.databaseSchema;
    const client = await first.createClient();
    const { user, password } = await first.createUser();
    const signedIn = new TestBrowser();
    const exchanged = await exchangeIssuedCode(first, client, await issueCode(first, client, { email: user.email, password }, { browser: signedIn }));
    assert.equal(exchanged.status, 200);
    const token = exchanged.body.access_token as string;
    const pending = await issueCode(first, client, { email: user.email, password }, { browser: signedIn });
    const reused = await issueCode(first, client, { email: user.email, password }, { browser: signedIn });
    const reusedToken = (await exchangeIssuedCode(first, client, reused)).body.access_token as string;
    const formBrowser = new TestBrowser();
    const signInPage = await formBrowser.request(`${first.baseUrl}/login`);
    const issuer = first.config.issuer;

    await first.stop({ keepData: true });
    assert.equal((await fetch(`${first.baseUrl}/oauth2/userinfo`).catch(() => null))?.status, undefined, 'the first Latch is gone');
    restarted = await startTestServer(sameData(first));
    assert.equal(restarted.baseUrl, first.baseUrl);

    // the access token issued before the restart
    const info = await callUserinfo(restarted.baseUrl, `Bearer ${token}`);
    assert.equal(info.status, 200, info.text);
    assert.equal(info.body.sub, String(user.id));

    // a code issued before the restart, exchanged after it, with Basic and the same secret
    const late = await postToken(restarted.baseUrl, {
      headers: { authorization: basicAuthorization(client.clientId, client.clientSecret) },
      form: { grant_type: 'authorization_code', code: pending.code, code_verifier: pending.verifier! },
    });
    assert.equal(late.status, 200, late.text);

    // a code used before the restart is still known as used: a replay fails and revokes its token
    assert.equal((await exchangeIssuedCode(restarted, client, reused)).body.error, 'invalid_grant');
    assert.equal((await callUserinfo(restarted.baseUrl, `Bearer ${reusedToken}`)).status, 401);

    // the browser session and the remembered consent: straight back to the client with a code
    const again = await signedIn.request(
      authorizeUrl(restarted.baseUrl, { response_type: 'code', client_id: client.clientId, redirect_uri: client.redirectUris[0], state: 'after-restart' }),
    );
    assert.equal(again.status, 302);
    const location = new URL(again.headers.get('location')!);
    assert.ok(location.searchParams.get('code'));
    assert.equal(location.searchParams.get('iss'), issuer);

    // a sign-in form loaded before the restart can still be submitted (its CSRF token still verifies)
    const submitted = await formBrowser.request(`${restarted.baseUrl}/login`, {
      form: { _csrf: inputValue(signInPage.body, '_csrf'), return_to: '/', email: user.email, password },
    });
    assert.equal(submitted.status, 303, submitted.body.slice(0, 300));
  });
});
