/**
 * The whole flow through the example client (issue 2 items 10 and 11): its login endpoint → Latch sign-in →
 * consent → its callback → token (each client-auth style) → userinfo (each header style) → the user on its
 * page. The example's back-channel calls are recorded through its `fetch` option, so the test sees exactly
 * what it sent to Latch.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startExampleClient, type RunningExampleClient } from '../../examples/client/server.mjs';
import { pageText, TestBrowser, type BrowserResponse } from '../helpers/browser.js';
import { decide, signIn } from '../helpers/oauth-flow.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

interface RecordedCall {
  url: string;
  headers: Record<string, string>;
  body: string;
}

function recordingFetch(calls: RecordedCall[]): typeof fetch {
  return async (input, init) => {
    const headers = Object.fromEntries(Object.entries((init?.headers ?? {}) as Record<string, string>).map(([k, v]) => [k.toLowerCase(), v]));
    calls.push({ url: String(input), headers, body: typeof init?.body === 'string' ? init.body : '' });
    return fetch(input, init);
  };
}

describe('the example client, end to end', () => {
  let latch: TestServer;
  let registered: Awaited<ReturnType<TestServer['createClient']>>;
  let user: { email: string; password: string; id: number; name: string };
  const running: RunningExampleClient[] = [];

  before(async () => {
    latch = await startTestServer();
    // A loopback redirect URI registered without a port matches any port (RFC 8252 §7.3), so the example can
    // listen wherever the system puts it.
    registered = await latch.createClient({ name: 'Example App', redirectUris: ['http://127.0.0.1/callback'] });
    const created = await latch.createUser({ name: 'Example <User> & "Friends"' });
    user = { email: created.user.email, password: created.password, id: created.user.id, name: created.user.name };
  });
  after(async () => {
    for (const client of running) await client.close();
    await latch.stop();
  });

  async function startClient(options: Parameters<typeof startExampleClient>[0] = {}): Promise<{ client: RunningExampleClient; calls: RecordedCall[] }> {
    const calls: RecordedCall[] = [];
    const client = await startExampleClient({
      issuer: latch.baseUrl,
      clientId: registered.clientId,
      clientSecret: registered.clientSecret,
      port: 0,
      fetch: recordingFetch(calls),
      ...options,
    });
    running.push(client);
    return { client, calls };
  }

  /** Every response the browser saw, to check that the client secret never reached it. */
  function collectingBrowser(seen: BrowserResponse[]): TestBrowser {
    const browser = new TestBrowser();
    const request = browser.request.bind(browser);
    browser.request = async (url, init) => {
      const response = await request(url, init);
      seen.push(response);
      return response;
    };
    return browser;
  }

  /** The browser's walk: the example's /login → Latch (sign-in, consent) → the example's /callback. */
  async function walk(browser: TestBrowser, client: RunningExampleClient, decision: 'allow' | 'deny' = 'allow'): Promise<BrowserResponse> {
    const login = await browser.request(`${client.url}/login`);
    assert.equal(login.status, 302);
    const authorizeLocation = login.headers.get('location') ?? '';
    assert.ok(authorizeLocation.startsWith(`${latch.baseUrl}/oauth2/authorize?`), authorizeLocation);
    let page = await browser.follow(authorizeLocation, latch.baseUrl);
    if (page.body.includes('action="/login"')) page = await signIn(browser, latch.baseUrl, page, user.email, user.password);
    if (page.body.includes('/oauth2/authorize/decision')) page = await decide(browser, latch.baseUrl, page, decision);
    const callback = page.headers.get('location') ?? '';
    assert.ok(callback.startsWith(`${client.url}/callback?`), `Latch sends the browser back to the example: ${callback}`);
    return browser.request(callback);
  }

  for (const auth of ['basic', 'post'] as const) {
    for (const userinfoHeader of ['bearer', 'bare'] as const) {
      test(`client auth ${auth}, userinfo with the ${userinfoHeader} header: the user is signed in to the example`, async () => {
        const { client, calls } = await startClient({ auth, userinfoHeader });
        const seen: BrowserResponse[] = [];
        const browser = collectingBrowser(seen);
        const callback = await walk(browser, client);
        assert.equal(callback.status, 303, callback.body);
        assert.equal(callback.headers.get('location'), '/');

        // What the example sent to Latch, from its back end.
        const [tokenCall, userinfoCall] = calls;
        assert.equal(calls.length, 2);
        assert.equal(tokenCall!.url, `${latch.baseUrl}/oauth2/token`);
        const form = new URLSearchParams(tokenCall!.body);
        assert.equal(form.get('grant_type'), 'authorization_code');
        assert.equal(form.get('redirect_uri'), client.redirectUri);
        assert.match(form.get('code_verifier') ?? '', /^[A-Za-z0-9_-]{43}$/);
        if (auth === 'basic') {
          assert.match(tokenCall!.headers.authorization ?? '', /^Basic /);
          assert.equal(form.has('client_secret'), false);
        } else {
          assert.equal(tokenCall!.headers.authorization, undefined);
          assert.equal(form.get('client_id'), registered.clientId);
          assert.equal(form.get('client_secret'), registered.clientSecret);
        }
        assert.equal(userinfoCall!.url, `${latch.baseUrl}/oauth2/userinfo`);
        if (userinfoHeader === 'bearer') assert.match(userinfoCall!.headers.authorization ?? '', /^Bearer latch_at_/);
        else assert.match(userinfoCall!.headers.authorization ?? '', /^latch_at_[A-Za-z0-9_-]+$/);

        // The example's page shows the user, escaped, from both the token response and userinfo.
        const home = await browser.request(`${client.url}/`);
        assert.equal(home.status, 200);
        const text = pageText(home.body);
        assert.ok(text.includes(`Signed in as ${user.name} (${user.email})`), text);
        assert.ok(!home.body.includes('<User>'), 'the name is escaped');
        assert.match(home.body, /Example &lt;User> &amp; /);
        assert.ok(text.includes(`"client": "Example App"`), 'the token response user object');
        assert.ok(text.includes(`"sub": "${user.id}"`), 'the userinfo response');

        // The secret and the token never reach the browser.
        for (const response of seen) {
          assert.ok(!response.body.includes(registered.clientSecret), `secret in ${response.url}`);
          assert.ok(!(response.headers.get('location') ?? '').includes(registered.clientSecret));
          assert.ok(!response.body.includes('latch_at_'), `access token in ${response.url}`);
        }
      });
    }
  }

  test('without PKCE (the spec flow exactly): Basic with no code_verifier', async () => {
    const { client, calls } = await startClient({ pkce: false });
    const browser = new TestBrowser();
    const callback = await walk(browser, client);
    assert.equal(callback.status, 303, callback.body);
    assert.equal(new URLSearchParams(calls[0]!.body).has('code_verifier'), false);
  });

  test('the state cookie is HttpOnly, and a fresh random state is made for every attempt', async () => {
    const { client } = await startClient();
    const states = new Set<string>();
    for (let i = 0; i < 3; i++) {
      const login = await new TestBrowser().request(`${client.url}/login`);
      const stateCookie = login.headers.getSetCookie().find((c) => c.startsWith('example_oauth_state='));
      assert.ok(stateCookie);
      assert.match(stateCookie, /HttpOnly/i);
      assert.match(stateCookie, /SameSite=Lax/i);
      const state = new URL(login.headers.get('location')!).searchParams.get('state')!;
      assert.ok(stateCookie.startsWith(`example_oauth_state=${state};`));
      assert.ok(state.length >= 43);
      states.add(state);
    }
    assert.equal(states.size, 3);
  });

  test('a callback with a state that is not this browser’s is refused before any call to Latch', async () => {
    const { client, calls } = await startClient();
    const victim = new TestBrowser();
    const attacker = new TestBrowser();
    // The attacker gets a code for their own account and feeds the callback URL to the victim's browser.
    const attackerLogin = await attacker.request(`${client.url}/login`);
    let page = await attacker.follow(attackerLogin.headers.get('location')!, latch.baseUrl);
    if (page.body.includes('action="/login"')) page = await signIn(attacker, latch.baseUrl, page, user.email, user.password);
    if (page.body.includes('/oauth2/authorize/decision')) page = await decide(attacker, latch.baseUrl, page, 'allow');
    const callbackUrl = page.headers.get('location')!;
    await victim.request(`${client.url}/login`); // the victim has a state of their own
    const response = await victim.request(callbackUrl);
    assert.equal(response.status, 400);
    assert.match(pageText(response.body), /state mismatch/);
    assert.equal(calls.length, 0, 'no token request was made');
    const noCookie = await new TestBrowser().request(callbackUrl);
    assert.equal(noCookie.status, 400);
    assert.equal(calls.length, 0);
  });

  test('pressing Deny at Latch: the example says so and signs nobody in', async () => {
    const { user: other, password } = await latch.createUser();
    const { client, calls } = await startClient();
    const browser = new TestBrowser();
    const login = await browser.request(`${client.url}/login`);
    let page = await browser.follow(login.headers.get('location')!, latch.baseUrl);
    page = await signIn(browser, latch.baseUrl, page, other.email, password);
    page = await decide(browser, latch.baseUrl, page, 'deny');
    const callback = await browser.request(page.headers.get('location')!);
    assert.equal(callback.status, 400);
    assert.match(pageText(callback.body), /did not allow/);
    assert.equal(calls.length, 0);
    const home = await browser.request(`${client.url}/`);
    assert.match(pageText(home.body), /not signed in/);
  });

  test('a replayed callback URL fails at the exchange and signs nobody in', async () => {
    const { client } = await startClient();
    const browser = new TestBrowser();
    const login = await browser.request(`${client.url}/login`);
    let page = await browser.follow(login.headers.get('location')!, latch.baseUrl);
    if (page.body.includes('action="/login"')) page = await signIn(browser, latch.baseUrl, page, user.email, user.password);
    if (page.body.includes('/oauth2/authorize/decision')) page = await decide(browser, latch.baseUrl, page, 'allow');
    const callbackUrl = page.headers.get('location')!;
    assert.equal((await browser.request(callbackUrl)).status, 303);
    // The state cookie is gone after the first use: the replay is stopped by the state check.
    const replay = await browser.request(callbackUrl);
    assert.equal(replay.status, 400);
  });

  test('a wrong client secret: the example shows Latch’s invalid_client', async () => {
    const { client } = await startClient({ clientSecret: 'latch_cs_not-the-secret' });
    const callback = await walk(new TestBrowser(), client);
    assert.equal(callback.status, 502);
    assert.match(pageText(callback.body), /invalid_client/);
  });

  test('sign-out ends the example session', async () => {
    const { client } = await startClient();
    const browser = new TestBrowser();
    assert.equal((await walk(browser, client)).status, 303);
    assert.match(pageText((await browser.request(`${client.url}/`)).body), /Signed in as/);
    const logout = await browser.request(`${client.url}/logout`, { form: {} });
    assert.equal(logout.status, 303);
    assert.match(pageText((await browser.request(`${client.url}/`)).body), /not signed in/);
  });
});
