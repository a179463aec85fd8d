/**
 * Node.js with openid-client 6 (the version Latch's own tests use): a whole app on node:http, /login and the
 * redirect URI's path, Authorization Code with PKCE (S256), state and nonce checked by the library. It is run
 * as shown, against a real Latch, by test/developer/integration-snippets.test.ts.
 */
import { environmentLines, isHttpIssuer, type IntegrationSnippet, type SnippetContext } from './snippet.js';

export function nodeOpenidClientSnippet(context: SnippetContext): IntegrationSnippet {
  const httpIssuer = isHttpIssuer(context.issuer);
  // openid-client 6 refuses every http:// request ("only requests to HTTPS are allowed") unless the
  // configuration is given allowInsecureRequests, in the 5th argument of discovery().
  const discoveryOptions = httpIssuer
    ? [
        '  // Your issuer is http:// (a local Latch): openid-client 6 refuses http',
        '  // unless told to allow it. Remove this line once the issuer is https.',
        '  { execute: [client.allowInsecureRequests] },',
      ]
    : [];
  const clientAuthentication = context.isPublic
    ? ['  undefined,', '  // A public client (single-page or mobile app): no secret, the client id alone, PKCE required.', '  client.None(),']
    : ['  process.env.LATCH_CLIENT_SECRET, // read from the environment: never in the code', ...(httpIssuer ? ['  undefined,'] : [])];
  const code = [
    "import { randomBytes } from 'node:crypto';",
    "import { createServer } from 'node:http';",
    "import * as client from 'openid-client';",
    '',
    'const redirectUri = new URL(process.env.LATCH_REDIRECT_URI);',
    'const port = Number(process.env.PORT || redirectUri.port || 3000);',
    '',
    'const config = await client.discovery(',
    '  new URL(process.env.LATCH_ISSUER),',
    '  process.env.LATCH_CLIENT_ID,',
    ...clientAuthentication,
    ...discoveryOptions,
    ');',
    '',
    '// Sign-ins in progress, by a random id in an HttpOnly cookie.',
    '// A real app keeps them in its session store.',
    'const pending = new Map();',
    '',
    'createServer(async (request, response) => {',
    '  try {',
    '    const url = new URL(request.url, redirectUri);',
    "    if (url.pathname === '/login') {",
    '      const codeVerifier = client.randomPKCECodeVerifier();',
    '      const state = client.randomState();',
    '      const nonce = client.randomNonce();',
    "      const loginId = randomBytes(16).toString('base64url');",
    '      pending.set(loginId, { codeVerifier, state, nonce });',
    '      const authorizationUrl = client.buildAuthorizationUrl(config, {',
    '        redirect_uri: redirectUri.href,',
    "        scope: 'openid email profile',",
    '        code_challenge: await client.calculatePKCECodeChallenge(codeVerifier),',
    "        code_challenge_method: 'S256',",
    '        state,',
    '        nonce,',
    '      });',
    '      response.writeHead(302, {',
    '        location: authorizationUrl.href,',
    "        'set-cookie': `latch_login=${loginId}; HttpOnly; SameSite=Lax; Path=/; Max-Age=600`,",
    '      });',
    '      return response.end();',
    '    }',
    '    if (url.pathname === redirectUri.pathname) {',
    "      const loginId = /(?:^|;\\s*)latch_login=([\\w-]+)/.exec(request.headers.cookie ?? '')?.[1];",
    '      const login = loginId && pending.get(loginId);',
    '      if (!login) {',
    "        response.writeHead(400, { 'content-type': 'text/plain' });",
    "        return response.end('No sign-in in progress here: start at /login.\\n');",
    '      }',
    '      pending.delete(loginId);',
    '      // Checks state, exchanges the code with the PKCE verifier,',
    '      // validates the id_token (signature, iss, aud, nonce).',
    '      const tokens = await client.authorizationCodeGrant(config, url, {',
    '        pkceCodeVerifier: login.codeVerifier,',
    '        expectedState: login.state,',
    '        expectedNonce: login.nonce,',
    '        idTokenExpected: true,',
    '      });',
    '      const claims = tokens.claims();',
    '      const user = await client.fetchUserInfo(config, tokens.access_token, claims.sub);',
    "      response.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' });",
    '      return response.end(`Signed in as ${user.email} (${user.name}, sub ${claims.sub})\\n`);',
    '    }',
    "    response.writeHead(302, { location: '/login' });",
    '    response.end();',
    '  } catch (error) {',
    "    console.error('Sign-in failed:', error);",
    "    response.writeHead(500, { 'content-type': 'text/plain' });",
    "    response.end('Sign-in failed: see the server log.\\n');",
    '  }',
    '}).listen(port, () => {',
    '  // Open /login on the redirect URL\'s host: the sign-in cookie must come back to the callback.',
    '  console.log(`Listening on port ${port}: open ${redirectUri.origin}/login`);',
    '});',
  ].join('\n');
  return {
    id: 'node-openid-client',
    title: 'Node.js: openid-client 6',
    install: 'npm install openid-client@6',
    environment: environmentLines(context).join('\n'),
    files: [{ id: 'snippet-node-openid-client', name: 'app.mjs', code }],
    notes: [{ key: 'snippet.node.wholeApp' }, { key: 'snippet.node.listens', params: { path: new URL(context.redirectUri).pathname } }],
  };
}
