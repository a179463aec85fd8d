/**
 * Browser-like steps for the full flow (e) and sign-ins (f): the authorization request, the walk through
 * sign-in and consent (Latch's pages, or the peer's interaction) to the client's redirect_uri, and one whole
 * flow on a virtual user's connection and cookie jar.
 */
import { createHash, randomBytes } from 'node:crypto';
import { headerValues } from './http-load.mjs';
import { basicAuthorization, REDIRECT_URI, USER_EMAIL, USER_PASSWORD } from './latch.mjs';

export function htmlInputValue(html, name) {
  const input = new RegExp(`<input[^>]*name="${name}"[^>]*>`).exec(html)?.[0];
  const value = input && /value="([^"]*)"/.exec(input)?.[1];
  if (value === undefined) throw new Error(`no input ${name} in page: ${html.slice(0, 200)}`);
  return value.replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');
}

export function formBody(fields) {
  return new URLSearchParams(fields).toString();
}

export function locationPath(response) {
  const location = headerValues(response.headerText, 'location')[0];
  if (!location) throw new Error(`expected a redirect, got ${response.status}: ${response.body.toString('utf8').slice(0, 300)}`);
  return location;
}

export function pkcePair() {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

/** An authorization request with state and PKCE; with `openid` in the scope, a nonce too. */
export function authorizePath(clientId, pkce, scope = 'openid profile') {
  const query = new URLSearchParams({
    response_type: 'code',
    client_id: clientId,
    redirect_uri: REDIRECT_URI,
    scope,
    state: randomBytes(12).toString('base64url'),
    ...(scope.split(' ').includes('openid') ? { nonce: randomBytes(12).toString('base64url') } : {}),
    code_challenge: pkce.challenge,
    code_challenge_method: 'S256',
  });
  return `/oauth2/authorize?${query}`;
}

/** Walks redirects and Latch's sign-in and consent pages (or the peer's interaction) until the client's redirect_uri. */
export async function walkToRedirectUri(agent, firstPath) {
  let response = await agent.send({ path: firstPath });
  for (let step = 0; step < 12; step++) {
    if (response.status >= 300 && response.status < 400) {
      const location = locationPath(response);
      if (location.startsWith(REDIRECT_URI)) return new URL(location);
      const url = new URL(location, 'http://bench.invalid');
      response = await agent.send({ path: url.pathname + url.search });
      continue;
    }
    const html = response.body.toString('utf8');
    if (response.status === 200 && html.includes('action="/login"')) {
      response = await agent.send({
        method: 'POST',
        path: '/login',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
        body: formBody({ _csrf: htmlInputValue(html, '_csrf'), return_to: htmlInputValue(html, 'return_to'), email: USER_EMAIL, password: USER_PASSWORD }),
      });
      continue;
    }
    if (response.status === 200 && html.includes('/oauth2/authorize/decision')) {
      response = await agent.send({
        method: 'POST',
        path: '/oauth2/authorize/decision',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
        body: formBody({ _csrf: htmlInputValue(html, '_csrf'), authorization_request: htmlInputValue(html, 'authorization_request'), decision: 'allow' }),
      });
      continue;
    }
    throw new Error(`unexpected ${response.status} on the way to the redirect_uri: ${html.slice(0, 300)}`);
  }
  throw new Error('too many steps before the redirect_uri');
}

/** One full flow with a live session and remembered consent: authorize → code → token → userinfo. */
export async function fullFlow(agent, client, scope) {
  const pkce = pkcePair();
  const authorize = await agent.send({ path: authorizePath(client.clientId, pkce, scope) });
  if (authorize.status !== 302 && authorize.status !== 303) throw new Error(`authorize answered ${authorize.status}, expected a redirect with a code`);
  const callback = new URL(locationPath(authorize));
  const code = callback.searchParams.get('code');
  if (!callback.href.startsWith(REDIRECT_URI) || !code) throw new Error(`authorize redirected to ${callback.href.slice(0, 200)} without a code`);
  const token = await agent.send({
    method: 'POST',
    path: '/oauth2/token',
    headers: { Authorization: basicAuthorization(client.clientId, client.clientSecret), 'Content-Type': 'application/x-www-form-urlencoded', Accept: 'application/json' },
    body: formBody({ grant_type: 'authorization_code', code, redirect_uri: REDIRECT_URI, code_verifier: pkce.verifier }),
  });
  if (token.status !== 200) throw new Error(`token answered ${token.status}: ${token.body.toString('utf8').slice(0, 300)}`);
  const accessToken = JSON.parse(token.body.toString('utf8')).access_token;
  const userinfo = await agent.send({ path: '/oauth2/userinfo', headers: { Authorization: `Bearer ${accessToken}`, Accept: 'application/json' } });
  if (userinfo.status !== 200) throw new Error(`userinfo answered ${userinfo.status}: ${userinfo.body.toString('utf8').slice(0, 300)}`);
}
