/**
 * No credential sent in a wrong place comes back (issue 22 item 6): each of Latch's secrets (a client secret, an
 * access token, a refresh token, a code) and a password, sent where it does not belong, never appears in the
 * response (body and headers), in any log line, or in the developer console's record of the failure.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { redactSecrets } from '../../src/errors.js';
import { inputValue, TestBrowser } from '../helpers/browser.js';
import { basicAuthorization, exchangeIssuedCode, issueCode, readResponse, type TestUser } from '../helpers/code-fixtures.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

describe('credentials sent in the wrong place are never repeated', () => {
  let server: TestServer;
  let client: Awaited<ReturnType<TestServer['createClient']>>;
  let user: TestUser;
  const secrets: Record<string, string> = {};
  const redirectUri = 'https://app.example.com/callback';

  before(async () => {
    server = await startTestServer({ captureLog: true });
    client = await server.createClient({ name: 'Echo App', redirectUris: [redirectUri] });
    const created = await server.createUser();
    user = { email: created.user.email, password: created.password };
    const exchanged = await exchangeIssuedCode(server, client, await issueCode(server, client, user, { scope: 'openid profile offline_access' }));
    assert.equal(exchanged.status, 200, exchanged.text);
    secrets['client secret'] = client.clientSecret;
    secrets['access token'] = exchanged.body.access_token;
    secrets['refresh token'] = exchanged.body.refresh_token;
    secrets['unused code'] = (await issueCode(server, client, user)).code;
  });
  after(async () => server.stop());

  async function assertNowhere(secret: string, response: Response, what: string): Promise<void> {
    const { text, headers } = await readResponse(response);
    assert.ok(!text.includes(secret), `${what}: the body repeats it: ${text.slice(0, 300)}`);
    headers.forEach((value, name) => assert.ok(!value.includes(secret), `${what}: header ${name} repeats it`));
    assert.ok(!JSON.stringify(server.logLines()).includes(secret), `${what}: a log line repeats it`);
    const events = await server.storage.clientEvents.listRecent(client.clientId, 200);
    assert.ok(!JSON.stringify(events).includes(secret), `${what}: the console's failure record repeats it`);
  }

  const form = (fields: Record<string, string>) => ({
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(fields).toString(),
  });

  test('each Latch secret in each wrong parameter of the token endpoint', async () => {
    const authorization = basicAuthorization(client.clientId, client.clientSecret);
    for (const [kind, secret] of Object.entries(secrets)) {
      const places: Array<[string, RequestInit]> = [
        ['as client_id', form({ grant_type: 'authorization_code', code: 'x', client_id: secret, client_secret: 'x' })],
        ['as grant_type', { ...form({ grant_type: secret, code: 'x' }), headers: { 'content-type': 'application/x-www-form-urlencoded', authorization } }],
        ['as redirect_uri', { ...form({ grant_type: 'authorization_code', code: 'latch_ac_nope', redirect_uri: secret }), headers: { 'content-type': 'application/x-www-form-urlencoded', authorization } }],
        ['as scope of a refresh', { ...form({ grant_type: 'refresh_token', refresh_token: 'latch_rt_nope', scope: secret }), headers: { 'content-type': 'application/x-www-form-urlencoded', authorization } }],
        ['as the Basic user name', { ...form({ grant_type: 'authorization_code', code: 'x' }), headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: basicAuthorization(secret, 'x') } }],
      ];
      for (const [place, init] of places) {
        await assertNowhere(secret, await fetch(`${server.baseUrl}/oauth2/token`, init), `${kind} ${place}`);
      }
    }
  });

  test('each Latch secret in the authorization request and at userinfo', async () => {
    for (const [kind, secret] of Object.entries(secrets)) {
      const authorize = (params: Record<string, string>) => fetch(`${server.baseUrl}/oauth2/authorize?${new URLSearchParams(params)}`, { redirect: 'manual' });
      await assertNowhere(secret, await authorize({ client_id: secret, redirect_uri: redirectUri, response_type: 'code' }), `${kind} as client_id at authorize`);
      await assertNowhere(secret, await authorize({ client_id: client.clientId, redirect_uri: secret, response_type: 'code' }), `${kind} as redirect_uri at authorize`);
      await assertNowhere(secret, await authorize({ client_id: client.clientId, redirect_uri: redirectUri, response_type: secret }), `${kind} as response_type at authorize`);
      await assertNowhere(secret, await authorize({ client_id: client.clientId, redirect_uri: redirectUri, response_type: 'code', scope: `profile ${secret}` }), `${kind} in scope at authorize`);
      await assertNowhere(secret, await fetch(`${server.baseUrl}/oauth2/userinfo`, { headers: { authorization: `${secret} x` } }), `${kind} as the Authorization scheme at userinfo`);
      await assertNowhere(secret, await fetch(`${server.baseUrl}/oauth2/userinfo?access_token=${secret}`), `${kind} in the userinfo query`);
    }
  });

  test('a password typed into the email field of the sign-in page is not put back in the page', async () => {
    const browser = new TestBrowser();
    const page = await browser.request(`${server.baseUrl}/login`);
    const response = await browser.request(`${server.baseUrl}/login`, { form: { _csrf: inputValue(page.body, '_csrf'), return_to: '/', email: user.password, password: user.password } });
    assert.equal(response.status, 401);
    assert.ok(!response.body.includes(user.password), 'the password is not in the page');
    assert.ok(!JSON.stringify(server.logLines()).includes(user.password), 'nor in the log');
    // A real email address is kept in the form, as before.
    const typo = await browser.request(`${server.baseUrl}/login`, { form: { _csrf: inputValue(response.body, '_csrf'), return_to: '/', email: user.email, password: 'wrong password' } });
    assert.equal(inputValue(typo.body, 'email'), user.email);
  });

  test('redactSecrets: Latch secrets are cut to their prefix; other text is kept', () => {
    const text = `client_id latch_cs_${'A'.repeat(43)} and token latch_at_0123456789a${'b'.repeat(43)} and latch_rat_${'c'.repeat(43)}; latch_xx_short stays`;
    const redacted = redactSecrets(text);
    assert.ok(!redacted.includes('A'.repeat(20)) && !redacted.includes('b'.repeat(20)) && !redacted.includes('c'.repeat(20)), redacted);
    assert.match(redacted, /latch_cs_…\(a secret, not repeated\)/);
    assert.match(redacted, /latch_rat_…/);
    assert.match(redacted, /latch_xx_short stays/);
  });
});
