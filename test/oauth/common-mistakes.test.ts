/**
 * The mistakes app developers make most, answered in words that say what to fix (issue 22 items 5–7;
 * docs/protocol-decisions.md "Scope" and "Client authentication"): scope values a library adds that Latch does
 * not know (ignored in OpenID Connect requests, noted in the console); a secret in the URL's query string; a
 * GET on the token endpoint; a secret pasted with whitespace; id and secret swapped. No credential sent in a
 * wrong place ever comes back in a response or reaches the log.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { pageText, TestBrowser } from '../helpers/browser.js';
import { signedInBrowser, submitForm } from '../helpers/pages.js';
import { basicAuthorization, exchangeIssuedCode, issueCode, postToken, readResponse, type RawResponse, type TestUser } from '../helpers/code-fixtures.js';
import { authorize, exchangeCode, pkcePair } from '../helpers/oauth-flow.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

describe('common integration mistakes, named', () => {
  let server: TestServer;
  let client: Awaited<ReturnType<TestServer['createClient']>>;
  let user: TestUser;
  const redirectUri = 'https://app.example.com/callback';

  before(async () => {
    server = await startTestServer({ captureLog: true });
    client = await server.createClient({ name: 'Mistakes App', redirectUris: [redirectUri] });
    const created = await server.createUser();
    user = { email: created.user.email, password: created.password };
  });
  after(async () => server.stop());

  /** Neither the response nor any log line written so far holds `secret`. */
  function assertNotEchoed(response: RawResponse | { text: string }, secret: string): void {
    assert.ok(!response.text.includes(secret), `the response repeats the credential: ${response.text}`);
    assert.ok(!JSON.stringify(server.logLines()).includes(secret), 'a log line repeats the credential');
  }

  test('OIDC Core §3.1.2.1: scope values Latch does not know are ignored in an OpenID Connect request; the rest is granted, reported exactly, and the console notes what was ignored', async () => {
    const { verifier, challenge } = pkcePair();
    const back = await authorize(
      new TestBrowser(),
      server.baseUrl,
      { client_id: client.clientId, redirect_uri: redirectUri, response_type: 'code', scope: 'openid email profile address custom:read', state: 's', code_challenge: challenge, code_challenge_method: 'S256' },
      user,
    );
    const code = back.searchParams.get('code');
    assert.ok(code, `a code: ${back.search}`);
    const response = await exchangeCode(server.baseUrl, client, { grant_type: 'authorization_code', code, code_verifier: verifier });
    assert.equal(response.status, 200, JSON.stringify(response.body));
    assert.equal(response.body.scope, 'openid profile email', 'exactly what was granted');
    const [note] = (await server.storage.clientEvents.listRecent(client.clientId, 10)).filter((event) => event.error === 'scope_ignored');
    assert.ok(note, 'the console has a note');
    assert.match(note.description, /ignored the scope 'address', 'custom:read'.*granted: openid profile email/);
  });

  test('a client secret in the URL query string: seen, ignored, and where it goes instead; never repeated', async () => {
    const issued = await issueCode(server, client, user);
    const secret = client.clientSecret;
    // The credentials in the URL, as a developer adapting a GET example might send them; the rest in the body.
    const response = await readResponse(
      await fetch(`${server.baseUrl}/oauth2/token?client_id=${client.clientId}&client_secret=${secret}`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ grant_type: 'authorization_code', code: issued.code, code_verifier: issued.verifier! }).toString(),
      }),
    );
    assert.equal(response.status, 401);
    assert.equal(response.body.error, 'invalid_client');
    assert.match(response.body.error_description, /client_secret and client_id were sent in the URL's query string, where Latch ignores them.*HTTP Basic credentials or in the application\/x-www-form-urlencoded POST body/);
    assertNotEchoed(response, secret);
  });

  test('GET on the token endpoint: 405, Allow: POST, and how to send it', async () => {
    const answered = await readResponse(await fetch(`${server.baseUrl}/oauth2/token?grant_type=authorization_code`));
    assert.equal(answered.status, 405);
    assert.equal(answered.headers.get('allow'), 'OPTIONS, POST', 'POST, and OPTIONS for CORS preflights');
    assert.equal(answered.body.error, 'invalid_request');
    assert.match(answered.body.error_description, /\/oauth2\/token answers POST, not GET: send the token request as POST with an application\/x-www-form-urlencoded body/);
  });

  test('a secret with a line break or spaces around it: said so, without saying anything of the secret', async () => {
    for (const padded of [`${client.clientSecret}\n`, ` ${client.clientSecret}`]) {
      const issued = await issueCode(server, client, user);
      const response = await postToken(server.baseUrl, {
        form: { grant_type: 'authorization_code', code: issued.code, code_verifier: issued.verifier!, client_id: client.clientId, client_secret: padded },
      });
      assert.equal(response.status, 401, response.text);
      assert.match(response.body.error_description, /starts or ends with whitespace \(a space or a line break\), which no Latch secret has; send it without it/);
      assertNotEchoed(response, client.clientSecret);
      // Nothing was spent: the same code works with the secret as it should be.
      assert.equal((await exchangeIssuedCode(server, client, issued)).status, 200);
    }
  });

  test('a local Latch without SMTP says where its mail is: on the account page of an unconfirmed address, and after "Forgot your password?"', async () => {
    const { user, password } = await server.createUser({ emailVerified: false });
    const browser = await signedInBrowser(server, user.email, password);
    const account = await browser.request(`${server.baseUrl}/account`);
    assert.match(pageText(account.body), /This Latch sends no real mail \(LATCH_SMTP_URL is not set\): its mail is in the development outbox/);
    assert.ok(account.body.includes('href="/dev/outbox"'));
    const sent = await submitForm(new TestBrowser(), server.baseUrl, '/forgot-password', '/forgot-password', { email: user.email });
    assert.match(pageText(sent.body), /its mail is in the development outbox/);
    assert.equal((await fetch(`${server.baseUrl}/dev/outbox`)).status, 200, 'and the link leads to it');
  });

  test('id and secret swapped: the secret sent as client_id is not repeated in the answer or the log', async () => {
    const issued = await issueCode(server, client, user);
    for (const response of [
      await postToken(server.baseUrl, { form: { grant_type: 'authorization_code', code: issued.code, client_id: client.clientSecret, client_secret: client.clientId } }),
      await postToken(server.baseUrl, { headers: { authorization: basicAuthorization(client.clientSecret, client.clientId) }, form: { grant_type: 'authorization_code', code: issued.code } }),
    ]) {
      assert.equal(response.status, 401, response.text);
      assert.equal(response.body.error, 'invalid_client');
      assertNotEchoed(response, client.clientSecret);
    }
  });
});
