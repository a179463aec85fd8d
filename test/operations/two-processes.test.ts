/**
 * Two `latch serve` processes on one PostgreSQL schema, as behind a load balancer: one flow crosses them
 * (sign in on A, consent on B, exchange on A, userinfo on B), and simultaneous exchanges of one code sent to
 * both let exactly one win (the single-use update holds across processes); signing keys rotated with
 * `latch keys rotate` while both keep serving. Skipped when PostgreSQL is unreachable.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { inputValue, TestBrowser } from '../helpers/browser.js';
import { startLatchProcess, runLatch, type LatchProcess } from '../helpers/latch-process.js';
import { createLocalJWKSet, decodeProtectedHeader, jwtVerify, type JSONWebKeySet } from 'jose';
import { authorize, authorizeUrl, decide, exchangeCode, pkcePair } from '../helpers/oauth-flow.js';
import { createTestSchema, POSTGRES_TEST_URL, postgresUnavailableReason, type TestSchema } from '../helpers/postgres.js';
import { SIGNING_ALGORITHMS } from '../../src/crypto/signing-algorithms.js';

const skip = (await postgresUnavailableReason()) ?? false;

describe('two Latch processes on one PostgreSQL', { skip }, () => {
  let schema: TestSchema;
  let a: LatchProcess;
  let b: LatchProcess;
  let env: Record<string, string>;
  let client: { clientId: string; clientSecret: string; redirectUris: string[] };
  const user = { email: 'crossing@example.com', password: 'correct horse battery staple' };
  const redirectUri = 'http://127.0.0.1:9999/callback';

  before(async () => {
    schema = await createTestSchema();
    // What must match across processes: the database, LATCH_SECRET and LATCH_ISSUER.
    env = {
      LATCH_DATABASE_URL: POSTGRES_TEST_URL,
      LATCH_DATABASE_SCHEMA: schema.name,
      LATCH_SECRET: 'two-processes-shared-secret-0123456789-abcdef',
      LATCH_ISSUER: 'http://latch.test',
      // Each process reloads signing keys from the database this often (rotation test below).
      LATCH_SIGNING_KEY_REFRESH_SECONDS: '1',
      // A minute: only LISTEN/NOTIFY can make the other process drop a cached read within the test below.
      LATCH_CACHE_MAX_STALENESS_MS: '60000',
    };
    const migrated = await runLatch(['migrate'], { env });
    assert.equal(migrated.code, 0, migrated.stderr);
    [a, b] = await Promise.all([startLatchProcess({ env, args: ['--no-migrate'] }), startLatchProcess({ env, args: ['--no-migrate'] })]);
    const created = await runLatch(['client', 'create', '--name', 'Crossing App', '--redirect-uri', redirectUri, '--json'], { env });
    assert.equal(created.code, 0, created.stderr);
    const parsed = JSON.parse(created.stdout);
    client = { clientId: parsed.client_id, clientSecret: parsed.client_secret, redirectUris: parsed.redirect_uris };
    const made = await runLatch(['user', 'create', '--email', user.email, '--name', 'Crossing User', '--email-verified', '--password-stdin', '--json'], { env, input: user.password });
    assert.equal(made.code, 0, made.stderr);
  });

  after(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
    await schema?.drop();
  });

  const params = (challenge: string) => ({
    response_type: 'code',
    client_id: client.clientId,
    redirect_uri: redirectUri,
    scope: 'profile',
    state: 'cross',
    code_challenge: challenge,
    code_challenge_method: 'S256',
  });

  test('sign in on A, consent on B, exchange on A, userinfo on B', async () => {
    const browser = new TestBrowser();
    const { verifier, challenge } = pkcePair();

    const loginPage = await browser.follow(authorizeUrl(a.baseUrl, params(challenge)), a.baseUrl);
    assert.equal(loginPage.status, 200);
    const signedIn = await browser.request(`${a.baseUrl}/login`, {
      form: { _csrf: inputValue(loginPage.body, '_csrf'), return_to: inputValue(loginPage.body, 'return_to'), ...user },
    });
    assert.equal(signedIn.status, 303, signedIn.body.slice(0, 300));

    // The browser's next request lands on B: the session made by A is known there.
    const consentPage = await browser.follow(new URL(signedIn.headers.get('location')!, b.baseUrl).href, b.baseUrl);
    assert.equal(consentPage.status, 200);
    assert.match(consentPage.body, /Crossing App/);
    const decided = await decide(browser, b.baseUrl, consentPage, 'allow');
    assert.ok(decided.status === 302 || decided.status === 303, `${decided.status}: ${decided.body.slice(0, 300)}`);
    const redirect = new URL(decided.headers.get('location')!);
    assert.equal(redirect.searchParams.get('iss'), 'http://latch.test');
    assert.equal(redirect.searchParams.get('state'), 'cross');

    const token = await exchangeCode(a.baseUrl, client, { grant_type: 'authorization_code', code: redirect.searchParams.get('code')!, code_verifier: verifier });
    assert.equal(token.status, 200, JSON.stringify(token.body));
    const info = await fetch(`${b.baseUrl}/oauth2/userinfo`, { headers: { authorization: `Bearer ${token.body.access_token}` } });
    assert.equal(info.status, 200);
    assert.equal((await info.json()).email, user.email);
  });

  test('a token revoked at A, a client deleted by the CLI: B, which had them cached, refuses them at once (LISTEN/NOTIFY)', async () => {
    const browser = new TestBrowser();
    const { verifier, challenge } = pkcePair();
    let page = await browser.follow(authorizeUrl(a.baseUrl, params(challenge)), a.baseUrl);
    if (page.status === 200 && page.body.includes('action="/login"')) {
      page = await browser.follow(`${a.baseUrl}/login`, a.baseUrl, { form: { _csrf: inputValue(page.body, '_csrf'), return_to: inputValue(page.body, 'return_to'), ...user } });
    }
    if (page.status === 200) page = await decide(browser, a.baseUrl, page, 'allow');
    const code = new URL(page.headers.get('location')!).searchParams.get('code')!;
    const token = await exchangeCode(a.baseUrl, client, { grant_type: 'authorization_code', code, code_verifier: verifier });
    assert.equal(token.status, 200, JSON.stringify(token.body));
    const userinfoAtB = () => fetch(`${b.baseUrl}/oauth2/userinfo`, { headers: { authorization: `Bearer ${token.body.access_token}` } }).then((r) => r.status);
    // B reads the token twice: the second answer may come from its cache.
    assert.equal(await userinfoAtB(), 200);
    assert.equal(await userinfoAtB(), 200);
    const revoked = await fetch(`${a.baseUrl}/oauth2/revoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token: token.body.access_token, client_id: client.clientId, client_secret: client.clientSecret }),
    });
    assert.equal(revoked.status, 200);
    const deadline = Date.now() + 500;
    let status = await userinfoAtB();
    while (status === 200 && Date.now() < deadline) status = await userinfoAtB();
    assert.equal(status, 401, 'B refuses the revoked token within half a second (the staleness bound here is a minute)');

    // A client deleted from the command line: its secret stops working at B, which had the client cached.
    const other = JSON.parse((await runLatch(['client', 'create', '--name', 'Short-lived App', '--redirect-uri', redirectUri, '--json'], { env })).stdout);
    const tokenAtB = () =>
      fetch(`${b.baseUrl}/oauth2/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ grant_type: 'authorization_code', code: 'not-a-code', client_id: other.client_id, client_secret: other.client_secret }),
      }).then(async (r) => (await r.json()).error as string);
    assert.equal(await tokenAtB(), 'invalid_grant', 'the client is known at B (and now cached)');
    assert.equal(await tokenAtB(), 'invalid_grant');
    const deleted = await runLatch(['client', 'delete', other.client_id], { env });
    assert.equal(deleted.code, 0, deleted.stderr);
    const until = Date.now() + 500;
    let error = await tokenAtB();
    while (error === 'invalid_grant' && Date.now() < until) error = await tokenAtB();
    assert.equal(error, 'invalid_client', 'B forgets the deleted client within half a second');
  });

  test('simultaneous exchanges of one code at both processes: exactly one wins, every round', async () => {
    const browser = new TestBrowser();
    // Sign in once (consent is already remembered from the previous test, or given here).
    let page = await browser.follow(authorizeUrl(b.baseUrl, params(pkcePair().challenge)), b.baseUrl);
    if (page.status === 200 && page.body.includes('action="/login"')) {
      page = await browser.follow(`${b.baseUrl}/login`, b.baseUrl, {
        form: { _csrf: inputValue(page.body, '_csrf'), return_to: inputValue(page.body, 'return_to'), ...user },
      });
    }
    if (page.status === 200) page = await decide(browser, b.baseUrl, page, 'allow');

    for (let round = 0; round < 5; round++) {
      const { verifier, challenge } = pkcePair();
      const issued = await browser.follow(authorizeUrl(round % 2 ? a.baseUrl : b.baseUrl, params(challenge)), round % 2 ? a.baseUrl : b.baseUrl);
      assert.equal(issued.status, 302);
      const code = new URL(issued.headers.get('location')!).searchParams.get('code')!;
      const form = { grant_type: 'authorization_code', code, code_verifier: verifier };
      const results = await Promise.all([a, b, a, b].map((p) => exchangeCode(p.baseUrl, client, form)));
      assert.deepEqual(results.map((r) => r.status).sort(), [200, 400, 400, 400], `round ${round}`);
      for (const loser of results.filter((r) => r.status !== 200)) assert.equal(loser.body.error, 'invalid_grant');
    }
  });

  test('signing keys rotated by `latch keys rotate` while both serve: both publish the new key and keep serving', async (t) => {
    const browser = new TestBrowser();
    /** A full flow across the two processes; returns the id_token when the token endpoint issues one. */
    async function flowThrough(issuer: LatchProcess, exchanger: LatchProcess): Promise<string | undefined> {
      const { verifier, challenge } = pkcePair();
      const redirect = await authorize(browser, issuer.baseUrl, { ...params(challenge), scope: 'openid profile', nonce: 'n-1' }, user);
      const token = await exchangeCode(exchanger.baseUrl, client, { grant_type: 'authorization_code', code: redirect.searchParams.get('code')!, code_verifier: verifier });
      assert.equal(token.status, 200, JSON.stringify(token.body));
      const info = await fetch(`${issuer.baseUrl}/oauth2/userinfo`, { headers: { authorization: `Bearer ${token.body.access_token}` } });
      assert.equal(info.status, 200);
      return token.body.id_token as string | undefined;
    }
    async function kidsOf(p: LatchProcess): Promise<string[]> {
      const response = await fetch(`${p.baseUrl}/oauth2/jwks`);
      assert.equal(response.status, 200);
      return ((await response.json()) as JSONWebKeySet).keys.map((k) => k.kid!);
    }

    const oldToken = await flowThrough(a, b);
    // Started together on a fresh database, the two created one first key per algorithm between them (ensureSigningKeys
    // inserts under a lock), and each loaded every one of them before it served: the same keys, with no reload to wait for.
    const oldKids = await kidsOf(a);
    assert.equal(oldKids.length, SIGNING_ALGORITHMS.length, 'one first key per algorithm');
    assert.deepEqual((await kidsOf(b)).sort(), [...oldKids].sort(), 'both processes publish the same keys');
    const alg = oldToken ? decodeProtectedHeader(oldToken).alg! : 'RS256';

    // Rotate from a third process, with no lead time, while A and B keep serving.
    const rotated = await runLatch(['keys', 'rotate', '--alg', alg, '--lead-seconds', '0', '--json'], { env });
    assert.equal(rotated.code, 0, rotated.stderr);
    const newKid = JSON.parse(rotated.stdout)[0].kid as string;
    assert.ok(!oldKids.includes(newKid));

    // Within the refresh interval (1 s here) both processes publish the new key beside the old ones.
    for (const p of [a, b]) {
      let kids: string[] = [];
      for (let i = 0; i < 100; i++) {
        kids = await kidsOf(p);
        if (kids.includes(newKid)) break;
        await new Promise((r) => setTimeout(r, 100));
      }
      assert.ok(kids.includes(newKid), `${p.baseUrl} publishes ${newKid}: ${kids.join(', ')}`);
      for (const kid of oldKids) assert.ok(kids.includes(kid), `${p.baseUrl} still publishes ${kid}`);
    }

    // Both keep serving the whole flow, each way round.
    const freshTokens = [await flowThrough(a, b), await flowThrough(b, a)];
    if (!oldToken) {
      t.diagnostic('the token endpoint issues no id_token yet: signatures are not checked');
      return;
    }
    // New id_tokens from either process are signed with the new key; the old one still verifies on both.
    for (const [p, fresh] of [[a, freshTokens[0]], [b, freshTokens[1]]] as const) {
      assert.ok(fresh);
      assert.equal(decodeProtectedHeader(fresh).kid, newKid);
      const jwks = (await (await fetch(`${p.baseUrl}/oauth2/jwks`)).json()) as JSONWebKeySet;
      await jwtVerify(fresh, createLocalJWKSet(jwks), { issuer: 'http://latch.test', audience: client.clientId });
      await jwtVerify(oldToken, createLocalJWKSet(jwks), { issuer: 'http://latch.test', audience: client.clientId });
    }
  });
});
