/**
 * Node.js web frameworks: Passport with openid-client's own strategy (openid-client/passport, which uses PKCE
 * whenever the server advertises S256, as Latch does) and Auth.js. Both run in a back end, so both are for
 * confidential clients only. Neither framework is installed in this repository, so neither is run by the
 * tests; the openid-client calls they make are the ones the tested snippet makes.
 */
import { environmentLines, frameworkRedirectNote, frameworkRedirectUri, isHttpIssuer, type IntegrationSnippet, type SnippetContext } from './snippet.js';

export function passportSnippet(context: SnippetContext): IntegrationSnippet {
  const httpIssuer = isHttpIssuer(context.issuer);
  const code = [
    "import express from 'express';",
    "import session from 'express-session';",
    "import passport from 'passport';",
    "import * as client from 'openid-client';",
    "import { Strategy } from 'openid-client/passport';",
    '',
    'const redirectUri = new URL(process.env.LATCH_REDIRECT_URI);',
    'const config = await client.discovery(',
    '  new URL(process.env.LATCH_ISSUER),',
    '  process.env.LATCH_CLIENT_ID,',
    '  process.env.LATCH_CLIENT_SECRET, // read from the environment: never in the code',
    ...(httpIssuer
      ? [
          '  undefined,',
          '  // Your issuer is http:// (a local Latch): openid-client 6 refuses http',
          '  // unless told to allow it. Remove this line once the issuer is https.',
          '  { execute: [client.allowInsecureRequests] },',
        ]
      : []),
    ');',
    '',
    '// PKCE (S256), state and nonce are handled by the strategy; the verify function gets the validated tokens.',
    "passport.use('latch', new Strategy({ config, scope: 'openid email profile', callbackURL: redirectUri.href }, (tokens, verified) => {",
    '  verified(null, tokens.claims()); // sub, email, email_verified, name, picture',
    '}));',
    'passport.serializeUser((user, done) => done(null, user));',
    'passport.deserializeUser((user, done) => done(null, user));',
    '',
    'const app = express();',
    "app.use(session({ secret: process.env.SESSION_SECRET, resave: false, saveUninitialized: false, cookie: { httpOnly: true, sameSite: 'lax' } }));",
    "app.use(passport.authenticate('session'));",
    "app.get('/login', passport.authenticate('latch'));",
    "app.get(redirectUri.pathname, passport.authenticate('latch', { successRedirect: '/', failureRedirect: '/login' }));",
    "app.get('/', (req, res) => res.send(req.user ? `Signed in as ${req.user.email}` : '<a href=\"/login\">Sign in with Latch</a>'));",
    'app.listen(Number(process.env.PORT || redirectUri.port || 3000));',
  ].join('\n');
  return {
    id: 'node-passport',
    title: 'Node.js: Passport (Express)',
    framework: 'openid-client',
    install: 'npm install express express-session passport openid-client@6',
    environment: [
      ...environmentLines(context),
      '# Signs the session cookie: any long random value, e.g. from: openssl rand -base64 32',
      'SESSION_SECRET=',
    ].join('\n'),
    files: [{ id: 'snippet-node-passport', name: 'app.mjs', code }],
    notes: [{ key: 'snippet.passport.run' }],
  };
}

export function authJsSnippet(context: SnippetContext): IntegrationSnippet {
  const callback = frameworkRedirectUri(context, '/api/auth/callback/latch');
  const code = [
    "import NextAuth from 'next-auth';",
    '',
    'export const { handlers, auth, signIn, signOut } = NextAuth({',
    '  providers: [',
    '    {',
    "      id: 'latch',",
    "      name: 'Latch',",
    "      type: 'oidc',",
    '      issuer: process.env.LATCH_ISSUER,',
    '      clientId: process.env.LATCH_CLIENT_ID,',
    '      clientSecret: process.env.LATCH_CLIENT_SECRET, // read from the environment: never in the code',
    "      checks: ['pkce', 'state', 'nonce'],",
    "      authorization: { params: { scope: 'openid email profile' } },",
    '    },',
    '  ],',
    '});',
  ].join('\n');
  return {
    id: 'node-authjs',
    title: 'Node.js: Auth.js (NextAuth.js 5)',
    install: 'npm install next-auth@beta',
    environment: [
      ...environmentLines(context),
      '# Encrypts Auth.js session cookies: generate it with npx auth secret',
      'AUTH_SECRET=',
      `AUTH_URL=${new URL(context.redirectUri).origin}`,
    ].join('\n'),
    files: [
      { id: 'snippet-node-authjs', name: 'auth.ts', code },
      { id: 'snippet-node-authjs-route', name: 'app/api/auth/[...nextauth]/route.ts', code: "import { handlers } from '@/auth';\n\nexport const { GET, POST } = handlers;" },
    ],
    notes: [frameworkRedirectNote(context, 'Auth.js', callback), { key: 'snippet.authjs.signIn', params: { call: "signIn('latch')", link: '<a href="/api/auth/signin">' } }],
  };
}
