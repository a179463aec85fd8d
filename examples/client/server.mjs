/**
 * An example client application for Latch, written the way a client developer would write it (the client side
 * of RFC 6749 §4.1; docs/protocol-decisions.md "The service"):
 *
 *   GET /login     makes a random `state` (and a PKCE verifier), keeps them in HttpOnly cookies, and
 *                  redirects the browser to Latch's authorization endpoint.
 *   GET /callback  the registered redirect_uri: checks `state` against the cookie (constant time), then, from
 *                  this back end, exchanges the code at the token endpoint with the client id and secret from
 *                  the environment, calls userinfo, and signs the user in to this application.
 *   GET /          shows the signed-in user (escaped by preact-render-to-string), or a sign-in link.
 *   POST /logout   signs out of this application.
 *
 * Run it:  LATCH_CLIENT_ID=… LATCH_CLIENT_SECRET=… node examples/client/server.mjs
 * Tests start it with startExampleClient({ issuer, clientId, clientSecret, port: 0, auth }).
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { pathToFileURL } from 'node:url';
import fastifyCookie from '@fastify/cookie';
import Fastify from 'fastify';
import { h } from 'preact';
import { renderToString } from 'preact-render-to-string';

const STATE_COOKIE = 'example_oauth_state';
const VERIFIER_COOKIE = 'example_oauth_verifier';
const SESSION_COOKIE = 'example_session';
/** How long a sign-in attempt may take in the browser (sign-in page, consent) before its state is forgotten. */
const ATTEMPT_MAX_AGE_SECONDS = 10 * 60;

/** A fresh random value: 256 bits, base64url. */
function randomToken() {
  return randomBytes(32).toString('base64url');
}

/** Compares two strings without leaking, through timing, how much of them matched. */
function constantTimeEqual(a, b) {
  const digestA = createHash('sha256').update(String(a)).digest();
  const digestB = createHash('sha256').update(String(b)).digest();
  return timingSafeEqual(digestA, digestB);
}

function page(title, ...children) {
  const html = renderToString(
    h('html', { lang: 'en' }, h('head', null, h('meta', { charset: 'utf-8' }), h('title', null, title)), h('body', null, h('h1', null, title), ...children)),
  );
  return `<!doctype html>${html}`;
}

/**
 * Starts the example client. Every option falls back to the environment:
 * issuer LATCH_ISSUER, clientId LATCH_CLIENT_ID, clientSecret LATCH_CLIENT_SECRET, auth LATCH_CLIENT_AUTH
 * (basic | post), userinfoHeader LATCH_USERINFO_HEADER (bearer | bare), pkce LATCH_USE_PKCE (1 | 0),
 * port PORT (default 4000), host HOST (default 127.0.0.1), publicUrl EXAMPLE_PUBLIC_URL.
 */
export async function startExampleClient(options = {}) {
  const env = process.env;
  const issuer = (options.issuer ?? env.LATCH_ISSUER ?? 'http://localhost:3000').replace(/\/+$/, '');
  // The secret lives only here, in the back end; it never appears in a page, a redirect or a cookie.
  const clientId = options.clientId ?? env.LATCH_CLIENT_ID;
  const clientSecret = options.clientSecret ?? env.LATCH_CLIENT_SECRET;
  const auth = options.auth ?? env.LATCH_CLIENT_AUTH ?? 'basic';
  const userinfoHeader = options.userinfoHeader ?? env.LATCH_USERINFO_HEADER ?? 'bearer';
  const pkce = options.pkce ?? env.LATCH_USE_PKCE !== '0';
  const fetchImpl = options.fetch ?? globalThis.fetch;
  if (!clientId || !clientSecret) throw new Error('Set LATCH_CLIENT_ID and LATCH_CLIENT_SECRET (from `npx latch client create`)');
  if (auth !== 'basic' && auth !== 'post') throw new Error('LATCH_CLIENT_AUTH must be basic or post');
  if (userinfoHeader !== 'bearer' && userinfoHeader !== 'bare') throw new Error('LATCH_USERINFO_HEADER must be bearer or bare');

  /** Signed-in users of this application, by session id. A real application would use its own session store. */
  const sessions = new Map();
  let redirectUri = '';

  const app = Fastify({ logger: options.logger ?? false });
  await app.register(fastifyCookie);
  // The logout form posts an empty form body.
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_request, _body, done) => done(null, {}));

  const secureCookies = () => redirectUri.startsWith('https:');
  const attemptCookie = () => ({ httpOnly: true, sameSite: 'lax', secure: secureCookies(), path: '/', maxAge: ATTEMPT_MAX_AGE_SECONDS });

  app.get('/', async (request, reply) => {
    const session = sessions.get(request.cookies[SESSION_COOKIE] ?? '');
    reply.type('text/html; charset=utf-8').header('cache-control', 'no-store');
    if (!session) {
      return page('Example app', h('p', null, 'You are not signed in.'), h('p', null, h('a', { href: '/login' }, 'Sign in with Latch')));
    }
    const { user, userinfo } = session;
    return page(
      'Example app',
      h('p', { id: 'signed-in' }, 'Signed in as ', h('strong', { id: 'user-name' }, user.name), ' (', h('span', { id: 'user-email' }, user.email), ')'),
      user.avatar_url ? h('img', { src: user.avatar_url, alt: '', width: 64, height: 64 }) : null,
      h('h2', null, 'User object from the token response'),
      h('pre', { id: 'token-user' }, JSON.stringify(user, null, 2)),
      h('h2', null, 'Userinfo'),
      h('pre', { id: 'userinfo' }, JSON.stringify(userinfo, null, 2)),
      h('form', { method: 'post', action: '/logout' }, h('button', { type: 'submit' }, 'Sign out')),
    );
  });

  // Spec 4.4 login endpoint: a fresh random state per attempt, kept in an HttpOnly cookie, then off to Latch.
  app.get('/login', async (_request, reply) => {
    const state = randomToken();
    const authorizeUrl = new URL(`${issuer}/oauth2/authorize`);
    authorizeUrl.searchParams.set('response_type', 'code');
    authorizeUrl.searchParams.set('client_id', clientId);
    authorizeUrl.searchParams.set('redirect_uri', redirectUri);
    authorizeUrl.searchParams.set('scope', 'profile');
    authorizeUrl.searchParams.set('state', state);
    reply.setCookie(STATE_COOKIE, state, attemptCookie());
    if (pkce) {
      // PKCE (RFC 7636, S256): the verifier stays with this browser's attempt; Latch sees only its hash.
      const verifier = randomToken();
      authorizeUrl.searchParams.set('code_challenge', createHash('sha256').update(verifier).digest('base64url'));
      authorizeUrl.searchParams.set('code_challenge_method', 'S256');
      reply.setCookie(VERIFIER_COOKIE, verifier, attemptCookie());
    }
    return reply.redirect(authorizeUrl.href, 302);
  });

  // Spec 4.4 callback endpoint (the registered redirect_uri).
  app.get('/callback', async (request, reply) => {
    const query = request.query;
    const storedState = request.cookies[STATE_COOKIE];
    const verifier = request.cookies[VERIFIER_COOKIE];
    // One attempt per state: forget it whatever happens next.
    reply.clearCookie(STATE_COOKIE, { path: '/' }).clearCookie(VERIFIER_COOKIE, { path: '/' });
    reply.type('text/html; charset=utf-8').header('cache-control', 'no-store');

    // The state check comes first, before anything in the callback is believed (RFC 6749 §10.12: CSRF protection).
    if (typeof query.state !== 'string' || !storedState || !constantTimeEqual(query.state, storedState)) {
      return reply.code(400).send(page('Sign-in failed', h('p', { id: 'error' }, 'The sign-in attempt could not be verified (state mismatch).'), h('a', { href: '/login' }, 'Try again')));
    }
    // RFC 9207: the response must come from the issuer we sent the user to.
    if (query.iss !== undefined && query.iss !== issuer) {
      return reply.code(400).send(page('Sign-in failed', h('p', { id: 'error' }, 'The response came from an unexpected issuer.')));
    }
    if (typeof query.error === 'string') {
      const reason = query.error === 'access_denied' ? 'You did not allow the sign-in.' : `Latch answered ${query.error}: ${query.error_description ?? ''}`;
      return reply.code(400).send(page('Sign-in failed', h('p', { id: 'error' }, reason), h('a', { href: '/login' }, 'Try again')));
    }
    if (typeof query.code !== 'string' || query.code === '') {
      return reply.code(400).send(page('Sign-in failed', h('p', { id: 'error' }, 'The callback carried no code.')));
    }

    // Spec 4.2, from this back end: the code for an access token and the user object.
    const form = new URLSearchParams({ grant_type: 'authorization_code', code: query.code, redirect_uri: redirectUri });
    if (verifier) form.set('code_verifier', verifier);
    const headers = { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' };
    if (auth === 'basic') {
      // RFC 6749 §2.3.1: id and secret form-urlencoded, then Base64.
      headers.authorization = `Basic ${Buffer.from(`${encodeURIComponent(clientId)}:${encodeURIComponent(clientSecret)}`).toString('base64')}`;
    } else {
      form.set('client_id', clientId);
      form.set('client_secret', clientSecret);
    }
    let tokenResponse;
    try {
      const response = await fetchImpl(`${issuer}/oauth2/token`, { method: 'POST', headers, body: form.toString() });
      tokenResponse = { status: response.status, body: await response.json() };
    } catch (error) {
      request.log.error({ err: error }, 'token request failed');
      return reply.code(502).send(page('Sign-in failed', h('p', { id: 'error' }, 'Latch could not be reached.')));
    }
    const token = tokenResponse.body;
    if (tokenResponse.status !== 200 || typeof token.access_token !== 'string' || String(token.token_type).toLowerCase() !== 'bearer') {
      return reply.code(502).send(page('Sign-in failed', h('p', { id: 'error' }, `The code exchange failed: ${token.error ?? 'unexpected response'} ${token.error_description ?? ''}`)));
    }

    // Spec 4.3 (optional: the token response's user object is enough to sign in).
    const authorization = userinfoHeader === 'bearer' ? `Bearer ${token.access_token}` : token.access_token;
    const userinfoResponse = await fetchImpl(`${issuer}/oauth2/userinfo`, { headers: { authorization, accept: 'application/json' } });
    const userinfo = userinfoResponse.ok ? await userinfoResponse.json() : null;

    // Sign the user in to this application: a new session id, in an HttpOnly cookie.
    const sessionId = randomToken();
    sessions.set(sessionId, { user: token.user, userinfo, signedInAt: new Date() });
    reply.setCookie(SESSION_COOKIE, sessionId, { httpOnly: true, sameSite: 'lax', secure: secureCookies(), path: '/' });
    return reply.redirect('/', 303);
  });

  app.post('/logout', async (request, reply) => {
    sessions.delete(request.cookies[SESSION_COOKIE] ?? '');
    return reply.clearCookie(SESSION_COOKIE, { path: '/' }).redirect('/', 303);
  });

  const address = await app.listen({ port: options.port ?? Number(env.PORT ?? 4000), host: options.host ?? env.HOST ?? '127.0.0.1' });
  const url = (options.publicUrl ?? env.EXAMPLE_PUBLIC_URL ?? address.replace('[::1]', '127.0.0.1')).replace(/\/+$/, '');
  redirectUri = `${url}/callback`;
  return { app, url, redirectUri, close: () => app.close() };
}

// `node examples/client/server.mjs`: configuration from the environment.
if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  let client;
  try {
    client = await startExampleClient({ logger: true });
  } catch (error) {
    console.error(`example client: ${error.message}`);
    process.exit(2);
  }
  console.log(`Example client on ${client.url}; its redirect URI (register it with Latch) is ${client.redirectUri}`);
  const stop = () => client.close().then(() => process.exit(0));
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}
